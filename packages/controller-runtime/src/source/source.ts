// Source: where a controller's events come from. A source is started once with the controller's
// queue; unlike a Runnable, `start` resolves as soon as the source runs (it keeps running in the
// background until the signal aborts), so that the controller can start all its sources before
// waiting for any of them to sync.
import type { HandlerContext, RequestQueue } from "../handler/index.js";
import type { Logger } from "../log/index.js";
import type { Request } from "../reconcile/index.js";

/** What a controller passes to {@link Source.start} besides the signal and the queue. */
export interface SourceStartOptions {
  /** Where handler and predicate failures are logged. Default: nullLogger(). */
  logger?: Logger;
}

/** Feeds requests into a controller's queue. */
export interface Source<Req = Request> {
  /**
   * Starts feeding `queue` until `signal` aborts. Resolves once started, not once stopped: it must
   * not wait for anything slow (the controller gives up after `cacheSyncTimeoutMs`). Rejects when the
   * source cannot start.
   */
  start(signal: AbortSignal, queue: RequestQueue<Req>, options?: SourceStartOptions): Promise<void>;
  /**
   * Resolves once the source has delivered its initial state (a kind source: its informer's first
   * list). Rejects when `signal` aborts with a timeout reason (`AbortSignal.timeout`) first, with an
   * error that says what was not synced; resolves when `signal` aborts for another reason
   * (shutdown). Sources without an initial state leave it out.
   */
  waitForSync?(signal: AbortSignal): Promise<void>;
  /** A short description for logs (`kind source: apps/v1, Kind=Deployment`). */
  toString(): string;
}

/** A handler context for one started source. */
export function handlerContext(signal: AbortSignal, logger: Logger): HandlerContext {
  return { signal, logger };
}

/** True when an abort `reason` says a deadline passed (rather than a shutdown). */
export function isTimeoutReason(reason: unknown): boolean {
  return (
    (reason instanceof DOMException || reason instanceof Error) &&
    (reason.name === "TimeoutError" || (reason as { code?: unknown }).code === "ETIMEDOUT")
  );
}
