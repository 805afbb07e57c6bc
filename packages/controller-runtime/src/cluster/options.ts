// Options of a Cluster (controller-runtime's cluster.Options), shared with the Manager, which is
// the cluster of its own config: the cache's and the client's options, and the constructor hooks
// (NewCache, NewClient, MapperProvider) that replace a part.
import type { Registry } from "prom-client";
import type { Kind } from "../api/index.js";
import type { Cache, CacheOptions } from "../cache/index.js";
import type { Client, ClientOptions as NewClientOptions } from "../client/index.js";
import type { Logger } from "../log/index.js";
import type { EventRecorderProviderOptions } from "../recorder/index.js";
import type { RESTMapper } from "../mapper/index.js";
import type { RESTClient, RESTConfig } from "../rest/index.js";

/** Options of the cluster's client: those of `newClient` that are not the cluster's own parts. */
export interface ClientOptions
  extends Pick<
    NewClientOptions,
    "cacheUnstructured" | "fieldOwner" | "fieldValidation" | "readYourWrites" | "readYourWritesTimeoutMs"
  > {
  /** Kinds always read from the API server, never from the cache. Default: none. */
  cacheDisableFor?: Kind[];
}

export interface ClusterOptions {
  /** Default: nothing logged (`nullLogger()`); the Manager passes its own. */
  logger?: Logger;
  /** Options of the cluster's cache. Default: `{}` (all namespaces, 10 h resync). */
  cache?: CacheOptions;
  /** Options of the client `getClient()` returns. Default: `{}`. */
  client?: ClientOptions;
  /**
   * Where the REST client's request metrics (labelled with this cluster's host), read-your-writes
   * waits and dropped Events are counted: give `mgr.getMetricsRegistry()` to serve them on the
   * Manager's `/metrics`. Default: a registry of the cluster's own.
   */
  metricsRegistry?: Registry;
  /**
   * Makes the cache (controller-runtime's `NewCache`); `opts` carry the cluster's REST client,
   * mapper and logger. Default: `newCache`.
   */
  newCache?: (config: RESTConfig, opts: CacheOptions) => Cache;
  /**
   * Makes the client (controller-runtime's `NewClient`); `opts` carry the cluster's cache, REST
   * client and mapper. Default: `newClient`.
   */
  newClient?: (config: RESTConfig, opts: NewClientOptions) => Client;
  /** Makes the RESTMapper (controller-runtime's `MapperProvider`). Default: `newRESTMapper(rest)`. */
  mapperProvider?: (config: RESTConfig, rest: RESTClient) => RESTMapper;
  /**
   * How the Event recorders send (controller-runtime's `EventBroadcaster`, deprecated there): the
   * correlator's spam and aggregation limits, queue and retries, the `host`, or sinks of one's
   * own. Default: client-go's, writing through the cluster's REST client.
   */
  eventBroadcaster?: Omit<EventRecorderProviderOptions, "client" | "logger" | "registry">;
}
