// The multi-cluster contracts of kubernetes-sigs/multicluster-runtime (pkg/multicluster): a
// Provider finds clusters by name and engages each one it discovers with an Aware component (the
// multi-cluster Manager, which engages its controllers); the signal of an engagement aborts when
// the cluster goes away.
import type { Kind, KubeObject } from "../api/index.js";
import type { IndexerFunc } from "../cache/index.js";
import type { Cluster } from "../cluster/index.js";

/**
 * A cluster's name, unique among a provider's clusters; its form is the provider's. `""` is the
 * Manager's own cluster (multicluster-runtime's `LocalCluster`).
 */
export type ClusterName = string;

/** The name of the Manager's own cluster (multicluster-runtime's `LocalCluster`). */
export const LOCAL_CLUSTER: ClusterName = "";

/** A component that starts work for a cluster when engaged (multicluster-runtime's `Aware`). */
export interface Aware {
  /**
   * Starts work for `cluster`, until `signal` aborts (the cluster was removed, or the component
   * stops). Engaging the same cluster object again under a live signal does nothing. Must not
   * wait for long (start anything slow in the background).
   */
  engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void>;
}

/** Finds clusters by name (multicluster-runtime's `Provider`). */
export interface Provider {
  /** The cluster named `name`; rejects with a `ClusterNotFoundError` when the provider has none. */
  get(name: ClusterName, opts?: { signal?: AbortSignal }): Promise<Cluster>;
  /** Indexes `kind` by `field` in every cluster the provider engages, now and later. */
  indexField<T extends KubeObject>(kind: Kind<T>, field: string, extract: IndexerFunc<T>): Promise<void>;
}

/**
 * A provider that runs (multicluster-runtime's `ProviderRunnable`): the multi-cluster Manager
 * starts it with itself as `aware`, and it engages each cluster it discovers until `signal` aborts.
 */
export interface ProviderRunnable {
  start(signal: AbortSignal, aware: Aware): Promise<void>;
}

/** Whether `p` runs (has `start(signal, aware)`). */
export function isProviderRunnable(p: unknown): p is ProviderRunnable {
  return typeof (p as { start?: unknown } | undefined)?.start === "function";
}

/** Whether `x` can be engaged. */
export function isAware(x: unknown): x is Aware {
  return typeof (x as { engage?: unknown } | undefined)?.engage === "function";
}

/** No cluster of that name (multicluster-runtime's `ErrClusterNotFound`). */
export class ClusterNotFoundError extends Error {
  override readonly name = "ClusterNotFoundError";
  readonly code = "ERR_CLUSTER_NOT_FOUND";
  constructor(
    readonly clusterName: ClusterName,
    known: readonly ClusterName[],
  ) {
    super(
      `no cluster named ${JSON.stringify(clusterName)}: the provider knows ${
        known.length === 0 ? "none yet" : known.map((n) => JSON.stringify(n)).join(", ")
      }; a request for a cluster that left can be dropped`,
    );
  }
}
