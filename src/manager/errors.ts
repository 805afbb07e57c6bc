// Errors of the Manager.

/** Shutdown did not finish within `gracefulShutdownTimeout`. */
export class ShutdownTimeoutError extends Error {
  override readonly name = "ShutdownTimeoutError";
  readonly code = "ERR_MANAGER_SHUTDOWN_TIMEOUT";
}

/** The manager was used in a way its state does not allow (started twice). */
export class ManagerStateError extends Error {
  override readonly name = "ManagerStateError";
  readonly code = "ERR_MANAGER_STATE";
}
