// The work queue of a controller: keys only, de-duplicated, never handed to two workers at once,
// with delays, rate-limited retries and priorities. One type serves every use, as controller-runtime
// (≥ 0.23) defaults to its priority queue: with every key at the default priority it behaves as
// client-go's rate-limiting queue.
//
// Each key has one record (entry.ts) while it is queued or processing. Queued, it is in at most one
// of: delayed (delay heap) → ready (ReadySet) → handed out by get (processing) → done.
// A key added while it is processing waits "parked" until `done`, so the change is never lost and
// the key is never processed twice at once. JavaScript runs one callback at a time, so the
// bookkeeping needs no locks: every method finishes its update before returning.
import { type Clock, realClock, type TimerHandle } from "./clock.js";
import { DeadlineHeap } from "./deadline-heap.js";
import { bindQueueMetrics, type QueueMetrics, type WorkqueueMetricsProvider } from "./metrics.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.js";
import { Entry, EntryState } from "./entry.js";
import { ReadySet } from "./ready-set.js";

/** Priority of events from the initial list and from resyncs (controller-runtime's `handler.LowPriority`). */
export const LowPriority = -100;

/** Options of {@link PriorityQueue.add}. */
export interface AddOptions {
  /**
   * Higher is handed out first; a key added again keeps the highest priority it was given.
   * Default: 0.
   */
  priority?: number;
  /**
   * Milliseconds before the key becomes ready; a key added again keeps the earliest deadline, and
   * a key that is already ready stays ready. Default: 0 (ready now).
   */
  after?: number;
  /** Also asks the rate limiter for a delay, and waits the shorter of it and `after`. Default: false. */
  rateLimited?: boolean;
}

/** What `get` resolves: the next key with its priority, or `shutdown: true` once the queue is shut down and empty. */
export type GetResult<K extends string> =
  | { readonly shutdown: false; readonly key: K; readonly priority: number }
  | { readonly shutdown: true; readonly key?: undefined; readonly priority?: undefined };

/** A keyed, de-duplicating work queue with delays, rate-limited retries and priorities. */
export interface PriorityQueue<K extends string = string> {
  /** Adds `key`, merging with a waiting entry of the same key (highest priority, earliest deadline). Ignored after shutdown. */
  add(key: K, options?: AddOptions): void;
  /** `add(key, { after: ms })`. */
  addAfter(key: K, ms: number): void;
  /** `add(key, { rateLimited: true })`: the key becomes ready after the rate limiter's delay. */
  addRateLimited(key: K): void;
  /** Tells the rate limiter that `key` succeeded, so its backoff starts over. */
  forget(key: K): void;
  /** How many times `key` has been rate-limited since it was last forgotten. */
  numRequeues(key: K): number;
  /**
   * Resolves the next ready key, waiting for one if needed; concurrent callers are served in call
   * order. The key stays "processing" until `done(key)`. After shutdown the keys still ready are
   * handed out, then `{ shutdown: true }`. Rejects with the signal's reason when it aborts first.
   */
  get(options?: { signal?: AbortSignal }): Promise<GetResult<K>>;
  /** `get` without waiting: the next ready key, `{ shutdown: true }`, or undefined when none is ready yet. */
  tryGet(): GetResult<K> | undefined;
  /** Ends the processing of `key`; if it was added meanwhile it becomes ready again. Unknown keys are ignored. */
  done(key: K): void;
  /** Keys ready to be handed out, plus keys added while processing (not delayed ones). */
  len(): number;
  /** Stops accepting keys, drops delayed ones and resolves waiting `get`s with `{ shutdown: true }`. */
  shutDown(): void;
  /** `shutDown()`, then resolves once every key handed out is done (or `shutDown()` is called). */
  shutDownWithDrain(): Promise<void>;
  shuttingDown(): boolean;
}

