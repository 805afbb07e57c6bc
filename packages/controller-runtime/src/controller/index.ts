/** @module controller-runtime/controller */
// controller: sources → work queue → workers → reconciler, with controller-runtime's start order,
// result handling (backoff on errors, requeueAfter, terminal errors), panic recovery, timeouts,
// graceful shutdown, logs and metrics.
export type { Controller, InFlightReconcile } from "./controller.js";
export { newController, newUnmanagedController } from "./controller.js";
export type { ControllerContext, ControllerRunnable, NewControllerContextOptions } from "./context.js";
export { newControllerContext } from "./context.js";
export type { ControllerDefaults } from "./context.js";
export type { ControllerOptions } from "./options.js";
export type { LogConstructor, LogConstructorOptions } from "./log-constructor.js";
export { newLogConstructor } from "./log-constructor.js";
export {
  ControllerStartedTwiceError,
  InvalidControllerNameError,
  InvalidControllerOptionsError,
  ReconcilePanicError,
  ReconciliationTimeoutError,
  SourceStartTimeoutError,
  SourceSyncError,
} from "./errors.js";
