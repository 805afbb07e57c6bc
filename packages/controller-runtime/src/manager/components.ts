// The shared parts a Manager owns, built in one place: one REST client (one keep-alive pool,
// counted in the metrics) under the cache, the mapper, the clients, the Event recorder and the
// Lease lock; one metrics registry under every metric.
import type { Registry } from "prom-client";
import { bothSelectorsFor } from "../cache/cache-options.js";
import { namespacesOf } from "../cache/namespaces.js";
import { type Cache, newCache } from "../cache/index.js";
import { type Client, type ClientReader, newAPIReader, newClient } from "../client/index.js";
import { type HealthProbeServer, newHealthProbeServer } from "../healthz/index.js";
import { newRESTMapper, type RESTMapper } from "../mapper/index.js";
import {
  type MetricsServer,
  newMetricsRegistry,
  newMetricsServer,
  readYourWritesMetrics,
  restClientMetrics,
} from "../metrics/index.js";
import { type EventRecorderProvider, newEventRecorderProvider } from "../recorder/index.js";
import type { RESTConfig } from "../rest/index.js";
import { newRESTClient, type RESTClient, warningLogger } from "../rest/index.js";
import { prometheusWorkqueueMetrics, type WorkqueueMetricsProvider } from "../workqueue/index.js";
import { Sharding } from "../sharding/sharding.js";
import type { ResolvedManagerOptions } from "./options.js";

export interface ManagerComponents {
  registry: Registry;
  workqueueMetrics: WorkqueueMetricsProvider;
  rest: RESTClient;
  cache: Cache;
  mapper: RESTMapper;
  client: Client;
  apiReader: ClientReader;
  recorders: EventRecorderProvider;
  metricsServer: MetricsServer;
  probes: HealthProbeServer;
  /** This replica's part in a ring, when the options ask for sharding. */
  sharding: Sharding | undefined;
}

/** Builds every shared part; none connects or listens until the manager starts it. */
export function newManagerComponents(config: RESTConfig, o: ResolvedManagerOptions): ManagerComponents {
  const log = o.logger;
  const registry = newMetricsRegistry();
  const rest = newRESTClient(config, {
    onRequestDone: restClientMetrics(registry).observe,
    onWarning: warningLogger(log.withName("KubeAPIWarningLogger")),
  });
  const mapper = newRESTMapper(rest);
  const sharding =
    o.sharding &&
    new Sharding(o.sharding, {
      rest,
      logger: log,
      registry,
      namespaces: namespacesOf(o.cache.defaultNamespaces),
    });
  const cache = newCache(config, {
    ...o.cache,
    selectorFor: bothSelectorsFor(sharding?.selectorFor, o.cache.selectorFor),
    restClient: o.cache.restClient ?? rest,
    mapper: o.cache.mapper ?? mapper,
    logger: o.cache.logger ?? log.withName("cache"),
  });
  sharding?.attachCache(cache);
  return {
    sharding,
    registry,
    workqueueMetrics: prometheusWorkqueueMetrics(registry),
    rest,
    cache,
    mapper,
    client: newClient(config, {
      readYourWritesMetrics: readYourWritesMetrics(registry),
      ...o.client,
      cache,
      restClient: rest,
      mapper,
    }),
    apiReader: newAPIReader(config, { restClient: rest, mapper }),
    recorders: newEventRecorderProvider({ client: rest, logger: log.withName("events"), registry }),
    metricsServer: newMetricsServer({
      bindAddress: o.metrics.bindAddress,
      registry,
      extraHandlers: o.metrics.extraHandlers,
      secureServing: o.metrics.secureServing,
      certDir: o.metrics.certDir,
      certName: o.metrics.certName,
      keyName: o.metrics.keyName,
      filter: o.metrics.filterProvider?.(rest, log),
      logger: log, // the server names its logger controller-runtime.metrics
    }),
    probes: newHealthProbeServer({
      bindAddress: o.healthProbeBindAddress,
      readinessEndpointName: o.readinessEndpointName,
      livenessEndpointName: o.livenessEndpointName,
      logger: log, // the server names its logger controller-runtime.healthz
    }),
  };
}
