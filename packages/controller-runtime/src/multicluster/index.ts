/** @module controller-runtime/multicluster */
// multicluster: one Manager reconciling objects of many clusters, shaped as
// kubernetes-sigs/multicluster-runtime: a Provider engages clusters by name, multi-cluster
// controllers reconcile ClusterRequests (a key and its cluster's name), and a provider of clusters
// the program adds.
export type {
  ClusterForOptions,
  ClusterOwnsOptions,
  ClusterWatchesOptions,
  EngageOptions,
} from "./builder.js";
export { MulticlusterControllerBuilder, multiclusterControllerManagedBy } from "./builder.js";
export type { ClustersOptions } from "./clusters.js";
export { Clusters, sameConfig } from "./clusters.js";
export type { ClustersProvider } from "./clusters-provider.js";
export { newClustersProvider } from "./clusters-provider.js";
export type {
  MulticlusterContext,
  MulticlusterController,
  MulticlusterControllerOptions,
} from "./controller.js";
export { newMulticlusterController, newUnmanagedMulticlusterController } from "./controller.js";
export type { ClusterHandlerFunc } from "./handler.js";
export {
  enqueueClusterRequestForObject,
  enqueueClusterRequestForOwner,
  forCluster,
  lift,
} from "./handler.js";
export type { MulticlusterManager } from "./manager.js";
export { newMulticlusterManager, withMulticluster } from "./manager.js";
export type { Aware, ClusterName, Provider, ProviderRunnable } from "./multicluster.js";
export { ClusterNotFoundError, isAware, isProviderRunnable, LOCAL_CLUSTER } from "./multicluster.js";
export type { ClusterRequest } from "./request.js";
export { clusterRequestCodec, clusterRequestKey } from "./request.js";
export type { ClusterFilter, ClusterKindOptions, ClusterSource } from "./source.js";
export { clusterKind, withinSignal } from "./source.js";
