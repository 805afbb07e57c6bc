// Request: what a reconciler is asked to reconcile, the object's key. It carries no object: the
// reconciler reads the current state itself (level-triggered), so merged or lost events lose no work.
import type { DeepReadonly, KubeObject } from "../api/index.js";

/** The key of the object to reconcile; `namespace` is "" for cluster-scoped objects. */
export interface Request {
  readonly namespace: string;
  readonly name: string;
}

/** The request for `obj` (its namespace and name). */
export function requestOf(obj: DeepReadonly<KubeObject>): Request {
  return { namespace: obj.metadata?.namespace ?? "", name: obj.metadata?.name ?? "" };
}

/** `namespace/name`, or `name` for a cluster-scoped object: the request's key in the work queue. */
export function requestKey(req: Request): string {
  return req.namespace ? `${req.namespace}/${req.name}` : req.name;
}

/** The request back from {@link requestKey}'s form (neither part may hold a `/`, so this is exact). */
export function requestFromKey(key: string): Request {
  const slash = key.indexOf("/");
  return slash < 0
    ? { namespace: "", name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * Turns requests of type `Req` into work queue keys and back. The queue holds strings only, so a
 * controller of any other request type needs one; for {@link Request} it is {@link requestCodec}.
 */
export interface RequestCodec<Req> {
  toKey(req: Req): string;
  fromKey(key: string): Req;
}

/** The codec of {@link Request}: `namespace/name`. */
export const requestCodec: RequestCodec<Request> = Object.freeze({
  toKey: requestKey,
  fromKey: requestFromKey,
});
