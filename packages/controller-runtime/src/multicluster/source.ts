// Sources of a multi-cluster controller: one description made into a source per engaged cluster
// (multicluster-runtime's mcsource.Kind and its ForCluster), and the wrapper that stops a
// cluster's source when the cluster is disengaged.
import type { Kind, KubeObject } from "../api/index.js";
import { metadataOnly } from "../cache/index.js";
import type { Cluster } from "../cluster/index.js";
import type { Predicate } from "../predicate/index.js";
import { kind as kindSource, type Source } from "../source/index.js";
import type { ClusterHandlerFunc } from "./handler.js";
import type { ClusterName } from "./multicluster.js";
import type { ClusterRequest } from "./request.js";

/** Whether a source engages with a cluster (multicluster-runtime's `ClusterFilterFunc`). */
export type ClusterFilter = (name: ClusterName, cluster: Cluster) => boolean;

/** A source for each cluster (multicluster-runtime's `mcsource.TypedSource`). */
export interface ClusterSource<Req = ClusterRequest> {
  /** The source of cluster `name`, or undefined when it does not engage with it (its filter). */
  forCluster(name: ClusterName, cluster: Cluster): Source<Req> | undefined;
  toString(): string;
}

export interface ClusterKindOptions {
  /** Engage only with clusters it accepts. Default: every cluster. */
  clusterFilter?: ClusterFilter;
  /** Watch metadata only (`PartialObjectMetadata`). Default: false. */
  onlyMetadata?: boolean;
}

/**
 * Events of `kind` in each engaged cluster's cache, mapped by the cluster's handler
 * (multicluster-runtime's `mcsource.Kind`).
 */
export function clusterKind<T extends KubeObject, Req = ClusterRequest>(
  kind: Kind<T>,
  handler: ClusterHandlerFunc<T, Req>,
  predicates: readonly Predicate<T>[] = [],
  options: ClusterKindOptions = {},
): ClusterSource<Req> {
  const watched = (options.onlyMetadata ? metadataOnly(kind) : kind) as Kind<T>;
  return {
    forCluster(name, cluster) {
      if (options.clusterFilter && !options.clusterFilter(name, cluster)) return undefined;
      const source = kindSource(cluster.getCache(), watched, handler(name, cluster), ...predicates);
      const described = `${source} in cluster ${JSON.stringify(name)}`;
      source.toString = () => described;
      return source;
    },
    toString: () => `cluster kind source: ${kind.kind}`,
  };
}

/**
 * `source`, stopped when `engaged` aborts as well as when its controller stops
 * (multicluster-runtime's startWithinContext).
 */
export function withinSignal<Req>(source: Source<Req>, engaged: AbortSignal): Source<Req> {
  const out: Source<Req> = {
    start: (signal, queue, options) => source.start(AbortSignal.any([signal, engaged]), queue, options),
    toString: () => String(source),
  };
  const wait = source.waitForSync;
  // A disengaged cluster's source has nothing more to sync: its wait ends as a shutdown's does.
  if (wait) out.waitForSync = (signal) => wait.call(source, AbortSignal.any([signal, engaged]));
  return out;
}