/** Options of {@link newPriorityQueue}. */
export interface PriorityQueueOptions<K extends string = string> {
  /** Name in the metrics (labels `name` and `controller`). Default: "" (no metrics are reported). */
  name?: string;
  /** Delays of `addRateLimited`. Default: `defaultControllerRateLimiter()` on this queue's clock. */
  rateLimiter?: RateLimiter<K>;
  /** Where the metrics go. Default: none. */
  metricsProvider?: WorkqueueMetricsProvider;
  /** Time source for delays and metrics. Default: the real clock (`performance.now`, `setTimeout`). */
  clock?: Clock;
  /**
   * Aging, beyond controller-runtime (its issue #3496), so that low-priority keys (initial list,
   * resyncs) cannot starve behind a steady stream of higher-priority keys. The rule: when the
   * longest-waiting key below the top priority has waited this many ms (since it became ready, or
   * since its priority was last raised), it takes the next hand-out instead of the top priority;
   * aged keys take at most every other hand-out (oldest first), so the higher priorities keep at
   * least half. Below the threshold the order is controller-runtime's: highest priority first,
   * FIFO within a priority. Infinity turns aging off. Default: 30_000.
   */
  agingThreshold?: number;
}

/** Creates a work queue. No timer runs until a delayed key is added. */
export function newPriorityQueue<K extends string = string>(
  options: PriorityQueueOptions<K> = {},
): PriorityQueue<K> {
  return new Queue<K>(options);
}

const shutdownResult = Object.freeze({ shutdown: true as const });

/** A pending `get`, in a doubly linked list so that an abort removes it in O(1). */
class Waiter<K extends string> {
  prev: Waiter<K> | null = null;
  next: Waiter<K> | null = null;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;
  constructor(
    readonly resolve: (r: GetResult<K>) => void,
    readonly reject: (reason: unknown) => void,
  ) {}
}

// Records of keys done and not queued again are kept for reuse, up to this many: with a long
// queue, fresh records would live long enough to be promoted and cost a full GC each.
const poolSize = 1024;

class Queue<K extends string> implements PriorityQueue<K> {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter<K>;
  readonly #metrics: QueueMetrics | undefined;
  /** Whether times are needed at all; without metrics the hot path reads no clock. */
  readonly #timed: boolean;
  readonly #aging: boolean;
  readonly #now: () => number;
  /** The record of every key queued or processing. */
  readonly #entries = new Map<K, Entry<K>>();
  readonly #pool: Entry<K>[] = [];
  readonly #ready: ReadySet<K>;
  readonly #delayed = new DeadlineHeap<K>();
  #seq = 0;
  #parked = 0;
  /** Keys being processed, in a list for the unfinished-work samples, and their number. */
  #procHead: Entry<K> | null = null;
  #processing = 0;
  #timer: TimerHandle | undefined = undefined;
  #timerDeadline = 0;
  #waitersHead: Waiter<K> | null = null;
  #waitersTail: Waiter<K> | null = null;
  #shuttingDown = false;
  #drainers: (() => void)[] = [];

