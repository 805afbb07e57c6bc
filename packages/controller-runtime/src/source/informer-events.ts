// The bridge from an informer's callbacks to events: each callback becomes an event, the
// predicates filter it, and the handler maps it to requests. A failing predicate drops its event
// (logged here); a handler's failure, thrown or rejected, is the informer's to log, as it is for
// every handler its loop serves.
import type { DeepReadonly, KubeObject } from "../api/index.js";
import { DeletedFinalStateUnknown, type ResourceEventHandler } from "../cache/index.js";
import type { EventHandler, HandlerContext, RequestQueue } from "../handler/index.js";
import type { Predicate } from "../predicate/index.js";

type EventName = "create" | "update" | "delete";

/** Informer callbacks that pass each change through `predicates` to `handler`. */
export function informerEventHandler<T extends KubeObject, Req>(
  handler: EventHandler<T, Req>,
  predicates: readonly Predicate<T>[],
  queue: RequestQueue<Req>,
  ctx: HandlerContext,
): ResourceEventHandler<T> {
  // No closure per event: these run for every change the informer sees.
  const dropped = (what: EventName, err: unknown): void =>
    ctx.logger.error(err, `predicate failed on a ${what} event; the event is dropped`);
  return {
    onAdd(object, isInInitialList) {
      if (ctx.signal.aborted) return;
      const e = { object, isInInitialList };
      try {
        for (let i = 0; i < predicates.length; i++) if (!predicates[i]!.create(e)) return;
      } catch (err) {
        return dropped("create", err);
      }
      return handler.create(e, queue, ctx);
    },
    onUpdate(objectOld, objectNew) {
      if (ctx.signal.aborted) return;
      const e = { objectOld, objectNew };
      try {
        for (let i = 0; i < predicates.length; i++) if (!predicates[i]!.update(e)) return;
      } catch (err) {
        return dropped("update", err);
      }
      return handler.update(e, queue, ctx);
    },
    onDelete(obj) {
      if (ctx.signal.aborted) return;
      const unknown = obj instanceof DeletedFinalStateUnknown;
      const e = { object: unknown ? obj.obj : (obj as DeepReadonly<T>), deleteStateUnknown: unknown };
      try {
        for (let i = 0; i < predicates.length; i++) if (!predicates[i]!.delete(e)) return;
      } catch (err) {
        return dropped("delete", err);
      }
      return handler.delete(e, queue, ctx);
    },
  };
}
