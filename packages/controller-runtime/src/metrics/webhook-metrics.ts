// controller-runtime's webhook metrics (pkg/webhook/internal/metrics).
import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import { getOrCreateCounter, getOrCreateGauge, getOrCreateHistogram } from "./registry.js";

export interface WebhookMetrics {
  /** `controller_runtime_webhook_requests_total{webhook,code}`; `webhook` is the path. */
  readonly requestTotal: Counter<"webhook" | "code">;
  /** `controller_runtime_webhook_latency_seconds{webhook}` */
  readonly requestLatency: Histogram<"webhook">;
  /** `controller_runtime_webhook_requests_in_flight{webhook}` */
  readonly requestsInFlight: Gauge<"webhook">;
  /** `controller_runtime_webhook_panics_total`: handlers that threw unexpectedly. */
  readonly panics: Counter<never>;
  /**
   * `controller_runtime_conversion_webhook_panics_total`: converters that threw as Go code
   * panics (a TypeError, a ReferenceError, a throw of a non-Error).
   */
  readonly conversionPanics: Counter<never>;
}

// Prometheus' default buckets (prometheus.DefBuckets), which controller-runtime uses here.
const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The webhook metrics on `registry`, registered once per registry. */
export function webhookMetrics(registry: Registry): WebhookMetrics {
  return {
    requestTotal: getOrCreateCounter(registry, {
      name: "controller_runtime_webhook_requests_total",
      help: "Total number of admission requests by HTTP status code.",
      labelNames: ["webhook", "code"],
    }),
    requestLatency: getOrCreateHistogram(registry, {
      name: "controller_runtime_webhook_latency_seconds",
      help: "Histogram of the latency of processing admission requests",
      labelNames: ["webhook"],
      buckets: latencyBuckets,
    }),
    requestsInFlight: getOrCreateGauge(registry, {
      name: "controller_runtime_webhook_requests_in_flight",
      help: "Current number of admission requests being served.",
      labelNames: ["webhook"],
    }),
    panics: getOrCreateCounter<never>(registry, {
      name: "controller_runtime_webhook_panics_total",
      help: "Total number of webhook panics",
      labelNames: [],
    }),
    conversionPanics: getOrCreateCounter<never>(registry, {
      name: "controller_runtime_conversion_webhook_panics_total",
      help: "Total number of conversion webhook panics",
      labelNames: [],
    }),
  };
}
