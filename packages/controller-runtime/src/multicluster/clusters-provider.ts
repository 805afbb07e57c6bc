// A provider of clusters given by the program (multicluster-runtime's providers/clusters): add a
// Cluster by name, before or after the Manager starts; remove it to stop and disengage it.
import type { Cluster } from "../cluster/index.js";
import { type Logger, nullLogger } from "../log/index.js";
import { Clusters, type ClustersOptions } from "./clusters.js";
import type { Aware, ClusterName, Provider, ProviderRunnable } from "./multicluster.js";

/** The provider {@link newClustersProvider} makes. */
export interface ClustersProvider extends Provider, ProviderRunnable {
  /** Engages `cluster` under `name` once the provider runs (at once if it does); resolves once engaged. */
  add(name: ClusterName, cluster: Cluster): Promise<void>;
  /** Stops and disengages the cluster; true if one was held. */
  remove(name: ClusterName): boolean;
  clusterNames(): ClusterName[];
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

/** A promise settled from outside; its rejection is no unhandled one when nobody awaits `add`. */
function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** A provider of the clusters the program adds (multicluster-runtime's `clusters.New()`). */
export function newClustersProvider(options: ClustersOptions = {}): ClustersProvider {
  const log: Logger = options.logger ?? nullLogger();
  const clusters = new Clusters({ ...options, logger: log });
  let running: { signal: AbortSignal; aware: Aware } | undefined;
  const waiting = new Map<ClusterName, { cluster: Cluster; engaged: Deferred }>();
  const engage = (name: ClusterName, cluster: Cluster) =>
    clusters.addOrReplace(running!.signal, name, cluster, running!.aware);
  return {
    get: (name) => clusters.get(name),
    indexField: (kind, field, extract) => clusters.indexField(kind, field, extract),
    clusterNames: () => [...new Set([...clusters.clusterNames(), ...waiting.keys()])].sort(),
    async add(name, cluster) {
      if (running) return engage(name, cluster);
      waiting.get(name)?.engaged.reject(new Error(`cluster ${JSON.stringify(name)} was added again`));
      const engaged = deferred();
      waiting.set(name, { cluster, engaged });
      return engaged.promise;
    },
    remove(name) {
      const w = waiting.get(name);
      if (w) {
        waiting.delete(name);
        w.engaged.reject(
          new Error(`cluster ${JSON.stringify(name)} was removed before the provider started`),
        );
        return true;
      }
      return clusters.remove(name);
    },
    async start(signal, aware) {
      if (running) throw new Error("clusters provider: start() was already called; a provider runs once");
      running = { signal, aware };
      const pending = [...waiting];
      waiting.clear();
      await Promise.all(
        pending.map(([name, w]) =>
          engage(name, w.cluster).then(w.engaged.resolve, (err: unknown) => {
            log.error(err, "could not engage cluster", { cluster: name });
            w.engaged.reject(err);
          }),
        ),
      );
      if (!signal.aborted)
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      for (const name of clusters.clusterNames()) clusters.remove(name);
    },
  };
}
