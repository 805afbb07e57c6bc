// enqueueRequestsFromMapFunc: the handler for anything else: a function maps an object (or no
// object, for a generic event from a ticker) to the requests to queue.
import type { DeepReadonly, KubeObject } from "../api/index.js";
import type { Request } from "../reconcile/index.js";
import {
  createPriority,
  type EventHandler,
  type HandlerContext,
  type RequestQueue,
  updatePriority,
} from "./event-handler.js";

/**
 * Maps an object to the requests to queue. `obj` is undefined for a generic event that carries no
 * object. It may be async (listing from the cache, say); `ctx.signal` aborts when the source stops.
 */
export type MapFunc<T extends KubeObject = KubeObject, Req = Request> = (
  obj: DeepReadonly<T> | undefined,
  ctx: HandlerContext,
) => readonly Req[] | Promise<readonly Req[]>;

/**
 * Queues the requests `fn` returns for each event's object; for an update, for both the old and
 * the new object. A generic event without an object calls `fn(undefined, ctx)`.
 */
export function enqueueRequestsFromMapFunc<T extends KubeObject = KubeObject, Req = Request>(
  fn: MapFunc<T, Req>,
): EventHandler<T, Req> {
  const enqueue = async (
    obj: DeepReadonly<T> | undefined,
    q: RequestQueue<Req>,
    ctx: HandlerContext,
    priority?: number,
  ) => {
    for (const req of await fn(obj, ctx)) q.add(req, { priority });
  };
  return {
    create: (e, q, ctx) => enqueue(e.object, q, ctx, createPriority(e)),
    async update(e, q, ctx) {
      const priority = updatePriority(e);
      await enqueue(e.objectOld, q, ctx, priority);
      await enqueue(e.objectNew, q, ctx, priority);
    },
    delete: (e, q, ctx) => enqueue(e.object, q, ctx),
    generic: (e, q, ctx) => enqueue(e.object, q, ctx),
  };
}
