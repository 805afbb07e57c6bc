/** @module controller-runtime/metrics */
// metrics: the manager's private Prometheus registry (with Node's process metrics), the metric
// definitions with controller-runtime's and client-go's names, and the `/metrics` server.
export {
  MetricConflictError,
  getOrCreateCounter,
  getOrCreateGauge,
  getOrCreateHistogram,
  newMetricsRegistry,
} from "./registry.js";
export type { RequestInfo, RequestMetricsHook, RESTClientMetrics } from "./rest-client-metrics.js";
export { restClientMetrics } from "./rest-client-metrics.js";
export type {
  ControllerMetrics,
  Count,
  ReconcileCounts,
  ReconcileResultLabel,
} from "./controller-metrics.js";
export { controllerMetrics } from "./controller-metrics.js";
export type { LeaderElectionMetrics } from "./leader-election-metrics.js";
export { leaderElectionMetrics } from "./leader-election-metrics.js";
export type { ReadYourWritesMetrics } from "./read-your-writes-metrics.js";
export { readYourWritesMetrics } from "./read-your-writes-metrics.js";
export type { WebhookMetrics } from "./webhook-metrics.js";
export { webhookMetrics } from "./webhook-metrics.js";
export type { AuthFilterOptions, MetricsFilter, MetricsFilterProvider } from "./auth-filter.js";
export { withAuthenticationAndAuthorization } from "./auth-filter.js";
export type { MetricsServer, MetricsServerOptions, MetricsTLSOptions } from "./server.js";
export { ExtraHandlerError, metricsPath, newMetricsServer } from "./server.js";
export type { HTTPHandler } from "../httpserver/index.js";
// Deprecated names, kept for one release.
export type { RestClientMetrics } from "./deprecated.js";
