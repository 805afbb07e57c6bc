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
    // Options only when there is a priority to give: every event comes here, and an options
    // object each is one more allocation and the queue's slower path.
    create(e, q) {
      const priority = createPriority(e);
      if (priority === undefined) q.add(requestOf(e.object));
      else q.add(requestOf(e.object), { priority });
    },
    update(e, q) {
      const priority = updatePriority(e);
      if (priority === undefined) q.add(requestOf(e.objectNew));
      else q.add(requestOf(e.objectNew), { priority });
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
