// A work queue without priorities (client-go's rate-limiting queue): what a controller gets with
// `usePriorityQueue: false`, as controller-runtime before v0.23 or with UsePriorityQueue false.
// It is the priority queue with every key at priority 0 and aging off, so keys are handed out in
// the order they became ready; delays, rate limits, de-duplication and metrics are the same.
import type { AddOptions, GetResult, PriorityQueue, PriorityQueueOptions } from "./priority-queue.js";
import { newPriorityQueue } from "./queue.js";

/** A FIFO work queue with delays and rate-limited retries, ignoring the priority of every add. */
export function newRateLimitingQueue<K extends string = string>(
  options: Omit<PriorityQueueOptions<K>, "agingThreshold"> = {},
): PriorityQueue<K> {
  return new RateLimitingQueue(newPriorityQueue<K>({ ...options, agingThreshold: Infinity }));
}

class RateLimitingQueue<K extends string> implements PriorityQueue<K> {
  readonly #q: PriorityQueue<K>;

  constructor(q: PriorityQueue<K>) {
    this.#q = q;
  }

  add(key: K, options?: AddOptions): void {
    if (options?.priority === undefined) this.#q.add(key, options);
    else this.#q.add(key, { after: options.after, rateLimited: options.rateLimited });
  }
  addAfter(key: K, ms: number): void {
    this.#q.addAfter(key, ms);
  }
  addRateLimited(key: K): void {
    this.#q.addRateLimited(key);
  }
  forget(key: K): void {
    this.#q.forget(key);
  }
  numRequeues(key: K): number {
    return this.#q.numRequeues(key);
  }
  get(options?: { signal?: AbortSignal }): Promise<GetResult<K>> {
    return this.#q.get(options);
  }
  tryGet(): GetResult<K> | undefined {
    return this.#q.tryGet();
  }
  done(key: K): void {
    this.#q.done(key);
  }
  len(): number {
    return this.#q.len();
  }
  shutDown(): void {
    this.#q.shutDown();
  }
  shutDownWithDrain(): Promise<void> {
    return this.#q.shutDownWithDrain();
  }
  shuttingDown(): boolean {
    return this.#q.shuttingDown();
  }
}
