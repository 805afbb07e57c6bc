// Handlers of a multi-cluster controller: an ordinary handler lifted to queue requests carrying
// the cluster name (multicluster-runtime's mchandler.ForCluster and Lift).
import type { KubeObject } from "../api/index.js";
import type { Cluster } from "../cluster/index.js";
import {
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  type EnqueueRequestForOwnerOptions,
  type RequestQueue,
} from "../handler/index.js";
import type { Kind } from "../api/index.js";
import type { Request } from "../reconcile/index.js";
import type { ClusterName } from "./multicluster.js";
import type { ClusterRequest } from "./request.js";

/** Makes the handler of one cluster (multicluster-runtime's `TypedEventHandlerFunc`). */
export type ClusterHandlerFunc<T extends KubeObject = KubeObject, Req = ClusterRequest> = (
  name: ClusterName,
  cluster: Cluster,
) => EventHandler<T, Req>;

function inCluster(queue: RequestQueue<ClusterRequest>, clusterName: ClusterName): RequestQueue<Request> {
  return { add: (req, options) => queue.add({ ...req, clusterName }, options) };
}

/** `handler`, its requests in cluster `clusterName` (multicluster-runtime's `ForCluster`). */
export function forCluster<T extends KubeObject>(
  handler: EventHandler<T, Request>,
  clusterName: ClusterName,
): EventHandler<T, ClusterRequest> {
  return {
    create: (e, q, ctx) => handler.create(e, inCluster(q, clusterName), ctx),
    update: (e, q, ctx) => handler.update(e, inCluster(q, clusterName), ctx),
    delete: (e, q, ctx) => handler.delete(e, inCluster(q, clusterName), ctx),
    generic: (e, q, ctx) => handler.generic(e, inCluster(q, clusterName), ctx),
  };
}

/** `handler` for every cluster, each request carrying its cluster (multicluster-runtime's `Lift`). */
export function lift<T extends KubeObject>(handler: EventHandler<T, Request>): ClusterHandlerFunc<T> {
  return (name) => forCluster(handler, name);
}

/** The object's own key in its cluster (multicluster-runtime's `EnqueueRequestForObject`). */
export function enqueueClusterRequestForObject<T extends KubeObject = KubeObject>(): ClusterHandlerFunc<T> {
  return lift(enqueueRequestForObject<T>());
}

/** The owner's key in the object's cluster (multicluster-runtime's `EnqueueRequestForOwner`). */
export function enqueueClusterRequestForOwner<O extends KubeObject, T extends KubeObject = KubeObject>(
  ownerKind: Kind<O>,
  options: EnqueueRequestForOwnerOptions = {},
): ClusterHandlerFunc<T> {
  return lift(enqueueRequestForOwner<O, T>(ownerKind, options));
}
