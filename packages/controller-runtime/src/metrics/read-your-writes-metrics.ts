// Metrics of the client's read-your-writes (beyond controller-runtime): how long cached reads
// waited for the informer to see this process's own writes, and how often it never did in time.
import type { Registry } from "prom-client";
import { getOrCreateCounter, getOrCreateHistogram } from "./registry.js";

export interface ReadYourWritesMetrics {
  /** A cached read of `kind` waited `seconds` for writes it had to see. */
  waited(kind: string, seconds: number): void;
  /** A cached read of `kind` gave up waiting (a `StaleCacheError`). */
  timedOut(kind: string): void;
}

const waitBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * `controller_runtime_client_read_your_writes_wait_seconds{kind}` and
 * `controller_runtime_client_read_your_writes_timeouts_total{kind}` on `registry`.
 */
export function readYourWritesMetrics(registry: Registry): ReadYourWritesMetrics {
  const wait = getOrCreateHistogram(registry, {
    name: "controller_runtime_client_read_your_writes_wait_seconds",
    help: "How long cached reads waited for the cache to see writes made through the client.",
    labelNames: ["kind"],
    buckets: waitBuckets,
  });
  const timeouts = getOrCreateCounter(registry, {
    name: "controller_runtime_client_read_your_writes_timeouts_total",
    help: "Cached reads that gave up waiting for the cache to see writes made through the client.",
    labelNames: ["kind"],
  });
  return {
    waited: (kind, seconds) => wait.observe({ kind }, seconds),
    timedOut: (kind) => timeouts.inc({ kind }),
  };
}
