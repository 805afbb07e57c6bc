// Waiters on a condition of an informer (synced; caught up with a write), checked when the
// informer's state changes rather than polled. Internal to the cache folder.

interface Waiter {
  until: () => boolean;
  done: (result: boolean) => void;
}

export class ConditionWaiters {
  readonly #waiters = new Set<Waiter>();

  /**
   * Resolves true once `until()` holds (checked now and at each `check()`), false at `endAll()`
   * or when `signal` aborts first.
   */
  wait(until: () => boolean, signal?: AbortSignal): Promise<boolean> {
    if (until()) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        until,
        done: (result) => {
          this.#waiters.delete(waiter);
          signal?.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      const onAbort = () => waiter.done(false);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Resolves every waiter whose condition now holds. */
  check(): void {
    if (this.#waiters.size === 0) return;
    for (const w of [...this.#waiters]) if (w.until()) w.done(true);
  }

  /** Resolves every waiter with `result`. */
  endAll(result: boolean): void {
    for (const w of [...this.#waiters]) w.done(result);
  }
}
