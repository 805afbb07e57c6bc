/** @module controller-runtime/reconcile */
// reconcile: the contract between a controller and the user's logic: `Request` (an object's key),
// `Result` (requeue after a delay), `Reconciler` and `TerminalError` (fail without retrying).
export type { Request, RequestCodec } from "./request.js";
export { requestCodec, requestFromKey, requestKey, requestOf } from "./request.js";
export type { Result } from "./result.js";
export { isZeroResult } from "./result.js";
export type { ReconcileContext, Reconciler } from "./reconciler.js";
export { reconcilerFn } from "./reconciler.js";
export { TerminalError, isTerminalError, terminalError } from "./terminal-error.js";
export type { ObjectGetter, ObjectReconciler } from "./object-reconciler.js";
export { asReconciler } from "./object-reconciler.js";
