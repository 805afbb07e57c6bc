/** @module controller-runtime/manager */
// manager: the Manager, its runnables and their start order, graceful shutdown, and signals.
export type {
  ConditionalBuilder,
  ConditionalControllerStatus,
  ConditionalOptions,
} from "./conditional-controller.js";
export { ManagerStateError, ShutdownTimeoutError } from "./errors.js";
export type { StuckReconcile } from "./errors.js";
export { Manager } from "./manager.js";
export type { ClientOptions, ManagerOptions, MetricsOptions } from "./options.js";
export { ManagerOptionsError } from "./options.js";
export type { Runnable, RunnableFuncOptions } from "./runnable.js";
export { runnableFunc } from "./runnable.js";
export type { SignalHandlerOptions } from "./signals.js";
export { setupSignalHandler } from "./signals.js";
