// eventually(): polls a condition until it holds, for tests of controllers, whose effects arrive
// asynchronously (Gomega's Eventually in controller-runtime's tests).

export interface EventuallyOptions {
  /** Default: 10 000 ms. */
  timeoutMs?: number;
  /** Time between polls. Default: 10 ms. */
  intervalMs?: number;
  /** Cancels the wait. Default: none. */
  signal?: AbortSignal;
}

/** Thrown when the condition did not hold in time; carries the last error the condition threw. */
export class EventuallyTimeoutError extends Error {
  override readonly name = "EventuallyTimeoutError";
  readonly code = "ERR_ENVTEST_EVENTUALLY";
}

/**
 * Resolves with the first truthy value `condition` returns (a throw counts as "not yet"), or
 * rejects after `timeoutMs` with an error naming `what`.
 */
export async function eventually<T>(
  what: string,
  condition: () => T | Promise<T>,
  opts: EventuallyOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  const interval = opts.intervalMs ?? 10;
  let lastError: unknown;
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      const value = await condition();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `: last error: ${lastError.message}` : "";
      throw new EventuallyTimeoutError(`timed out waiting for ${what}${why}`, { cause: lastError });
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
