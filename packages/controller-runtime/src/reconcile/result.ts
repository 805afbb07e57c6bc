// Result: what a reconciler asks of the controller once it is done.

/** What to do after a successful reconcile. An empty result (or none) means "done until the next change". */
export interface Result {
  /**
   * Reconcile the request again after this many milliseconds (the key's backoff is reset first).
   * Default: 0 (not again, unless something changes).
   */
  readonly requeueAfter?: number;
  /**
   * Priority of the request when it is queued again (by `requeueAfter`, `requeue` or an error).
   * Default: the priority the request had when it was handed out.
   */
  readonly priority?: number;
  /**
   * @deprecated As in controller-runtime: return `requeueAfter`, or throw to be retried with backoff.
   * Queues the request again through the rate limiter. Default: false.
   */
  readonly requeue?: boolean;
}

/** True when `r` asks for nothing (no requeue of either kind). */
export function isZeroResult(r: Result | undefined): boolean {
  return r === undefined || (!(r.requeueAfter !== undefined && r.requeueAfter > 0) && r.requeue !== true);
}
