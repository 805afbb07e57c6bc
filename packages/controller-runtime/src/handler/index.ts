/** @module controller-runtime/handler */
// handler: maps events to requests on the controller's queue: the object itself
// (`enqueueRequestForObject`), its owners (`enqueueRequestForOwner`), or anything a function
// returns (`enqueueRequestsFromMapFunc`). Creates from the initial list and resyncs go in at
// `LowPriority`, as controller-runtime ≥ 0.23 does.
export type {
  EventHandler,
  HandlerContext,
  HandlerFuncs,
  QueueAddOptions,
  RequestQueue,
} from "./event-handler.js";
export { createPriority, funcs, updatePriority, withLowPriorityWhenUnchanged } from "./event-handler.js";
export { enqueueRequestForObject } from "./enqueue-object.js";
export type { EnqueueRequestForOwnerOptions } from "./enqueue-owner.js";
export { enqueueRequestForOwner } from "./enqueue-owner.js";
export type { MapFunc } from "./enqueue-mapped.js";
export { enqueueRequestsFromMapFunc } from "./enqueue-mapped.js";
export { LowPriority } from "../workqueue/index.js";
