// Reconciler: the user's logic. It is called with a request and a context carrying the signal
// (aborted on shutdown or on the reconciliation timeout), a logger with controller-runtime's keys
// and the reconcile ID; it resolves a Result (or nothing) or throws to be retried with backoff.
import type { Logger } from "../log/index.js";
import type { Request } from "./request.js";
import type { Result } from "./result.js";

/** What a reconciler gets besides the request. */
export interface ReconcileContext {
  /**
   * Aborted when the controller stops, or when `reconciliationTimeoutMs` passes: stop early, as
   * further writes are wasted (the reconcile runs again after a restart).
   */
  readonly signal: AbortSignal;
  /**
   * Carries `controller`, `controllerGroup`, `controllerKind`, `namespace`, `name` (and the kind's
   * lower-case name, `{ name, namespace }`) and `reconcileID`.
   */
  readonly logger: Logger;
  /** A new UUID for every reconcile, in the logger too, to follow one reconcile through the logs. */
  readonly reconcileID: string;
}

/**
 * Drives the world towards the state the request's object asks for. Called for one request at a
 * time per key (never twice at once for the same key), possibly for objects that no longer exist.
 * Throw to be retried with exponential backoff (any result is then ignored); throw a
 * `TerminalError` to fail without a retry.
 */
export interface Reconciler<Req = Request> {
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async reconcile() {}` (Promise<void>) implement it
  reconcile(req: Req, ctx: ReconcileContext): Promise<Result | void>;
}

/** A reconciler from a function (controller-runtime's `reconcile.Func`). */
export function reconcilerFn<Req = Request>(
  // biome-ignore lint/suspicious/noConfusingVoidType: a function with no return value is a valid reconcile
  fn: (req: Req, ctx: ReconcileContext) => Promise<Result | void> | Result | void,
): Reconciler<Req> {
  return { reconcile: async (req, ctx) => fn(req, ctx) };
}
