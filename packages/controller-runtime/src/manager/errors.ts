// Errors of the Manager.

/** A reconcile that was still running when shutdown gave up. */
export interface StuckReconcile {
  controller: string;
  /** The request's key, `namespace/name` for the default codec. */
  request: string;
  reconcileID: string;
  runningMs: number;
}

/** Shutdown did not finish within `gracefulShutdownTimeoutMs`; names the reconciles still running. */
export class ShutdownTimeoutError extends Error {
  override readonly name = "ShutdownTimeoutError";
  readonly code = "ERR_MANAGER_SHUTDOWN_TIMEOUT";
  readonly stuck: StuckReconcile[];
  constructor(timeoutMs: number, stuck: StuckReconcile[] = []) {
    const named = stuck
      .slice(0, 10)
      .map(
        (r) =>
          `controller "${r.controller}" reconciling ${r.request} (reconcileID ${r.reconcileID}, running for ${(r.runningMs / 1000).toFixed(1)} s)`,
      );
    if (stuck.length > 10) named.push(`${stuck.length - 10} more`);
    super(
      `manager: runnables did not stop within the graceful shutdown timeout of ${timeoutMs} ms` +
        (named.length
          ? `; still running: ${named.join(", ")}. Make the reconciler honour ctx.signal (pass it to every call that can wait)`
          : "; a runnable did not return after its signal aborted"),
    );
    this.stuck = stuck;
  }
}

/** The manager was used in a way its state does not allow (started twice). */
export class ManagerStateError extends Error {
  override readonly name = "ManagerStateError";
  readonly code = "ERR_MANAGER_STATE";
}
