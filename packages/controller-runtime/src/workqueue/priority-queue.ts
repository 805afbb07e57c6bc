// The work queue of a controller: keys only, de-duplicated, never handed to two workers at once,
// with delays, rate-limited retries and priorities. One type serves every use, as controller-runtime
// (≥ 0.23) defaults to its priority queue: with every key at the default priority it behaves as
// client-go's rate-limiting queue.
//
// This file is the contract; the implementation is queue.ts.
import type { Clock } from "./clock.js";
import type { WorkqueueMetricsProvider } from "./metrics.js";
import type { RateLimiter } from "./rate-limiter.js";

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
   *
   * The bound, under any load: a key that becomes ready while `n` keys are ready is handed out
   * within `agingThreshold + 2 (n + 1)` hand-outs' time, that is within
   * `agingThreshold + 2 (n + 1) × mean service time / workers`. Once it has waited the threshold,
   * at least every other hand-out goes to a key that has waited as long as it or longer, and at
   * most `n` such keys are ahead of it. (Raising a key's priority restarts its wait.)
   */
  agingThreshold?: number;
}
