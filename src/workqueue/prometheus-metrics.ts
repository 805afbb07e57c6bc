// The work queue metrics on a prom-client Registry, with controller-runtime's names, labels and
// buckets (pkg/internal/metrics/workqueue.go), so existing dashboards and alerts work unchanged.
import { Counter, exponentialBuckets, Gauge, Histogram, type Registry } from "prom-client";
import type { CounterMetric, DepthMetric, HistogramMetric, WorkqueueMetricsProvider } from "./metrics.js";

// controller-runtime's buckets: 10 ns to 1000 s, ×10 per bucket.
const durationBuckets = exponentialBuckets(10e-9, 10, 12);

/**
 * A metrics provider registering `workqueue_*` metrics on `registry`. Create one per registry and
 * share it between queues: the metric names can be registered only once. Every metric carries the
 * labels `name` and `controller` (both the queue's name, as controller-runtime sets them);
 * `workqueue_depth` also `priority`. The two unfinished-work gauges are computed on each scrape.
 */
export function prometheusWorkqueueMetrics(registry: Registry): WorkqueueMetricsProvider {
  // Sampled gauges: the latest queue registered under a name wins (a restarted controller
  // replaces its predecessor).
  const unfinishedSamplers = new Map<string, () => number>();
  const longestSamplers = new Map<string, () => number>();
  const registers = [registry];
  const m = registerAll(() => ({
    depth: new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue by workqueue and priority",
      labelNames: ["name", "controller", "priority"] as const,
      registers,
    }),
    adds: new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name", "controller"] as const,
      registers,
    }),
    latency: new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: ["name", "controller"] as const,
      buckets: durationBuckets,
      registers,
    }),
    workDuration: new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames: ["name", "controller"] as const,
      buckets: durationBuckets,
      registers,
    }),
    unfinished: new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help:
        "How many seconds of work has been done that is in progress and hasn't been observed by " +
        "work_duration. Large values indicate stuck threads. One can deduce the number of stuck " +
        "threads by observing the rate at which this increases.",
      labelNames: ["name", "controller"] as const,
      registers,
      collect() {
        for (const [name, sample] of unfinishedSamplers) this.set({ name, controller: name }, sample());
      },
    }),
    longest: new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames: ["name", "controller"] as const,
      registers,
      collect() {
        for (const [name, sample] of longestSamplers) this.set({ name, controller: name }, sample());
      },
    }),
    retries: new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name", "controller"] as const,
      registers,
    }),
  }));

  return {
    newDepthMetric(name): DepthMetric {
      // One child per priority, cached: looking labels up on every add and get would cost more
      // than the queue operation itself.
      const children = new Map<number, { inc(): void; dec(): void }>();
      const child = (priority: number) => {
        let c = children.get(priority);
        if (c === undefined) {
          c = m.depth.labels(name, name, String(priority));
          children.set(priority, c);
        }
        return c;
      };
      return { inc: (p) => child(p).inc(), dec: (p) => child(p).dec() };
    },
    // Series start at zero when the queue is created, as Go's WithLabelValues does, so that
    // rate() and absent() see them before the first event.
    newAddsMetric(name): CounterMetric {
      m.adds.inc({ name, controller: name }, 0);
      return m.adds.labels(name, name);
    },
    newLatencyMetric(name): HistogramMetric {
      m.latency.zero({ name, controller: name });
      return m.latency.labels(name, name);
    },
    newWorkDurationMetric(name): HistogramMetric {
      m.workDuration.zero({ name, controller: name });
      return m.workDuration.labels(name, name);
    },
    newUnfinishedWorkSecondsMetric(name, sample) {
      unfinishedSamplers.set(name, sample);
    },
    newLongestRunningProcessorSecondsMetric(name, sample) {
      longestSamplers.set(name, sample);
    },
    newRetriesMetric(name): CounterMetric {
      m.retries.inc({ name, controller: name }, 0);
      return m.retries.labels(name, name);
    },
  };
}

function registerAll<T>(create: () => T): T {
  try {
    return create();
  } catch (err) {
    if (err instanceof Error && err.message.includes("already been registered")) {
      throw new Error(
        `prometheusWorkqueueMetrics: the workqueue metrics are already registered on this registry ` +
          `(${err.message}); create one provider per registry and pass it to every queue`,
        { cause: err },
      );
    }
    throw err;
  }
}
