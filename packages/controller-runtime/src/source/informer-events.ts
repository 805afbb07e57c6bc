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
  const run = (
    what: EventName,
    pass: () => boolean,
    call: () => void | Promise<void>,
  ): void | Promise<void> => {
    if (ctx.signal.aborted) return;
    try {
      if (!pass()) return;
    } catch (err) {
      ctx.logger.error(err, `predicate failed on a ${what} event; the event is dropped`);
      return;
    }
    return call();
  };
  return {
    onAdd(object, isInInitialList) {
      const e = { object, isInInitialList };
      return run(
        "create",
        () => predicates.every((p) => p.create(e)),
        () => handler.create(e, queue, ctx),
      );
    },
    onUpdate(objectOld, objectNew) {
      const e = { objectOld, objectNew };
      return run(
        "update",
        () => predicates.every((p) => p.update(e)),
        () => handler.update(e, queue, ctx),
      );
    },
    onDelete(obj) {
      const unknown = obj instanceof DeletedFinalStateUnknown;
      const e = { object: unknown ? obj.obj : (obj as DeepReadonly<T>), deleteStateUnknown: unknown };
      return run(
        "delete",
        () => predicates.every((p) => p.delete(e)),
        () => handler.delete(e, queue, ctx),
      );
    },
  };
}
