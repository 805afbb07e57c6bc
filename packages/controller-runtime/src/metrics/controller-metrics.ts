// controller-runtime's controller metrics (pkg/internal/controller/metrics): same names, help,
// labels and buckets, so existing dashboards and alerts work unchanged.
import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import { BatchedHistogram, type HistogramRecorder } from "../workqueue/index.js";
import { getOrCreateCounter, getOrCreateGauge, getOrCreateHistogram } from "./registry.js";

/** The `result` label of `controller_runtime_reconcile_total`. */
export type ReconcileResultLabel = "success" | "error" | "requeue" | "requeue_after";

const reconcileResults: readonly ReconcileResultLabel[] = ["error", "requeue", "requeue_after", "success"];

export interface ControllerMetrics {
  /** `controller_runtime_reconcile_total{controller,result}` */
  readonly reconcileTotal: Counter<"controller" | "result">;
  /** `controller_runtime_reconcile_errors_total{controller}` */
  readonly reconcileErrors: Counter<"controller">;
  /** `controller_runtime_terminal_reconcile_errors_total{controller}` */
  readonly terminalReconcileErrors: Counter<"controller">;
  /** `controller_runtime_reconcile_panics_total{controller}`: reconcilers that threw unexpectedly. */
  readonly reconcilePanics: Counter<"controller">;
  /** `controller_runtime_reconcile_time_seconds{controller}` */
  readonly reconcileTime: Histogram<"controller">;
  /** `controller_runtime_reconcile_timeouts_total{controller}` */
  readonly reconcileTimeouts: Counter<"controller">;
  /** `controller_runtime_max_concurrent_reconciles{controller}` */
  readonly maxConcurrentReconciles: Gauge<"controller">;
  /** `controller_runtime_active_workers{controller}` */
  readonly activeWorkers: Gauge<"controller">;
  /**
   * Sets every series of `controller` to its starting value (counters to 0, the worker gauges),
   * as controller-runtime does when a controller starts, so rates exist before the first event.
   */
  initialize(controller: string, maxConcurrentReconciles: number): void;
  /**
   * Observes `reconcile_time_seconds` for `controller` without prom-client's per-call label
   * hashing (~0.3-0.5 µs): counts are added to the histogram when it is read.
   */
  reconcileTimeRecorder(controller: string): HistogramRecorder;
  /**
   * The counts a reconcile updates (`reconcile_total` by result, `active_workers`) for
   * `controller`, kept in plain numbers and added to the series when the registry is read, again
   * without the per-call label hashing. Series made by {@link initialize} are unaffected.
   */
  reconcileCounts(controller: string): ReconcileCounts;
}

/** A count that grows (or, for a gauge, moves) by whole steps between reads. */
export interface Count {
  inc(): void;
  dec(): void;
}

export interface ReconcileCounts {
  readonly results: Readonly<Record<ReconcileResultLabel, Count>>;
  readonly activeWorkers: Count;
}

/** Deltas per series since the last read of their metric. */
class PendingDeltas<L extends string> {
  readonly #series: Array<{ labels: Partial<Record<L, string>>; delta: number }> = [];

  count(labels: Partial<Record<L, string>>): Count {
    const s = { labels, delta: 0 };
    this.#series.push(s);
    return {
      inc: () => {
        s.delta++;
      },
      dec: () => {
        s.delta--;
      },
    };
  }

  flushInto(metric: { inc(labels: Partial<Record<L, string>>, value: number): void }): void {
    for (const s of this.#series) {
      if (s.delta === 0) continue;
      metric.inc(s.labels, s.delta);
      s.delta = 0;
    }
  }
}

/** The pending deltas of one registry's controller metrics, shared by every controller on it. */
const pendingByRegistry = new WeakMap<
  Registry,
  { total: PendingDeltas<"controller" | "result">; active: PendingDeltas<"controller"> }
>();

// controller-runtime's buckets for controller_runtime_reconcile_time_seconds.
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25,
  1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

