// client-go's REST client metrics (k8s.io/client-go/tools/metrics, as registered by
// component-base and controller-runtime), fed by the REST client's `onRequestDone` hook.
import type { Registry } from "prom-client";
import { getOrCreateCounter, getOrCreateHistogram } from "./registry.js";

/** One finished request to the API server. */
export interface RequestInfo {
  /** The HTTP method: `GET`, `POST`, ... */
  method: string;
  /** `host:port` of the API server, as in the request URL. */
  host: string;
  /** The HTTP status code, or `"<error>"` (client-go's label) when no answer came back. */
  code: number | string;
  /** From sending the request to the end of the response headers (of a watch: its opening). */
  durationSeconds: number;
}

/** Called by the REST client when a request is done; must not throw and should not block. */
export type RequestMetricsHook = (info: RequestInfo) => void;

export interface RESTClientMetrics {
  /** Records one request; a bound function, safe to pass as the REST client's `onRequestDone`. */
  readonly observe: RequestMetricsHook;
}

// component-base's buckets for rest_client_request_duration_seconds.
const durationBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

/**
 * `rest_client_requests_total{code,method,host}` and
 * `rest_client_request_duration_seconds{verb,host}` on `registry` (created once per registry).
 */
export function restClientMetrics(registry: Registry): RESTClientMetrics {
  const requests = getOrCreateCounter(registry, {
    name: "rest_client_requests_total",
    help: "Number of HTTP requests, partitioned by status code, method, and host.",
    labelNames: ["code", "method", "host"],
  });
  const duration = getOrCreateHistogram(registry, {
    name: "rest_client_request_duration_seconds",
    help: "Request latency in seconds. Broken down by verb, and host.",
    labelNames: ["verb", "host"],
    buckets: durationBuckets,
  });
  return {
    observe: ({ method, host, code, durationSeconds }) => {
      requests.inc({ code: String(code), method, host });
      duration.observe({ verb: method, host }, durationSeconds);
    },
  };
}
