// The bridge from an informer's callbacks to events: each callback becomes an event, the
// predicates filter it, and the handler maps it to requests. Failures are logged and never reach
// the informer, whose loop serves every other handler too.
import type { KubeObject } from "../api/index.js";
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
  const run = (what: EventName, pass: () => boolean, call: () => void | Promise<void>): void => {
    if (ctx.signal.aborted) return;
    try {
      if (!pass()) return;
    } catch (err) {
      ctx.logger.error(err, `predicate failed on a ${what} event; the event is dropped`);
      return;
    }
    try {
      const out = call();
      if (out instanceof Promise) {
        out.catch((err: unknown) => ctx.logger.error(err, `event handler failed on a ${what} event`));
      }
    } catch (err) {
      ctx.logger.error(err, `event handler failed on a ${what} event`);
    }
  };
  return {
    onAdd(object, isInInitialList) {
      const e = { object, isInInitialList };
      run(
        "create",
        () => predicates.every((p) => p.create(e)),
        () => handler.create(e, queue, ctx),
      );
    },
    onUpdate(objectOld, objectNew) {
      const e = { objectOld, objectNew };
      run(
        "update",
        () => predicates.every((p) => p.update(e)),
        () => handler.update(e, queue, ctx),
      );
    },
    onDelete(obj) {
      const unknown = obj instanceof DeletedFinalStateUnknown;
      const e = { object: unknown ? obj.obj : (obj as Readonly<T>), deleteStateUnknown: unknown };
      run(
        "delete",
        () => predicates.every((p) => p.delete(e)),
        () => handler.delete(e, queue, ctx),
      );
    },
  };
}
