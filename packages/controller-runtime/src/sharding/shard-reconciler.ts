// A sharded controller's reconciler: the user's reconciler runs only for objects this replica
// holds and the ring still puts here; one the ring puts on another member is handed over instead
// (hand-over.ts). A request for an object this replica does not hold (moved on, or deleted) is
// dropped: another replica reconciles it, or nothing is left to do.
//
// An object marked to drain by an earlier version's coordinator is answered as it expects: the
// work queue never hands out one key twice at once, so the request that sees the mark comes after
// any reconcile of it here ended, and writing the marked shard in place of this one (removing the
// mark) lets the object go with no overlap.
import type { DeepReadonly, Kind, KubeObject } from "../api/index.js";
import type { Cache } from "../cache/index.js";
import type { Reconciler, Request } from "../reconcile/index.js";
import {
  ACCEPT_PARTIAL_METADATA,
  isConflict,
  isInvalid,
  isNotFound,
  type RESTClient,
  resourceOf,
} from "../rest/index.js";
import type { HandOver } from "./hand-over.js";
import { drainLabel, labelsOf, pointer, shardLabel } from "./labels.js";

/** A shard identity (labels.ts namingError). */
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface ShardedReconcilerOptions {
  ring: string;
  identity: string;
  kind: Kind;
  cache: Cache;
  rest: RESTClient;
  handOver: HandOver;
  onDrained: () => void;
}

export function shardedReconciler(
  o: ShardedReconcilerOptions,
  inner: Reconciler<Request>,
): Reconciler<Request> {
  const shard = shardLabel(o.ring);
  const drain = drainLabel(o.ring);
  return {
    async reconcile(req, ctx) {
      let obj: DeepReadonly<KubeObject>;
      try {
        obj = await o.cache.get(o.kind, req);
      } catch (err) {
        if (isNotFound(err)) {
          o.handOver.gone(o.kind, req.namespace, req.name);
          return;
        }
        throw err;
      }
      const labels = labelsOf(obj);
      if (labels[shard] !== o.identity) return;
      const to = labels[drain];
      if (to === undefined) {
        let result: Awaited<ReturnType<typeof inner.reconcile>> | undefined;
        await o.handOver.reconcile({ kind: o.kind }, obj, async () => {
          result = await inner.reconcile(req, ctx);
        });
        return result;
      }
      // Only if it is still ours and still bound there: a stale view must neither take it from
      // its next shard nor send it where the coordinator no longer wants it. A failed test is
      // a newer version, whose own event brings the object back here.
      const handOver =
        to === o.identity || to === "true" || !NAME.test(to)
          ? // "true" (earlier versions' coordinators): unassigned, the coordinator assigns it again.
            [{ op: "remove", path: pointer(shard) }]
          : [{ op: "replace", path: pointer(shard), value: to }];
      try {
        await o.rest.patch(
          resourceOf(o.kind),
          req.name,
          [
            { op: "test", path: pointer(shard), value: o.identity },
            { op: "test", path: pointer(drain), value: to },
            ...handOver,
            { op: "remove", path: pointer(drain) },
          ],
          // Its answer, metadata only: nothing here reads it, and a drain is one of thousands.
          {
            namespace: req.namespace,
            patchType: "json",
            signal: ctx.signal,
            accept: ACCEPT_PARTIAL_METADATA,
          },
        );
        o.onDrained();
      } catch (err) {
        if (isInvalid(err) || isNotFound(err) || isConflict(err)) return;
        throw err;
      }
    },
  };
}
