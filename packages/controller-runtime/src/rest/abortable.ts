// Waits that end when a signal aborts. abortable(): waits for a promise that others share (an exec
// plugin run, a discovery read) until this caller's signal aborts, which ends this caller's wait
// only, not the shared work. sleep(): the one abortable delay of the library (backoffs, retries,
// the elector's periods on its clock).

/** What can call back after a delay: the event loop's timers, or a test's fake clock. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): { cancel(): void };
}

const eventLoop: Timers = {
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * Resolves after `ms` (on `timers`, the event loop's by default), or at once when `signal`
 * aborts. It never rejects: callers check `signal.aborted` after the wait.
 */
export function sleep(ms: number, signal?: AbortSignal, timers: Timers = eventLoop): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      timer.cancel();
      resolve();
    };
    const timer = timers.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Resolves or rejects as `promise`, or rejects with `signal.reason` once `signal` aborts. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}
