// The multi-cluster Manager (multicluster-runtime's mcmanager): an ordinary Manager for the local
// cluster, a Provider for the others, and the coordinator between them: it starts the provider
// (with itself as the Aware it engages), and engages every Aware runnable added to it (the
// multi-cluster controllers) with each cluster the provider engages, including those engaged
// before the runnable was added.
import type { Registry } from "prom-client";
import type { FieldIndexer } from "../cache/index.js";
import type { Cluster } from "../cluster/index.js";
import type { ControllerDefaults } from "../controller/index.js";
import type { Checker } from "../healthz/index.js";
import type { Logger } from "../log/index.js";
import { Manager, type ManagerOptions, type Runnable, runnableFunc } from "../manager/index.js";
import type { HTTPHandler } from "../metrics/index.js";
import type { RESTConfig } from "../rest/index.js";
import type { WebhookServer } from "../webhook/index.js";
import type { WorkqueueMetricsProvider } from "../workqueue/index.js";
import type { MulticlusterContext } from "./controller.js";
import {
  type Aware,
  type ClusterName,
  isAware,
  isProviderRunnable,
  LOCAL_CLUSTER,
  type Provider,
} from "./multicluster.js";

/** A Manager of several clusters (multicluster-runtime's `mcmanager.Manager`). */
export interface MulticlusterManager extends Aware, MulticlusterContext {
  /** Runs `runnable` on the local Manager; one that is Aware is also engaged with every cluster. */
  add(runnable: Runnable & Partial<Aware>): void;
  /** Starts the provider (if it runs) and the local Manager; see `Manager.start`. */
  start(signal: AbortSignal): Promise<void>;
  elected(): Promise<void>;
  addHealthzCheck(name: string, check: Checker): void;
  addReadyzCheck(name: string, check: Checker): void;
  addMetricsServerExtraHandler(path: string, handler: HTTPHandler): void;
  getWebhookServer(): WebhookServer;
  getLogger(): Logger;
  getControllerOptions(): ControllerDefaults;
  getMetricsRegistry(): Registry;
  /** The cluster named `name` (the local Manager for `LOCAL_CLUSTER`, `""`), from the provider. */
  getCluster(name: ClusterName, opts?: { signal?: AbortSignal }): Promise<Cluster>;
  /** The Manager of the local cluster. */
  getLocalManager(): Manager;
  getProvider(): Provider | undefined;
  /** Indexes in every cluster of the provider (in the local cluster when there is no provider). */
  getFieldIndexer(): FieldIndexer;
  /** The clusters engaged now, by name. */
  engagedClusters(): ClusterName[];
}

/**
 * A multi-cluster Manager for `config` (the local cluster) and `provider` (multicluster-runtime's
 * `mcmanager.New`); `provider` may be undefined to run multi-cluster controllers on the local
 * cluster only.
 */
export async function newMulticlusterManager(
  config: RESTConfig,
  provider: Provider | undefined,
  options: ManagerOptions = {},
): Promise<MulticlusterManager> {
  return withMulticluster(await Manager.create(config, options), provider);
}

/** `mgr` as a multi-cluster Manager of `provider`'s clusters (multicluster-runtime's `WithMultiCluster`). */
export function withMulticluster(mgr: Manager, provider: Provider | undefined): MulticlusterManager {
  return new MulticlusterManagerImpl(mgr, provider);
}

interface Engaged {
  cluster: Cluster;
  signal: AbortSignal;
}

class MulticlusterManagerImpl implements MulticlusterManager {
  readonly #mgr: Manager;
  readonly #provider: Provider | undefined;
  readonly #awares: Aware[] = [];
  readonly #engaged = new Map<ClusterName, Engaged>();

  constructor(mgr: Manager, provider: Provider | undefined) {
    this.#mgr = mgr;
    this.#provider = provider;
  }

  get logger(): Logger | undefined {
    return this.#mgr.logger;
  }
  get metricsRegistry(): Registry | undefined {
    return this.#mgr.metricsRegistry;
  }
  get workqueueMetrics(): WorkqueueMetricsProvider | undefined {
    return this.#mgr.workqueueMetrics;
  }
  get controllerDefaults(): ControllerDefaults | undefined {
    return this.#mgr.controllerDefaults;
  }
  get controllerNames(): Set<string> | undefined {
    return this.#mgr.controllerNames;
  }

  add(runnable: Runnable & Partial<Aware>): void {
    if (isAware(runnable)) {
      this.#awares.push(runnable);
      // A runnable added late joins the clusters engaged already.
      for (const [name, e] of this.#engaged) {
        runnable.engage(e.signal, name, e.cluster).catch((err: unknown) => {
          this.#mgr.getLogger().error(err, "could not engage a runnable added late", { cluster: name });
        });
      }
    }
    this.#mgr.add(runnable);
  }

  async engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    if (signal.aborted) return;
    const engaged: Engaged = { cluster, signal };
    this.#engaged.set(name, engaged);
    signal.addEventListener(
      "abort",
      () => {
        if (this.#engaged.get(name) === engaged) this.#engaged.delete(name);
      },
      { once: true },
    );
    for (const aware of [...this.#awares]) await aware.engage(signal, name, cluster);
  }

  engagedClusters(): ClusterName[] {
    return [...this.#engaged.keys()].sort();
  }

  async start(signal: AbortSignal): Promise<void> {
    const provider = this.#provider;
    // As multicluster-runtime: the provider runs as a Runnable of the local Manager, so that it
    // engages clusters once the Manager runs (and, with leader election, on the leader).
    if (isProviderRunnable(provider)) this.#mgr.add(runnableFunc((s) => provider.start(s, this)));
    await this.#mgr.start(signal);
  }

  async getCluster(name: ClusterName, opts: { signal?: AbortSignal } = {}): Promise<Cluster> {
    if (name === LOCAL_CLUSTER) return this.#mgr;
    if (!this.#provider) {
      throw new Error(
        `no multi-cluster provider set, but cluster ${JSON.stringify(name)} was asked for: pass a provider to newMulticlusterManager`,
      );
    }
    return this.#provider.get(name, opts);
  }

  getLocalManager(): Manager {
    return this.#mgr;
  }

  getProvider(): Provider | undefined {
    return this.#provider;
  }

  getFieldIndexer(): FieldIndexer {
    const provider = this.#provider;
    if (!provider) return this.#mgr.getFieldIndexer();
    return { indexField: (kind, field, extract) => provider.indexField(kind, field, extract) };
  }

  elected(): Promise<void> {
    return this.#mgr.elected();
  }
  addHealthzCheck(name: string, check: Checker): void {
    this.#mgr.addHealthzCheck(name, check);
  }
  addReadyzCheck(name: string, check: Checker): void {
    this.#mgr.addReadyzCheck(name, check);
  }
  addMetricsServerExtraHandler(path: string, handler: HTTPHandler): void {
    this.#mgr.addMetricsServerExtraHandler(path, handler);
  }
  getWebhookServer(): WebhookServer {
    return this.#mgr.getWebhookServer();
  }
  getLogger(): Logger {
    return this.#mgr.getLogger();
  }
  getControllerOptions(): ControllerDefaults {
    return this.#mgr.getControllerOptions();
  }
  getMetricsRegistry(): Registry {
    return this.#mgr.getMetricsRegistry();
  }
}
