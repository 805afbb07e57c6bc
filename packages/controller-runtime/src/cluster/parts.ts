// The parts of one cluster, built in one place for a Cluster and for the Manager (the cluster of
// its own config): one REST client (one keep-alive pool, counted in the metrics) under the cache,
// the mapper, the clients and the Event recorders.
import type { Registry } from "prom-client";
import { type Cache, newCache } from "../cache/index.js";
import { type Client, type ClientReader, newAPIReader, newClient } from "../client/index.js";
import type { Logger } from "../log/index.js";
import { newRESTMapper, type RESTMapper } from "../mapper/index.js";
import { readYourWritesMetrics, restClientMetrics } from "../metrics/index.js";
import { type EventRecorderProvider, newEventRecorderProvider } from "../recorder/index.js";
import type { RESTConfig } from "../rest/index.js";
import { newRESTClient, type RESTClient, warningLogger } from "../rest/index.js";
import type { ClusterOptions } from "./options.js";

export interface ClusterParts {
  rest: RESTClient;
  mapper: RESTMapper;
  cache: Cache;
  client: Client;
  apiReader: ClientReader;
  recorders: EventRecorderProvider;
}

/** Builds a cluster's parts on `registry`; none connects until used or started. */
export function newClusterParts(
  config: RESTConfig,
  o: ClusterOptions,
  registry: Registry,
  logger: Logger,
  /** Called with the REST client before the cache is made: the Manager's sharding hooks in here. */
  cacheOptions: (rest: RESTClient) => ClusterOptions["cache"] = () => o.cache,
): ClusterParts {
  const rest = newRESTClient(config, {
    onRequestDone: restClientMetrics(registry).observe,
    onWarning: warningLogger(logger.withName("KubeAPIWarningLogger")),
  });
  const mapper = o.mapperProvider ? o.mapperProvider(config, rest) : newRESTMapper(rest);
  const cacheOpts = cacheOptions(rest) ?? {};
  const cache = (o.newCache ?? newCache)(config, {
    ...cacheOpts,
    restClient: cacheOpts.restClient ?? rest,
    mapper: cacheOpts.mapper ?? mapper,
    logger: cacheOpts.logger ?? logger.withName("cache"),
  });
  const client = (o.newClient ?? newClient)(config, {
    readYourWritesMetrics: readYourWritesMetrics(registry),
    ...o.client,
    cache,
    restClient: rest,
    mapper,
  });
  return {
    rest,
    mapper,
    cache,
    client,
    apiReader: newAPIReader(config, { restClient: rest, mapper }),
    recorders: newEventRecorderProvider({
      ...o.eventBroadcaster,
      client: rest,
      logger: logger.withName("events"),
      registry,
    }),
  };
}
