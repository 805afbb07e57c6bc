// A registry of running clusters for providers (multicluster-runtime's pkg/clusters): adding a
// cluster starts it under a signal of its own, waits for its cache, applies the field indexes
// registered so far and engages it; removing it aborts that signal, which stops the cluster and
// disengages every controller from it.
import type { Kind, KubeObject } from "../api/index.js";
import type { IndexerFunc } from "../cache/index.js";
import type { Cluster } from "../cluster/index.js";
import { type Logger, nullLogger } from "../log/index.js";
import { type Aware, ClusterNotFoundError, type ClusterName, type Provider } from "./multicluster.js";

export interface ClustersOptions {
  /** How long a cluster's cache may take to sync before `add` gives up on it. Default: 30 000 ms. */
  waitCacheTimeoutMs?: number;
  /**
   * Whether two clusters are the same, so that `addOrReplace` keeps the running one. Default:
   * the same config object, or configs of the same host and credentials.
   */
  equal?: (a: Cluster, b: Cluster) => boolean;
  /** Where a cluster that stopped with an error is reported. Default: nullLogger(). */
  logger?: Logger;
}

interface Entry {
  cluster: Cluster;
  stop: AbortController;
}

interface Index {
  kind: Kind;
  field: string;
  extract: IndexerFunc;
}

/** The same API server as the same user: what a provider rereading its source must not restart. */
export function sameConfig(a: Cluster, b: Cluster): boolean {
  const x = a.getConfig();
  const y = b.getConfig();
  if (x === y) return true;
  return JSON.stringify(x) === JSON.stringify(y);
}

/** Running clusters by name, for a Provider to keep (multicluster-runtime's `clusters.Clusters`). */
export class Clusters implements Provider {
  readonly #clusters = new Map<ClusterName, Entry>();
  readonly #indexes: Index[] = [];
  readonly #waitCacheTimeoutMs: number;
  readonly #equal: (a: Cluster, b: Cluster) => boolean;
  readonly #log: Logger;

  constructor(options: ClustersOptions = {}) {
    this.#waitCacheTimeoutMs = options.waitCacheTimeoutMs ?? 30_000;
    this.#equal = options.equal ?? sameConfig;
    this.#log = options.logger ?? nullLogger();
  }

  /** The names of the clusters held, sorted. */
  clusterNames(): ClusterName[] {
    return [...this.#clusters.keys()].sort();
  }

  async get(name: ClusterName): Promise<Cluster> {
    const entry = this.#clusters.get(name);
    if (!entry) throw new ClusterNotFoundError(name, this.clusterNames());
    return entry.cluster;
  }

  /**
   * Starts `cluster` under `signal` (the provider's), waits until its cache synced, indexes it
   * and engages it with `aware`. Rejects (and removes it) when any step fails; a name held
   * already is refused.
   */
  async add(signal: AbortSignal, name: ClusterName, cluster: Cluster, aware?: Aware): Promise<void> {
    if (this.#clusters.has(name)) {
      throw new Error(`clusters: a cluster named ${JSON.stringify(name)} is held already; remove it first`);
    }
    const stop = new AbortController();
    const entry: Entry = { cluster, stop };
    this.#clusters.set(name, entry);
    const own = AbortSignal.any([signal, stop.signal]);
    void cluster
      .start(own)
      .catch((err: unknown) => this.#log.error(err, "cluster stopped with an error", { cluster: name }))
      .finally(() => this.#removeEntry(name, entry));
    try {
      const deadline = AbortSignal.any([own, AbortSignal.timeout(this.#waitCacheTimeoutMs)]);
      if (!(await cluster.getCache().waitForCacheSync(deadline))) {
        throw new Error(
          `clusters: the cache of cluster ${JSON.stringify(name)} did not sync within ${this.#waitCacheTimeoutMs} ms` +
            " (is its API server reachable?)",
        );
      }
      for (const i of this.#indexes) await cluster.getFieldIndexer().indexField(i.kind, i.field, i.extract);
      await aware?.engage(own, name, cluster);
    } catch (err) {
      this.#removeEntry(name, entry);
      throw err;
    }
  }

  /** Adds `cluster`, or keeps the one held under `name` when equal, or replaces it. */
  async addOrReplace(signal: AbortSignal, name: ClusterName, cluster: Cluster, aware?: Aware): Promise<void> {
    const held = this.#clusters.get(name);
    if (held) {
      if (held.cluster === cluster || this.#equal(held.cluster, cluster)) return;
      this.remove(name);
    }
    await this.add(signal, name, cluster, aware);
  }

  /** Stops the cluster named `name` and disengages it everywhere; true if one was held. */
  remove(name: ClusterName): boolean {
    const entry = this.#clusters.get(name);
    if (!entry) return false;
    this.#removeEntry(name, entry);
    return true;
  }

  #removeEntry(name: ClusterName, entry: Entry): void {
    entry.stop.abort();
    if (this.#clusters.get(name) === entry) this.#clusters.delete(name);
  }

  async indexField<T extends KubeObject>(
    kind: Kind<T>,
    field: string,
    extract: IndexerFunc<T>,
  ): Promise<void> {
    this.#indexes.push({ kind, field, extract: extract as IndexerFunc });
    const failures: string[] = [];
    for (const [name, entry] of this.#clusters) {
      try {
        await entry.cluster.getFieldIndexer().indexField(kind, field, extract);
      } catch (err) {
        failures.push(`cluster ${JSON.stringify(name)}: ${(err as Error).message}`);
      }
    }
    if (failures.length > 0) throw new Error(`indexField ${kind.kind} ${field}: ${failures.join("; ")}`);
  }
}
