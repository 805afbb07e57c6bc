// The informer source: events from an informer the caller already holds (controller-runtime's
// `source.Informer`). The kind source is the same thing with the informer looked up in the cache.
import type { KubeObject } from "../api/index.js";
import type { HandlerRegistration, ResourceEventHandler } from "../cache/index.js";
import type { EventHandler } from "../handler/index.js";
import { nullLogger } from "../log/index.js";
import type { Predicate } from "../predicate/index.js";
import type { Request } from "../reconcile/index.js";
import { InformerSyncError } from "./errors.js";
import { informerEventHandler } from "./informer-events.js";
import { handlerContext, isTimeoutReason, type Source } from "./source.js";

/** What a source needs of an informer (the cache's `Informer` has it). */
export interface SourceInformer<T extends KubeObject = KubeObject> {
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration;
  /** Resolves true once synced, false when the informer stops or the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
}

/**
 * A source of the changes seen by `informer`, filtered by `predicates` and mapped by `handler`.
 * The handler is removed from the informer when the source's signal aborts.
 */
export function informer<T extends KubeObject, Req = Request>(
  inf: SourceInformer<T>,
  handler: EventHandler<T, Req>,
  ...predicates: Predicate<T>[]
): Source<Req> {
  let registration: HandlerRegistration | undefined;
  return {
    async start(signal, queue, options) {
      if (registration !== undefined) throw new Error("informer source: start was called twice");
      const ctx = handlerContext(signal, options?.logger ?? nullLogger());
      const reg = inf.addEventHandler(informerEventHandler(handler, predicates, queue, ctx));
      registration = reg;
      signal.addEventListener("abort", () => reg.remove(), { once: true });
    },
    async waitForSync(signal) {
      if (registration === undefined) throw new Error("informer source: waitForSync before start");
      if (await inf.waitForSync(signal)) return;
      if (!signal.aborted)
        throw new InformerSyncError("informer source: the informer stopped before it synced");
      if (isTimeoutReason(signal.reason)) {
        throw new InformerSyncError("informer source: timed out waiting for the informer to sync");
      }
    },
    toString: () => "informer source",
  };
}
