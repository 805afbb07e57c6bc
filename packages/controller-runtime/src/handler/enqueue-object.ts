// enqueueRequestForObject: the handler of a controller's primary kind (`for()`): the request is
// the object's own key.
import type { KubeObject } from "../api/index.js";
import { type Request, requestOf } from "../reconcile/index.js";
import { createPriority, type EventHandler, updatePriority } from "./event-handler.js";

/**
 * Queues a request for the object of each event: its namespace and name. For an update, the new
 * object's key. A generic event without an object is logged as an error and dropped.
 */
export function enqueueRequestForObject<T extends KubeObject = KubeObject>(): EventHandler<T, Request> {
  return {
    create(e, q) {
      q.add(requestOf(e.object), { priority: createPriority(e) });
    },
    update(e, q) {
      q.add(requestOf(e.objectNew), { priority: updatePriority(e) });
    },
    delete(e, q) {
      q.add(requestOf(e.object));
    },
    generic(e, q, ctx) {
      if (e.object === undefined) {
        ctx.logger.error(
          new Error("GenericEvent received with no object"),
          "enqueueRequestForObject cannot map a generic event without an object; use enqueueRequestsFromMapFunc",
        );
        return;
      }
      q.add(requestOf(e.object));
    },
  };
}
