// The work queue metrics on a prom-client Registry, with controller-runtime's names, labels and
// buckets (pkg/internal/metrics/workqueue.go), so existing dashboards and alerts work unchanged.
import { Counter, exponentialBuckets, Gauge, type Registry } from "prom-client";
import { BatchedHistogram } from "./batched-histogram.js";
import type { CounterMetric, DepthMetric, HistogramMetric, WorkqueueMetricsProvider } from "./metrics.js";

// controller-runtime's buckets: 10 ns to 1000 s, ×10 per bucket.
const durationBuckets = exponentialBuckets(10e-9, 10, 12);

/** Adds of one queue, kept in a plain number and added to the counter on each scrape. */
class PendingCount implements CounterMetric {
  n = 0;
  constructor(readonly name: string) {}
  inc(): void {
    this.n++;
  }
}

/** controller-runtime's cap on the `priority` values of one queue's `workqueue_depth` (v0.23). */
export const maxDepthPriorities = 25;
/** The `priority` label of a queue's depth once it saw more than {@link maxDepthPriorities}. */
export const exceededCardinalityLabel = "exceeded_cardinality_limit";

/**
 * Depth of one queue per priority, set on the gauge on each scrape. Past 25 distinct priorities
 * (priorities computed from object fields, say) the depth is reported under one label,
 * `exceeded_cardinality_limit`, as controller-runtime does; unlike Go, the depths counted so far
 * move there too, so the series still add up to the queue's depth.
 */
class DepthByPriority implements DepthMetric {
  readonly values = new Map<number | typeof exceededCardinalityLabel, number>();
  #exceeded = false;
  /**
   * The depth of the priority updated last, not yet in `values`: a queue's keys mostly share one
   * priority, and three map operations per update cost more than the queue's own work.
   */
  #lastKey: number | typeof exceededCardinalityLabel | undefined = undefined;
  #lastValue = 0;
  constructor(readonly name: string) {}
  /** Writes the cached depth back to `values` (before `collect` reads them). */
  flush(): void {
    if (this.#lastKey !== undefined) this.values.set(this.#lastKey, this.#lastValue);
  }
  #key(priority: number): number | typeof exceededCardinalityLabel {
    if (this.#exceeded) return exceededCardinalityLabel;
    if (this.values.has(priority) || this.values.size < maxDepthPriorities) return priority;
    this.#exceeded = true;
    let sum = 0;
    for (const [k, v] of this.values) {
      sum += v;
      this.values.set(k, 0);
    }
    this.values.set(exceededCardinalityLabel, sum);
    return exceededCardinalityLabel;
  }
  #add(priority: number, delta: number): void {
    if (priority === this.#lastKey) {
      this.#lastValue += delta;
      return;
    }
    if (this.#exceeded && this.#lastKey === exceededCardinalityLabel) {
      this.#lastValue += delta;
      return;
    }
    this.flush();
    const key = this.#key(priority);
    // #key may have moved every depth under the exceeded label: read back what it holds now.
    this.#lastKey = key;
    this.#lastValue = (this.values.get(key) ?? 0) + delta;
    this.values.set(key, this.#lastValue);
  }
  inc(priority: number): void {
    this.#add(priority, 1);
  }
  dec(priority: number): void {
    this.#add(priority, -1);
  }
}

/** Per queue name, the sum (or the maximum) of what several queues of that name report. */
function combine(
  parts: Iterable<[name: string, value: number]>,
  op: (a: number, b: number) => number,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, value] of parts) {
    const prev = out.get(name);
    out.set(name, prev === undefined ? value : op(prev, value));
  }
  return out;
}

/**
 * A metrics provider registering `workqueue_*` metrics on `registry`. Create one per registry and
 * share it between queues: the metric names can be registered only once. Every metric carries the
 * labels `name` and `controller` (both the queue's name, as controller-runtime sets them);
 * `workqueue_depth` also `priority`. Queues sharing a name add up.
 *
 * prom-client hashes the label set on every update, which would cost more than the queue operation
 * itself; so counts and depths are kept in plain numbers and handed to prom-client in `collect()`,
 * which runs on each scrape, as do the two unfinished-work gauges. The two histograms count into
 * plain arrays too, added to the series on each read (batched-histogram.ts).
 */
