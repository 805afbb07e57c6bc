// The per-manager Prometheus registry, and get-or-create for the metrics defined on it. There is
// no global registry: two managers in one process (tests do this) must not share or clash.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

let processMetrics: Registry | undefined;

/**
 * A new registry holding Node's process metrics (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `nodejs_eventloop_lag_seconds`, `nodejs_gc_duration_seconds`,
 * ...), the counterpart of the Go process collector that controller-runtime registers.
 * They describe the process, so every registry shares one set: prom-client's collectors start an
 * event-loop-delay monitor and a GC observer that live as long as the process, and one set per
 * manager made every GC call back once per manager ever created (tests make hundreds).
 */
export function newMetricsRegistry(): Registry {
  if (processMetrics === undefined) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return Registry.merge([processMetrics, new Registry()]);
}

/** A metric already in the registry has another type or other labels than the one asked for. */
export class MetricConflictError extends Error {
  override readonly name = "MetricConflictError";
  readonly code = "ERR_METRIC_CONFLICT";
}

interface MetricSpec<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
}

/** The counter `spec.name` in `registry`, created and registered on first use. */
export function getOrCreateCounter<L extends string>(
  registry: Registry,
  spec: MetricSpec<L> & { collect?: (this: Counter<L>) => void },
): Counter<L> {
  return getOrCreate(registry, spec, Counter, () => new Counter({ ...spec, registers: [registry] }));
}

/** The gauge `spec.name` in `registry`, created and registered on first use. */
export function getOrCreateGauge<L extends string>(
  registry: Registry,
  spec: MetricSpec<L> & { collect?: (this: Gauge<L>) => void },
): Gauge<L> {
  return getOrCreate(registry, spec, Gauge, () => new Gauge({ ...spec, registers: [registry] }));
}

/** The histogram `spec.name` in `registry`, created and registered on first use. */
export function getOrCreateHistogram<L extends string>(
  registry: Registry,
  spec: MetricSpec<L> & { buckets: readonly number[] },
): Histogram<L> {
  return getOrCreate(
    registry,
    spec,
    Histogram,
    () => new Histogram({ ...spec, buckets: [...spec.buckets], registers: [registry] }),
  );
}

function getOrCreate<L extends string, M>(
  registry: Registry,
  spec: MetricSpec<L>,
  type: abstract new (...args: never[]) => M,
  create: () => M,
): M {
  const existing = registry.getSingleMetric(spec.name);
  if (existing === undefined) return create();
  // prom-client keeps the label names on the instance but does not declare them.
  const labels = (existing as unknown as { labelNames?: readonly string[] }).labelNames ?? [];
  if (!(existing instanceof type) || !sameSet(labels, spec.labelNames)) {
    throw new MetricConflictError(
      `metric ${spec.name} is already registered as a ${existing.constructor.name} with labels ` +
        `[${labels.join(", ")}]; wanted a ${type.name} with labels [${spec.labelNames.join(", ")}]`,
    );
  }
  return existing;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
