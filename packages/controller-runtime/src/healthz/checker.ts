// Health checks: a Checker throws (or rejects) when unhealthy. Checks run concurrently on each
// probe, each bounded by a timeout whose signal the check receives.
import type { IncomingMessage } from "node:http";

/**
 * One health check. Return (or resolve) when healthy; throw (or reject) with the reason when not.
 * `signal` aborts when the probe's check timeout passes: stop waiting then.
 */
export type Checker = (req: IncomingMessage, signal: AbortSignal) => void | Promise<void>;

/** Always healthy: the liveness check of a process that answers HTTP at all. */
export const ping: Checker = () => {};

/** A check did not finish within the probe server's check timeout. */
export class CheckTimeoutError extends Error {
  override readonly name = "CheckTimeoutError";
  readonly code = "ERR_HEALTH_CHECK_TIMEOUT";
  constructor(timeoutMs: number) {
    super(`check did not finish within ${timeoutMs}ms`);
  }
}

/**
 * Healthy once `synced` answers true: give it the cache's `waitForCacheSync` (which may wait,
 * and should stop when `signal` aborts) or a plain `hasSynced` test.
 */
export function cacheSyncedCheck(synced: (signal: AbortSignal) => boolean | Promise<boolean>): Checker {
  return async (_req, signal) => {
    if (!(await synced(signal))) throw new Error("the caches have not synced yet");
  };
}

/** Healthy once `started()` is true, e.g. the webhook server listening; `what` names it. */
export function startedCheck(what: string, started: () => boolean): Checker {
  return () => {
    if (!started()) throw new Error(`the ${what} has not started yet`);
  };
}

/** Runs `check` with a timeout; resolves with the failure (never rejects), undefined if healthy. */
export function runCheck(check: Checker, req: IncomingMessage, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve) => {
    const ac = new AbortController();
    const timer = setTimeout(() => {
      const err = new CheckTimeoutError(timeoutMs);
      ac.abort(err);
      resolve(err);
    }, timeoutMs);
    // A later resolve() is a no-op, so whichever of the check and the timer comes first wins.
    const finish = (failure: unknown) => {
      clearTimeout(timer);
      resolve(failure);
    };
    const failed = (err: unknown) => finish(err ?? new Error("check failed"));
    try {
      Promise.resolve(check(req, ac.signal)).then(() => finish(undefined), failed);
    } catch (err) {
      failed(err);
    }
  });
}