  constructor(options: PriorityQueueOptions<K>) {
    const agingThreshold = options.agingThreshold ?? 30_000;
    if (!(agingThreshold >= 0)) {
      throw new RangeError(
        `newPriorityQueue: agingThreshold must be >= 0 ms or Infinity, got ${agingThreshold}`,
      );
    }
    const clock = options.clock ?? realClock();
    this.#clock = clock;
    this.#now = () => clock.now();
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>({ clock });
    this.#aging = agingThreshold !== Infinity;
    this.#ready = new ReadySet<K>(agingThreshold);
    const name = options.name ?? "";
    this.#metrics =
      options.metricsProvider !== undefined && name !== ""
        ? bindQueueMetrics(
            options.metricsProvider,
            name,
            (visit) => {
              for (let e = this.#procHead; e !== null; e = e.procNext) visit(e.processingSince);
            },
            this.#now,
          )
        : undefined;
    this.#timed = this.#metrics !== undefined;
  }

  add(key: K, options?: AddOptions): void {
    if (this.#shuttingDown) return;
    let priority = 0;
    let after = 0;
    if (options !== undefined) {
      if (options.priority !== undefined) {
        if (!Number.isFinite(options.priority)) {
          throw new RangeError(`workqueue add: priority must be a finite number, got ${options.priority}`);
        }
        priority = options.priority;
      }
      if (options.after !== undefined) {
        if (Number.isNaN(options.after))
          throw new RangeError("workqueue add: after must be a number of ms, got NaN");
        after = options.after;
      }
      if (options.rateLimited === true) {
        const wait = this.#rateLimiter.when(key);
        if (after <= 0 || wait < after) after = wait;
      }
    }
    if (after > 0) this.#metrics?.retries.inc();
    let e = this.#entries.get(key);
    if (e === undefined) {
      e = this.#pool.pop() ?? new Entry<K>(key);
      e.key = key;
      this.#entries.set(key, e);
    }
    if (e.state === EntryState.None) {
      // Not queued (new, or only processing): queue it as given.
      e.priority = priority;
      e.seq = this.#seq++;
      if (after > 0) {
        this.#delay(e, this.#clock.now() + after);
      } else {
        this.#makeReady(e);
        this.#dispatch();
      }
      return;
    }
    if (priority > e.priority) this.#raise(e, priority);
    if (e.state !== EntryState.Delayed) return;
    if (after <= 0) {
      this.#makeReady(e);
      this.#delayed.remove(e);
      this.#dispatch();
      this.#armTimer();
    } else {
      const deadline = this.#clock.now() + after;
      if (deadline < e.deadline) {
        e.deadline = deadline;
        this.#delayed.moveEarlier(e);
        this.#armTimer();
      }
    }
  }

  addAfter(key: K, ms: number): void {
    this.add(key, { after: ms });
  }

  addRateLimited(key: K): void {
    this.add(key, { rateLimited: true });
  }

  forget(key: K): void {
    this.#rateLimiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#rateLimiter.numRequeues(key);
  }

  get(options?: { signal?: AbortSignal }): Promise<GetResult<K>> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.tryGet();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<GetResult<K>>((resolve, reject) => {
      const w = new Waiter<K>(resolve, reject);
      if (signal !== undefined) {
        w.signal = signal;
        w.onAbort = () => {
          this.#unlinkWaiter(w);
          reject(signal.reason);
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      w.prev = this.#waitersTail;
      if (this.#waitersTail === null) this.#waitersHead = w;
      else this.#waitersTail.next = w;
      this.#waitersTail = w;
    });
  }

  tryGet(): GetResult<K> | undefined {
    // A late timer must not hold back a key whose deadline has passed; keys it frees go to earlier
    // waiters first, so that callers are served in order.
    if (this.#delayed.size > 0 && this.#promoteDue()) {
      this.#armTimer();
      this.#dispatch();
    }
    const e = this.#ready.shift(this.#now);
    if (e !== undefined) return this.#handOut(e);
    return this.#shuttingDown ? shutdownResult : undefined;
  }

  done(key: K): void {
    const e = this.#entries.get(key);
    if (e === undefined || !e.processing) return;
    e.processing = false;
    if (e.procPrev === null) this.#procHead = e.procNext;
    else e.procPrev.procNext = e.procNext;
    if (e.procNext !== null) e.procNext.procPrev = e.procPrev;
    e.procPrev = e.procNext = null;
    this.#processing--;
    if (this.#metrics !== undefined) {
      this.#metrics.workDuration.observe((this.#clock.now() - e.processingSince) / 1000);
    }
    if (e.state === EntryState.None) {
      this.#entries.delete(key);
      if (this.#pool.length < poolSize) this.#pool.push(e);
    } else if (e.state === EntryState.Parked) {
      this.#parked--;
      this.#ready.push(e, this.#aging ? this.#clock.now() : 0);
      this.#dispatch();
    }
    if (this.#processing === 0) this.#releaseDrainers();
  }

  len(): number {
    return this.#ready.size + this.#parked;
  }

  shutDown(): void {
    this.#stop();
    this.#releaseDrainers();
  }

  shutDownWithDrain(): Promise<void> {
    this.#stop();
    if (this.#processing === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.#drainers.push(resolve));
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  #stop(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    // Delayed keys are dropped, as client-go's delaying queue stops its loop; ready and parked
    // keys stay so that workers still running can finish them.
    for (const e of this.#delayed.clear()) {
      e.state = EntryState.None;
      if (!e.processing) this.#entries.delete(e.key);
    }
    this.#armTimer();
    // Waiters exist only while nothing is ready, so all of them are told to stop.
    for (let w = this.#waitersHead; w !== null; w = this.#waitersHead) {
      this.#unlinkWaiter(w);
      w.resolve(shutdownResult);
    }
  }

  #releaseDrainers(): void {
    if (this.#drainers.length === 0) return;
    const drainers = this.#drainers;
    this.#drainers = [];
    for (const resolve of drainers) resolve();
  }

  /** A new or delayed entry becomes ready: into the ready set, or parked while its key is processing. */
  #makeReady(e: Entry<K>): void {
    const now = this.#timed || this.#aging ? this.#clock.now() : 0;
    e.readySince = now;
    if (this.#metrics !== undefined) {
      this.#metrics.adds.inc();
      this.#metrics.depth.inc(e.priority);
    }
    if (e.processing) {
      e.state = EntryState.Parked;
      this.#parked++;
    } else {
      this.#ready.push(e, now);
    }
  }

  #raise(e: Entry<K>, priority: number): void {
    if (e.state !== EntryState.Delayed && this.#metrics !== undefined) {
      this.#metrics.depth.dec(e.priority);
      this.#metrics.depth.inc(priority);
    }
    if (e.state === EntryState.Ready)
      this.#ready.reprioritize(e, priority, this.#aging ? this.#clock.now() : 0);
    else e.priority = priority;
  }

  #handOut(e: Entry<K>): GetResult<K> {
    e.state = EntryState.None;
    e.processing = true;
    e.procNext = this.#procHead;
    if (this.#procHead !== null) this.#procHead.procPrev = e;
    this.#procHead = e;
    this.#processing++;
    if (this.#metrics !== undefined) {
      const now = this.#clock.now();
      e.processingSince = now;
      this.#metrics.depth.dec(e.priority);
      this.#metrics.latency.observe((now - e.readySince) / 1000);
    }
    return { shutdown: false, key: e.key, priority: e.priority };
  }

  /** Serves waiting `get`s, in call order, while keys are ready. */
  #dispatch(): void {
    while (this.#waitersHead !== null && this.#ready.size > 0) {
      const w = this.#waitersHead;
      this.#unlinkWaiter(w);
      w.resolve(this.#handOut(this.#ready.shift(this.#now)!));
    }
  }

  #unlinkWaiter(w: Waiter<K>): void {
    if (w.prev === null) this.#waitersHead = w.next;
    else w.prev.next = w.next;
    if (w.next === null) this.#waitersTail = w.prev;
    else w.next.prev = w.prev;
    w.prev = w.next = null;
    if (w.onAbort !== undefined) {
      w.signal!.removeEventListener("abort", w.onAbort);
      w.onAbort = undefined;
    }
  }

  #delay(e: Entry<K>, deadline: number): void {
    e.state = EntryState.Delayed;
    e.deadline = deadline;
    this.#delayed.push(e);
    this.#armTimer();
  }

  /** Moves every delayed entry whose deadline has passed into the ready set; true if any moved. */
  #promoteDue(): boolean {
    const delayed = this.#delayed;
    const now = this.#clock.now();
    if (delayed.peekDeadline() > now) return false;
    do {
      this.#makeReady(delayed.pop()!);
    } while (delayed.peekDeadline() <= now);
    return true;
  }

  /** Keeps exactly one timer, set for the earliest deadline; none when nothing is delayed. */
  #armTimer(): void {
    const next = this.#delayed.peekDeadline();
    if (this.#timer !== undefined) {
      if (next !== Number.POSITIVE_INFINITY && this.#timerDeadline <= next) return;
      this.#clock.clearTimer(this.#timer);
      this.#timer = undefined;
    }
    if (next === Number.POSITIVE_INFINITY) return;
    this.#timerDeadline = next;
    this.#timer = this.#clock.setTimer(this.#onTimer, next - this.#clock.now());
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#promoteDue();
    this.#armTimer();
    this.#dispatch();
  };
}
