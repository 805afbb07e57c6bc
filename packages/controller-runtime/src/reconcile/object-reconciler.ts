// Reconcilers of the object rather than its key (controller-runtime's ObjectReconciler and
// AsReconciler): the adapter reads the object first, and a request for an object that is gone
// ends there, as client.IgnoreNotFound does in Go.
import type { DeepReadonly, Kind, KubeObject, ObjectKey } from "../api/index.js";
import { isNotFound } from "../rest/index.js";
import type { ReconcileContext, Reconciler } from "./reconciler.js";
import type { Request } from "./request.js";
import type { Result } from "./result.js";

/** Reconciles an object read for it (controller-runtime's `ObjectReconciler`). */
export interface ObjectReconciler<T extends KubeObject> {
  // biome-ignore lint/suspicious/noConfusingVoidType: lets `async reconcile() {}` implement it
  reconcile(obj: DeepReadonly<T>, ctx: ReconcileContext): Promise<Result | void>;
}

/** What the adapter reads the object with: a Client (cached reads) or the API reader. */
export interface ObjectGetter {
  get<T extends KubeObject>(
    kind: Kind<T>,
    key: ObjectKey,
    opts?: { signal?: AbortSignal },
  ): Promise<DeepReadonly<T>>;
}

/**
 * A Reconciler that reads the request's object of `kind` through `client` and hands it to `rec`;
 * a missing object is no error and reconciles nothing (controller-runtime's `AsReconciler`).
 */
export function asReconciler<T extends KubeObject>(
  client: ObjectGetter,
  kind: Kind<T>,
  rec: ObjectReconciler<T>,
): Reconciler<Request> {
  return {
    async reconcile(req, ctx) {
      let obj: DeepReadonly<T>;
      try {
        obj = await client.get(kind, req, { signal: ctx.signal });
      } catch (err) {
        if (isNotFound(err)) return {};
        throw err;
      }
      return rec.reconcile(obj, ctx);
    },
  };
}
