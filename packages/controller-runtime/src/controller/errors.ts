// Errors of the controller, in one place: each a class with a stable `code` and `name`, and a
// message that says what to do.

/** `start` was called a second time. */
export class ControllerStartedTwiceError extends Error {
  override readonly name = "ControllerStartedTwiceError";
  readonly code = "ERR_CONTROLLER_STARTED_TWICE";
  constructor(controller: string) {
    super(
      `controller ${JSON.stringify(controller)} was started more than once; this is likely caused by ` +
        "adding it to a manager more than once",
    );
  }
}

/** A controller name that is empty, or already taken in this manager. */
export class InvalidControllerNameError extends Error {
  override readonly name = "InvalidControllerNameError";
  readonly code = "ERR_INVALID_CONTROLLER_NAME";
}

/** Invalid controller options (a negative worker count, say). */
export class InvalidControllerOptionsError extends Error {
  override readonly name = "InvalidControllerOptionsError";
  readonly code = "ERR_INVALID_CONTROLLER_OPTIONS";
}

/** A source's `start` did not resolve within `cacheSyncTimeoutMs`. */
export class SourceStartTimeoutError extends Error {
  override readonly name = "SourceStartTimeoutError";
  readonly code = "ERR_SOURCE_START_TIMEOUT";
  constructor(source: string, ms: number) {
    super(
      `timed out after ${ms} ms waiting for ${source} to start; make sure its start() resolves as ` +
        "soon as the source runs (long work goes in the background, stopped by the signal)",
    );
  }
}

/** A source did not sync (its `waitForSync` failed) within `cacheSyncTimeoutMs`. */
export class SourceSyncError extends Error {
  override readonly name = "SourceSyncError";
  readonly code = "ERR_SOURCE_SYNC";
  constructor(controller: string, source: string, cause: unknown) {
    super(
      `failed to wait for ${controller} caches to sync ${source}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

/**
 * A reconciler threw something that is not an ordinary failure (a value that is not an Error, or
 * a TypeError / ReferenceError: a bug), which the controller recovered from, as Go recovers a panic.
 */
export class ReconcilePanicError extends Error {
  override readonly name = "ReconcilePanicError";
  readonly code = "ERR_RECONCILE_PANIC";
  constructor(value: unknown) {
    super(
      `panic: ${value instanceof Error ? `${value.name}: ${value.message}` : String(value)} [recovered]`,
      {
        cause: value,
      },
    );
  }
}

/** The abort reason of a reconcile's signal when `reconciliationTimeoutMs` passed. */
export class ReconciliationTimeoutError extends Error {
  override readonly name = "ReconciliationTimeoutError";
  readonly code = "ERR_RECONCILIATION_TIMEOUT";
  constructor(ms: number) {
    super(`reconciliation timeout: the reconcile ran longer than reconciliationTimeoutMs (${ms} ms)`);
  }
}

/**
 * True for throws that Go code would have as a panic rather than an error: a value that is not an
 * Error, or the errors the JavaScript runtime raises for bugs (TypeError: reading a property of
 * undefined; ReferenceError).
 */
export function isPanic(thrown: unknown): boolean {
  return !(thrown instanceof Error) || thrown instanceof TypeError || thrown instanceof ReferenceError;
}
