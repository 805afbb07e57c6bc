// The shared parts a Manager owns, built in one place: its cluster's parts (one REST client under
// the cache, the mapper, the clients and the Event recorders; see cluster/parts.ts), the metrics
// and probe servers, and sharding; one metrics registry under every metric.
import type { Registry } from "prom-client";
import { bothSelectorsFor } from "../cache/cache-options.js";
import { namespacesOf } from "../cache/namespaces.js";
import type { Cache } from "../cache/index.js";
import type { Client, ClientReader } from "../client/index.js";
import { newClusterParts } from "../cluster/parts.js";
import { type HealthProbeServer, newHealthProbeServer } from "../healthz/index.js";
import type { RESTMapper } from "../mapper/index.js";
import { type MetricsServer, newMetricsRegistry, newMetricsServer } from "../metrics/index.js";
import type { EventRecorderProvider } from "../recorder/index.js";
import type { RESTClient, RESTConfig } from "../rest/index.js";
import { prometheusWorkqueueMetrics, type WorkqueueMetricsProvider } from "../workqueue/index.js";
import { Sharding } from "../sharding/sharding.js";
import type { ResolvedManagerOptions } from "./options.js";
import { newPprofServer } from "./pprof-server.js";
import type { HTTPServerRunnable } from "../httpserver/index.js";

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
  pprof: HTTPServerRunnable;
  /** This replica's part in a ring, when the options ask for sharding. */
  sharding: Sharding | undefined;
}

/** Builds every shared part; none connects or listens until the manager starts it. */
export function newManagerComponents(config: RESTConfig, o: ResolvedManagerOptions): ManagerComponents {
  const log = o.logger;
  const registry = newMetricsRegistry();
  let sharding: Sharding | undefined;
  const parts = newClusterParts(config, o, registry, log, (rest) => {
    sharding =
      o.sharding &&
      new Sharding(o.sharding, {
        rest,
        logger: log,
        registry,
        namespaces: namespacesOf(o.cache.defaultNamespaces),
      });
    return { ...o.cache, selectorFor: bothSelectorsFor(sharding?.selectorFor, o.cache.selectorFor) };
  });
  sharding?.attachCache(parts.cache);
  const rest = parts.rest;
  return {
    ...parts,
    sharding,
    registry,
    workqueueMetrics: prometheusWorkqueueMetrics(registry),
    metricsServer: newMetricsServer({
      bindAddress: o.metrics.bindAddress,
      registry,
      extraHandlers: o.metrics.extraHandlers,
      secureServing: o.metrics.secureServing,
      certDir: o.metrics.certDir,
      certName: o.metrics.certName,
      keyName: o.metrics.keyName,
      tlsOpts: o.metrics.tlsOpts,
      certWatcher: o.metrics.certWatcher,
      filter: o.metrics.filterProvider?.(rest, log),
      logger: log, // the server names its logger controller-runtime.metrics
    }),
    pprof: newPprofServer({ bindAddress: o.pprofBindAddress, logger: log }),
    probes: newHealthProbeServer({
      bindAddress: o.healthProbeBindAddress,
      readinessEndpointName: o.readinessEndpointName,
      livenessEndpointName: o.livenessEndpointName,
      logger: log, // the server names its logger controller-runtime.healthz
    }),
  };
}