/** The controller metrics on `registry`; each is registered once, later calls return the same. */
export function controllerMetrics(registry: Registry): ControllerMetrics {
  let pending = pendingByRegistry.get(registry);
  if (pending === undefined) {
    pending = { total: new PendingDeltas(), active: new PendingDeltas() };
    pendingByRegistry.set(registry, pending);
  }
  const { total, active } = pending;
  const perController = (name: string, help: string) =>
    getOrCreateCounter(registry, { name, help, labelNames: ["controller"] });
  const m = {
    reconcileTotal: getOrCreateCounter(registry, {
      name: "controller_runtime_reconcile_total",
      help: "Total number of reconciliations per controller",
      labelNames: ["controller", "result"],
      collect: flushing(total),
    }),
    reconcileErrors: perController(
      "controller_runtime_reconcile_errors_total",
      "Total number of reconciliation errors per controller",
    ),
    terminalReconcileErrors: perController(
      "controller_runtime_terminal_reconcile_errors_total",
      "Total number of terminal reconciliation errors per controller",
    ),
    reconcilePanics: perController(
      "controller_runtime_reconcile_panics_total",
      "Total number of reconciliation panics per controller",
    ),
    reconcileTime: reconcileTimeHistogram(registry),
    reconcileTimeouts: perController(
      "controller_runtime_reconcile_timeouts_total",
      "Total number of reconciliation timeouts per controller",
    ),
    maxConcurrentReconciles: getOrCreateGauge(registry, {
      name: "controller_runtime_max_concurrent_reconciles",
      help: "Maximum number of concurrent reconciles per controller",
      labelNames: ["controller"],
    }),
    activeWorkers: getOrCreateGauge(registry, {
      name: "controller_runtime_active_workers",
      help: "Number of currently used workers per controller",
      labelNames: ["controller"],
      collect: flushing(active),
    }),
  };
  return {
    ...m,
    initialize(controller: string, maxConcurrentReconciles: number): void {
      for (const result of reconcileResults) m.reconcileTotal.inc({ controller, result }, 0);
      m.reconcileErrors.inc({ controller }, 0);
      m.terminalReconcileErrors.inc({ controller }, 0);
      m.reconcilePanics.inc({ controller }, 0);
      m.reconcileTimeouts.inc({ controller }, 0);
      m.maxConcurrentReconciles.set({ controller }, maxConcurrentReconciles);
      m.activeWorkers.set({ controller }, 0);
    },
    reconcileTimeRecorder(controller: string): HistogramRecorder {
      const h = m.reconcileTime;
      if (h instanceof BatchedHistogram) return h.recorder({ controller });
      return { observe: (seconds) => h.observe({ controller }, seconds) };
    },
    reconcileCounts(controller: string): ReconcileCounts {
      const result = (r: ReconcileResultLabel) => total.count({ controller, result: r });
      return {
        results: {
          success: result("success"),
          error: result("error"),
          requeue: result("requeue"),
          requeue_after: result("requeue_after"),
        },
        activeWorkers: active.count({ controller }),
      };
    },
  };
}

/**
 * The `collect` hook (prom-client calls it on every read of the metric) that adds `pending`'s
 * deltas first. Only the metric created first in a registry keeps its hook; every later
 * controllerMetrics() call on that registry shares the same deltas, so that one hook flushes all.
 */
function flushing<L extends string>(
  pending: PendingDeltas<L>,
): (this: { inc(labels: Partial<Record<L, string>>, value: number): void }) => void {
  return function () {
    pending.flushInto(this);
  };
}
/** The reconcile-time histogram, batched when this module creates it (see BatchedHistogram). */
function reconcileTimeHistogram(registry: Registry): Histogram<"controller"> {
  const spec = {
    name: "controller_runtime_reconcile_time_seconds",
    help: "Length of time per reconciliation per controller",
    labelNames: ["controller"] as const,
    buckets: reconcileTimeBuckets,
  };
  if (registry.getSingleMetric(spec.name) !== undefined) return getOrCreateHistogram(registry, spec);
  return new BatchedHistogram({ ...spec, buckets: [...spec.buckets], registers: [registry] });
}
