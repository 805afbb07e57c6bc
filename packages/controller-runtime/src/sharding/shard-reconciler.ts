// A sharded controller's reconciler: the user's reconciler runs only for objects this replica
// holds. The work queue never hands out one key twice at once, so when the coordinator marks an
// object to drain to another shard, the request that sees the mark comes after any reconcile of
// it here ended; answering it by writing that shard in place of this one (and removing the mark)
// lets the object go to its next shard with no overlap. A request for an object this replica does not hold (moved on, or deleted) is
// dropped: another replica reconciles it, or nothing is left to do.
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
import { drainLabel, labelsOf, pointer, shardLabel } from "./labels.js";

/** A shard identity (labels.ts namingError). */
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export interface ShardedReconcilerOptions {
  ring: string;
  identity: string;
  kind: Kind;
  cache: Cache;
  rest: RESTClient;
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
        if (isNotFound(err)) return;
        throw err;
      }
      const labels = labelsOf(obj);
      if (labels[shard] !== o.identity) return;
      const to = labels[drain];
      if (to === undefined) return inner.reconcile(req, ctx);
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