export function prometheusWorkqueueMetrics(registry: Registry): WorkqueueMetricsProvider {
  // By queue name: a queue made again under the same name (a controller restarted) shares its
  // series, as Go's WithLabelValues does, and nothing grows with restarts.
  const adds = new Map<string, PendingCount>();
  const retries = new Map<string, PendingCount>();
  const depths = new Map<string, DepthByPriority>();
  // Held weakly: the queue keeps its samplers alive, and a dropped queue takes them along.
  const unfinished = new Samplers();
  const longest = new Samplers();
  const registers = [registry];
  const m = registerAll(() => ({
    depth: new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue by workqueue and priority",
      labelNames: ["name", "controller", "priority"] as const,
      registers,
      collect() {
        const parts: [string, number][] = [];
        for (const d of depths.values()) {
          d.flush();
          for (const [priority, value] of d.values) parts.push([`${d.name}\u0000${priority}`, value]);
        }
        for (const [key, value] of combine(parts, (a, b) => a + b)) {
          const [name = "", priority = ""] = key.split("\u0000");
          this.set({ name, controller: name, priority }, value);
        }
      },
    }),
    adds: new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name", "controller"] as const,
      registers,
      collect() {
        flush(this, adds.values());
      },
    }),
    latency: new BatchedHistogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames: ["name", "controller"] as const,
      buckets: durationBuckets,
      registers,
    }),
    workDuration: new BatchedHistogram({
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
        const totals = combine(unfinished.sample(), (a, b) => a + b);
        for (const [name, value] of totals) this.set({ name, controller: name }, value);
      },
    }),
    longest: new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames: ["name", "controller"] as const,
      registers,
      collect() {
        const oldest = combine(longest.sample(), Math.max);
        for (const [name, value] of oldest) this.set({ name, controller: name }, value);
      },
    }),
    retries: new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name", "controller"] as const,
      registers,
      collect() {
        flush(this, retries.values());
      },
    }),
  }));

  return {
    newDepthMetric(name): DepthMetric {
      let d = depths.get(name);
      if (d === undefined) {
        d = new DepthByPriority(name);
        depths.set(name, d);
      }
      return d;
    },
    // Series start at zero when the queue is created, as Go's WithLabelValues does, so that
    // rate() and absent() see them before the first event.
    newAddsMetric(name): CounterMetric {
      m.adds.inc({ name, controller: name }, 0);
      return pendingCount(adds, name);
    },
    newLatencyMetric(name): HistogramMetric {
      return m.latency.recorder({ name, controller: name });
    },
    newWorkDurationMetric(name): HistogramMetric {
      return m.workDuration.recorder({ name, controller: name });
    },
    newUnfinishedWorkSecondsMetric(name, sample) {
      unfinished.add(name, sample);
    },
    newLongestRunningProcessorSecondsMetric(name, sample) {
      longest.add(name, sample);
    },
    newRetriesMetric(name): CounterMetric {
      m.retries.inc({ name, controller: name }, 0);
      return pendingCount(retries, name);
    },
  };
}

function pendingCount(byName: Map<string, PendingCount>, name: string): PendingCount {
  let c = byName.get(name);
  if (c === undefined) {
    c = new PendingCount(name);
    byName.set(name, c);
  }
  return c;
}

/** Samplers of live queues, held weakly; dead ones are dropped when sampled or when one is added. */
class Samplers {
  #refs: [string, WeakRef<() => number>][] = [];
  /** Every name sampled once: a name whose queues are all gone reads 0, not its last value. */
  readonly #names = new Set<string>();

  add(name: string, sample: () => number): void {
    this.#prune();
    this.#names.add(name);
    this.#refs.push([name, new WeakRef(sample)]);
  }

  /** [queue name, 0] for every name, then [queue name, value] of each live sampler. */
  sample(): [string, number][] {
    const out: [string, number][] = [...this.#names].map((name) => [name, 0]);
    for (const [name, ref] of this.#refs) {
      const sample = ref.deref();
      if (sample !== undefined) out.push([name, sample()]);
    }
    this.#prune();
    return out;
  }

  #prune(): void {
    this.#refs = this.#refs.filter(([, ref]) => ref.deref() !== undefined);
  }
}

/** Adds the counts gathered since the last scrape to `counter`. */
function flush(counter: Counter<"name" | "controller">, pending: Iterable<PendingCount>): void {
  for (const c of pending) {
    if (c.n === 0) continue;
    counter.inc({ name: c.name, controller: c.name }, c.n);
    c.n = 0;
  }
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
