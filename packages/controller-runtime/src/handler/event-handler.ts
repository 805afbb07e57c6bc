// EventHandler: turns events into requests on the controller's queue. Handlers hold no state of
// their own: they add keys, and the queue merges duplicates.
import type { KubeObject } from "../api/index.js";
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from "../event/index.js";
import type { Logger } from "../log/index.js";
import type { Request } from "../reconcile/index.js";
import { LowPriority } from "../workqueue/index.js";

/** Options of {@link RequestQueue.add}. */
export interface QueueAddOptions {
  /** Higher is reconciled first; a request added again keeps its highest priority. Default: 0. */
  priority?: number;
  /** Milliseconds before the request is ready. Default: 0. */
  after?: number;
}

/** What a handler sees of the controller's work queue: it can only add requests. */
export interface RequestQueue<Req = Request> {
  add(req: Req, options?: QueueAddOptions): void;
}

/** What a source passes to a handler besides the event and the queue. */
export interface HandlerContext {
  /** Aborted when the source stops. */
  readonly signal: AbortSignal;
  /** The controller's logger, with `source` set. */
  readonly logger: Logger;
}

/**
 * Maps events to requests. A handler may be async (a map function listing objects, say). The
 * channel source awaits it before handing it the next event; informer-backed sources (`kind`,
 * `informer`) call it from the informer's loop and do not wait, so an async handler's work may
 * overlap the next events (a rejection is logged either way).
 */
export interface EventHandler<T extends KubeObject = KubeObject, Req = Request> {
  create(event: CreateEvent<T>, queue: RequestQueue<Req>, ctx: HandlerContext): void | Promise<void>;
  update(event: UpdateEvent<T>, queue: RequestQueue<Req>, ctx: HandlerContext): void | Promise<void>;
  delete(event: DeleteEvent<T>, queue: RequestQueue<Req>, ctx: HandlerContext): void | Promise<void>;
  generic(event: GenericEvent<T>, queue: RequestQueue<Req>, ctx: HandlerContext): void | Promise<void>;
}

/** The functions of {@link funcs}; each one left out ignores its events. */
export type HandlerFuncs<T extends KubeObject = KubeObject, Req = Request> = Partial<EventHandler<T, Req>>;

/**
 * A handler from functions; a missing one ignores its events (controller-runtime's `handler.Funcs`).
 * It adds at the priorities it is told; wrap it in {@link withLowPriorityWhenUnchanged} to queue the
 * initial list and resyncs at low priority as the built-in handlers do.
 */
export function funcs<T extends KubeObject = KubeObject, Req = Request>(
  f: HandlerFuncs<T, Req>,
): EventHandler<T, Req> {
  return {
    create: (e, q, ctx) => f.create?.(e, q, ctx),
    update: (e, q, ctx) => f.update?.(e, q, ctx),
    delete: (e, q, ctx) => f.delete?.(e, q, ctx),
    generic: (e, q, ctx) => f.generic?.(e, q, ctx),
  };
}

/** `LowPriority` for a create from the initial list, else undefined (the default priority). */
export function createPriority(e: CreateEvent<KubeObject>): number | undefined {
  return e.isInInitialList === true ? LowPriority : undefined;
}

/** `LowPriority` for an update that changed nothing (a resync: same resourceVersion), else undefined. */
export function updatePriority(e: UpdateEvent<KubeObject>): number | undefined {
  const rv = e.objectNew.metadata?.resourceVersion;
  return rv !== undefined && rv === e.objectOld.metadata?.resourceVersion ? LowPriority : undefined;
}

/**
 * Makes `handler` queue creates from the initial list and unchanged updates (resyncs) at
 * `LowPriority`, so that real changes are reconciled first after a restart (controller-runtime's
 * `WithLowPriorityWhenUnchanged`). The built-in handlers do this already.
 */
export function withLowPriorityWhenUnchanged<T extends KubeObject = KubeObject, Req = Request>(
  handler: EventHandler<T, Req>,
): EventHandler<T, Req> {
  return {
    create: (e, q, ctx) => handler.create(e, atPriority(q, createPriority(e)), ctx),
    update: (e, q, ctx) => handler.update(e, atPriority(q, updatePriority(e)), ctx),
    delete: (e, q, ctx) => handler.delete(e, q, ctx),
    generic: (e, q, ctx) => handler.generic(e, q, ctx),
  };
}

/** `queue`, with `priority` as the default of every add that sets none. */
function atPriority<Req>(queue: RequestQueue<Req>, priority: number | undefined): RequestQueue<Req> {
  if (priority === undefined) return queue;
  return {
    add: (req, options) =>
      queue.add(req, options?.priority === undefined ? { ...options, priority } : options),
  };
}
