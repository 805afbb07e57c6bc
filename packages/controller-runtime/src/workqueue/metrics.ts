// What the queue reports, as client-go's workqueue.MetricsProvider does, so that any metrics
// library can sit behind it. The Prometheus implementation is prometheus-metrics.ts; the default
// reports nothing.

/** Queue depth. controller-runtime labels depth by priority, so the priority is passed along. */
export interface DepthMetric {
  inc(priority: number): void;
  dec(priority: number): void;
}

export interface CounterMetric {
  inc(): void;
}

/** Observations in seconds. */
export interface HistogramMetric {
  observe(seconds: number): void;
}

/**
 * Creates the metrics of one queue, named `name`. The two "unfinished work" gauges are sampled
 * rather than pushed: the provider calls `sample()` whenever it wants a fresh value (the
 * Prometheus provider does so on each scrape), so no timer runs. client-go instead pushes them
 * every 500 ms. The queue keeps each `sample` alive as long as the queue lives; a provider should
 * hold it weakly (a `WeakRef`), so that queues of stopped controllers are collected.
 */
export interface WorkqueueMetricsProvider {
  /** Keys waiting to be handed out (ready, or ready but still being processed). */
  newDepthMetric(name: string): DepthMetric;
  /** Keys entering the queue (a key merged into one already waiting is not counted). */
  newAddsMetric(name: string): CounterMetric;
  /** Seconds from a key becoming ready to being handed out by `get`. */
  newLatencyMetric(name: string): HistogramMetric;
  /** Seconds from `get` to `done`. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** Sum of the seconds that keys handed out and not yet done have been processed. */
  newUnfinishedWorkSecondsMetric(name: string, sample: () => number): void;
  /** Seconds the longest-running key handed out and not yet done has been processed. */
  newLongestRunningProcessorSecondsMetric(name: string, sample: () => number): void;
  /** Adds with a delay (addAfter, addRateLimited). */
  newRetriesMetric(name: string): CounterMetric;
}

const noop = { inc() {}, dec() {}, observe() {} };

/** The default provider: reports nothing, costs nothing. */
export const noopMetricsProvider: WorkqueueMetricsProvider = Object.freeze({
  newDepthMetric: () => noop,
  newAddsMetric: () => noop,
  newLatencyMetric: () => noop,
  newWorkDurationMetric: () => noop,
  newUnfinishedWorkSecondsMetric() {},
  newLongestRunningProcessorSecondsMetric() {},
  newRetriesMetric: () => noop,
});

/** The metrics of one queue, bound at construction. Internal to the workqueue folder. */
export interface QueueMetrics {
  readonly depth: DepthMetric;
  readonly adds: CounterMetric;
  readonly latency: HistogramMetric;
  readonly workDuration: HistogramMetric;
  readonly retries: CounterMetric;
  /** The samplers handed to the provider, kept alive by the queue (the provider holds them weakly). */
  readonly samplers: readonly (() => number)[];
}

/**
 * Binds `provider`'s metrics for a queue named `name`; `forEachProcessing` calls its visitor with
 * the time (ms on `now`'s scale) each key being processed was handed out, and runs on each sample.
 */
export function bindQueueMetrics(
  provider: WorkqueueMetricsProvider,
  name: string,
  forEachProcessing: (visit: (since: number) => void) => void,
  now: () => number,
): QueueMetrics {
  const unfinished = () => {
    const t = now();
    let total = 0;
    forEachProcessing((since) => {
      total += t - since;
    });
    return total / 1000;
  };
  const longest = () => {
    const t = now();
    let oldest = 0;
    forEachProcessing((since) => {
      oldest = Math.max(oldest, t - since);
    });
    return oldest / 1000;
  };
  provider.newUnfinishedWorkSecondsMetric(name, unfinished);
  provider.newLongestRunningProcessorSecondsMetric(name, longest);
  return {
    samplers: [unfinished, longest],
    depth: provider.newDepthMetric(name),
    adds: provider.newAddsMetric(name),
    latency: provider.newLatencyMetric(name),
    workDuration: provider.newWorkDurationMetric(name),
    retries: provider.newRetriesMetric(name),
  };
}
