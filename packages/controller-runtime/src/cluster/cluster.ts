// A Cluster: the cache, clients, mapper, field indexer and Event recorders of one API server,
// startable on its own (controller-runtime's cluster.Cluster). A Manager is the cluster of its
// own config; another cluster is added to it as a Runnable (`mgr.add(cluster)`) and started with
// the Manager's caches, and controllers watch it with `source.kind(cluster.getCache(), ...)`.
import type { Registry } from "prom-client";
import type { Cache, FieldIndexer } from "../cache/index.js";
import type { Client, ClientReader } from "../client/index.js";
import { markUnscoped } from "../internal/runnable-scope.js";
import { type Logger, nullLogger } from "../log/index.js";
import type { RESTMapper } from "../mapper/index.js";
import { newMetricsRegistry } from "../metrics/index.js";
import type { EventRecorder, EventsV1Recorder } from "../recorder/index.js";
import type { RESTClient, RESTConfig } from "../rest/index.js";
import type { ClusterOptions } from "./options.js";
import { type ClusterParts, newClusterParts } from "./parts.js";

/** One API server's cache, clients and mapper (controller-runtime's `cluster.Cluster`). */
export interface Cluster {
  getConfig(): RESTConfig;
  /** The REST client the cluster's parts share (Go's `GetHTTPClient`). */
  getRESTClient(): RESTClient;
  getCache(): Cache;
  /** Reads from the cache (except `client.cacheDisableFor`), writes to the API server. */
  getClient(): Client;
  /** Reads straight from the API server. */
  getAPIReader(): ClientReader;
  getFieldIndexer(): FieldIndexer;
  getRESTMapper(): RESTMapper;
  /**
   * A core/v1 Event recorder.
   * @deprecated As in controller-runtime v0.23+: use `getEventRecorder` (events.k8s.io/v1).
   */
  getEventRecorderFor(name: string): EventRecorder;
  /** An events.k8s.io/v1 Event recorder; `name` is the Events' `reportingController`. */
  getEventRecorder(name: string): EventsV1Recorder;
  getLogger(): Logger;
  /** Runs the cache until `signal` aborts, then sends the Events still queued. Runs once. */
  start(signal: AbortSignal): Promise<void>;
}

/** A Cluster made by `newCluster`: a Runnable that needs no leader, with its metrics registry. */
export interface StandaloneCluster extends Cluster {
  /** Where the cluster counts its requests (`options.metricsRegistry`, or its own). */
  getMetricsRegistry(): Registry;
  /** False: a cluster's cache runs on every replica, as the Manager's does. */
  needLeaderElection(): boolean;
}

/** Whether `x` is a Cluster the Manager starts with its caches (it has a cache to wait for). */
export function hasCache(x: unknown): x is { getCache(): Cache } {
  return typeof (x as { getCache?: unknown }).getCache === "function";
}

/**
 * A Cluster for `config` (controller-runtime's `cluster.New`); nothing connects until `start`, or
 * until the Manager it was added to starts.
 */
export function newCluster(config: RESTConfig, options: ClusterOptions = {}): StandaloneCluster {
  return new ClusterImpl(config, options);
}

class ClusterImpl implements StandaloneCluster {
  readonly #config: RESTConfig;
  readonly #log: Logger;
  readonly #registry: Registry;
  readonly #parts: ClusterParts;
  #started = false;

  constructor(config: RESTConfig, o: ClusterOptions) {
    if (!config?.host) {
      throw new TypeError(
        "newCluster: pass the RESTConfig of the cluster (getConfig(), or an envtest's config)",
      );
    }
    // The cache and its informers are the library's, not a user's Runnable (see markUnscoped).
    markUnscoped(this);
    this.#config = config;
    this.#log = o.logger ?? nullLogger();
    this.#registry = o.metricsRegistry ?? newMetricsRegistry();
    this.#parts = newClusterParts(config, o, this.#registry, this.#log);
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#started)
      throw new Error(`cluster ${this.#config.host}: start() was already called; a cluster runs once`);
    this.#started = true;
    try {
      await this.#parts.cache.start(signal);
    } finally {
      await this.#parts.recorders.shutdown({ timeoutMs: 5_000 });
      await this.#parts.rest.close();
    }
  }

  needLeaderElection(): boolean {
    return false;
  }

  getConfig(): RESTConfig {
    return this.#config;
  }

  getRESTClient(): RESTClient {
    return this.#parts.rest;
  }

  getCache(): Cache {
    return this.#parts.cache;
  }

  getClient(): Client {
    return this.#parts.client;
  }

  getAPIReader(): ClientReader {
    return this.#parts.apiReader;
  }

  getFieldIndexer(): FieldIndexer {
    return this.#parts.cache;
  }

  getRESTMapper(): RESTMapper {
    return this.#parts.mapper;
  }

  getEventRecorderFor(name: string): EventRecorder {
    return this.#parts.recorders.getEventRecorderFor(name);
  }

  getEventRecorder(name: string): EventsV1Recorder {
    return this.#parts.recorders.getEventRecorder(name);
  }

  getLogger(): Logger {
    return this.#log;
  }

  getMetricsRegistry(): Registry {
    return this.#registry;
  }
}
