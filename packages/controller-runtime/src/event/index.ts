/** @module controller-runtime/event */
// event: what sources tell predicates and handlers: creates, updates, deletes (from informers) and
// generic events (from channels and other outside sources).
export type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from "./events.js";
