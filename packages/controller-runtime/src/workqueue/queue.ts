// The implementation of PriorityQueue (the contract and its documentation are in
// priority-queue.ts). Each key has one record (entry.ts) while it is queued or processing.
// Queued, it is in at most one of: delayed (deadline heap) → ready (ReadySet) → handed out by
// get (processing) → done. A key added while it is processing waits "parked" until `done`, so the
// change is never lost and the key is never processed twice at once. JavaScript runs one callback
// at a time, so the bookkeeping needs no locks: every method finishes its update before returning.
import { type Clock, realClock, type TimerHandle } from "./clock.js";
import { DeadlineHeap } from "./deadline-heap.js";
import { Entry, EntryState } from "./entry.js";
import { KeyTable } from "./key-table.js";
import { bindQueueMetrics, type QueueMetrics } from "./metrics.js";
import type { AddOptions, GetResult, PriorityQueue, PriorityQueueOptions } from "./priority-queue.js";
import { defaultControllerRateLimiter, type RateLimiter } from "./rate-limiter.js";
import { ReadySet } from "./ready-set.js";
import { WaiterList } from "./waiters.js";

const shutdownResult = Object.freeze({ shutdown: true as const });

// Records of keys done and not queued again are kept for reuse, up to this many: with a long
// queue, fresh records would live long enough to be promoted and cost a full GC each.
const poolSize = 1024;

export class Queue<K extends string> implements PriorityQueue<K> {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter<K>;
  readonly #metrics: QueueMetrics | undefined;
  /** Whether metrics need times; with neither metrics nor aging the hot path reads no clock. */
  readonly #timed: boolean;
  /** Whether aging is on: then keys are stamped with the time they become ready. */
  readonly #aging: boolean;
  readonly #now: () => number;
  /** The record of every key queued or processing. */
  readonly #entries = new KeyTable<K, Entry<K>>();
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
  readonly #waiters = new WaiterList<GetResult<K>>();
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
    // The plain add (every event handler's) in a few bytes of its own, the options apart: V8
    // optimizes a function after a number of calls that grows with its size, and this one runs
    // for every event from the first.
    if (options !== undefined) {
      this.#addWith(key, options);
      return;
    }
    if (this.#shuttingDown) return;
    const e = this.#entryOf(key);
    if (e.state === EntryState.None) this.#queueNew(e, 0);
    else this.#queueAgain(e, 0, 0);
  }

  #addWith(key: K, options: AddOptions): void {
    if (this.#shuttingDown) return;
    let priority = 0;
    let after = 0;
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
    if (after > 0) this.#metrics?.retries.inc();
    const e = this.#entryOf(key);
    if (e.state === EntryState.None) {
      // Not queued (new, or only processing): queue it as given.
      if (after > 0) {
        e.priority = priority;
        e.seq = this.#seq++;
        this.#delay(e, this.#clock.now() + after);
      } else this.#queueNew(e, priority);
      return;
    }
    this.#queueAgain(e, priority, after);
  }

  /** The record of `key`, made (or taken from the pool) if it has none. */
  #entryOf(key: K): Entry<K> {
    const entries = this.#entries;
    const h = entries.hash(key);
    return entries.get(key, h) ?? this.#newEntry(key, h);
  }

  #newEntry(key: K, h: number): Entry<K> {
    const e = this.#pool.pop() ?? new Entry<K>(key);
    e.key = key;
    this.#entries.insert(e, h);
    return e;
  }

  /** Queues a key not queued (new, or only processing) at `priority`, ready now. */
  #queueNew(e: Entry<K>, priority: number): void {
    e.priority = priority;
    e.seq = this.#seq++;
    this.#makeReady(e);
    this.#dispatch();
  }

  /** An add of a key already queued (ready, delayed or parked): a higher priority, an earlier time. */
  #queueAgain(e: Entry<K>, priority: number, after: number): void {
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
    const item = this.tryGet();
    return item !== undefined ? Promise.resolve(item) : this.#waiters.wait(signal);
  }

  tryGet(): GetResult<K> | undefined {
    if (this.#delayed.size > 0) this.#serveDue();
    const e = this.#ready.shift(this.#now);
    if (e !== undefined) return this.#handOut(e);
    return this.#shuttingDown ? shutdownResult : undefined;
  }

  /**
   * A late timer must not hold back a key whose deadline has passed; keys it frees go to earlier
   * waiters first, so that callers are served in order.
   */
  #serveDue(): void {
    if (!this.#promoteDue()) return;
    this.#armTimer();
    this.#dispatch();
  }

  done(key: K): void {
    const e = this.#processingEntry(key);
    if (e === undefined) return;
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
      this.#entries.delete(e);
      if (this.#pool.length < poolSize) this.#pool.push(e);
    } else if (e.state === EntryState.Parked) {
      this.#parked--;
      this.#ready.push(e, this.#aging ? this.#clock.now() : 0);
      this.#dispatch();
    }
    if (this.#processing === 0) this.#releaseDrainers();
  }

  /** The record of `key` if it is being processed. A few workers: their list is shorter than a lookup. */
  #processingEntry(key: K): Entry<K> | undefined {
    if (this.#processing > 8) return this.#processingEntryOf(key);
    for (let e = this.#procHead; e !== null; e = e.procNext) if (e.key === key) return e;
    return undefined;
  }

  #processingEntryOf(key: K): Entry<K> | undefined {
    const e = this.#entries.get(key, this.#entries.hash(key));
    return e?.processing ? e : undefined;
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
      if (!e.processing) this.#entries.delete(e);
    }
    this.#armTimer();
    // Waiters exist only while nothing is ready, so all of them are told to stop.
    for (let resolve = this.#waiters.shift(); resolve !== undefined; resolve = this.#waiters.shift()) {
      resolve(shutdownResult);
    }
    this.#waiters.close();
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
    const ready = this.#ready;
    while (ready.size > 0) {
      const resolve = this.#waiters.shift();
      if (resolve === undefined) return;
      resolve(this.#handOut(ready.shift(this.#now)!));
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

/** Creates a work queue. No timer runs until a delayed key is added. */
export function newPriorityQueue<K extends string = string>(
  options: PriorityQueueOptions<K> = {},
): PriorityQueue<K> {
  return new Queue<K>(options);
}
