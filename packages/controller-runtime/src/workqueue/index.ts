/** @module controller-runtime/workqueue */
// workqueue: the keyed work queue between event handlers and reconcilers. It holds keys only,
// merges duplicates, never hands one key to two workers at once, and supports delays, rate-limited
// retries and priorities (controller-runtime's priority queue, plus aging), with client-go's metrics.
export type { HistogramRecorder } from "./batched-histogram.js";
export { BatchedHistogram } from "./batched-histogram.js";
export type { Clock, TimerHandle } from "./clock.js";
export { realClock } from "./clock.js";
export type { FakeClock } from "./fake-clock.js";
export { newFakeClock } from "./fake-clock.js";
export type {
  CounterMetric,
  DepthMetric,
  HistogramMetric,
  WorkqueueMetricsProvider,
} from "./metrics.js";
export { noopMetricsProvider } from "./metrics.js";
export { prometheusWorkqueueMetrics } from "./prometheus-metrics.js";
export type { AddOptions, GetResult, PriorityQueue, PriorityQueueOptions } from "./priority-queue.js";
export { LowPriority } from "./priority-queue.js";
export { newPriorityQueue } from "./queue.js";
export { newRateLimitingQueue } from "./rate-limiting-queue.js";
export type {
  BucketOptions,
  DefaultControllerRateLimiterOptions,
  ExponentialFailureOptions,
  RateLimiter,
} from "./rate-limiter.js";
export {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  maxOfRateLimiter,
} from "./rate-limiter.js";
// Deprecated names, kept for one release.
export { createFakeClock } from "./deprecated.js";
