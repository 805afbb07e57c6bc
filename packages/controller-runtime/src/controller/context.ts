// ControllerContext: what a controller needs from its Manager. The Manager passes itself; tests and
// programs without a Manager build one with `newControllerContext`.
import type { Registry } from "prom-client";
import { type Logger, nullLogger } from "../log/index.js";
import { prometheusWorkqueueMetrics, type WorkqueueMetricsProvider } from "../workqueue/index.js";

/** Defaults the Manager sets for all its controllers; a controller's own options win. */
export interface ControllerDefaults {
  maxConcurrentReconciles?: number;
  /**
   * `maxConcurrentReconciles` of the builder's controllers by the group and kind they are `for`,
   * keyed as Go's GroupKind strings (`ReplicaSet.apps`, `ConfigMap` for the core group,
   * `Widget.example.com`), where the controller's options set none (controller-runtime's
   * `GroupKindConcurrency`). Default: none.
   */
  groupKindConcurrency?: Readonly<Record<string, number>>;
  cacheSyncTimeoutMs?: number;
  /**
   * Queue requests by priority (initial lists and resyncs after real changes), as
   * controller-runtime does by default since v0.23; false gives the plain FIFO rate-limited queue
   * (`newRateLimitingQueue`), as Go's `UsePriorityQueue: false`. Default: true.
   */
  usePriorityQueue?: boolean;
  recoverPanic?: boolean;
  needLeaderElection?: boolean;
  enableWarmup?: boolean;
  skipNameValidation?: boolean;
  reconciliationTimeoutMs?: number;
  slowReconcileWarningMs?: number;
  /** @deprecated Use `cacheSyncTimeoutMs` (durations are named with their unit); removed in the next release. */
  cacheSyncTimeout?: number;
  /** @deprecated Use `reconciliationTimeoutMs`; removed in the next release. */
  reconciliationTimeout?: number;
  /** @deprecated Use `slowReconcileWarningMs`; removed in the next release. */
  slowReconcileWarning?: number;
}

/** A Runnable, as the Manager runs it. */
export interface ControllerRunnable {
  start(signal: AbortSignal): Promise<void>;
  needLeaderElection?(): boolean;
}

/** What `newController` needs from the Manager. */
export interface ControllerContext {
  /** The parent of every controller logger (which adds `controller` and more). Default: nullLogger(). */
  readonly logger?: Logger;
  /** Where the `controller_runtime_*` metrics go. Default: none are recorded. */
  readonly metricsRegistry?: Registry;
  /**
   * Where the `workqueue_*` metrics go: one provider per registry, shared by every controller
   * (the metric names can be registered once). Default: none are recorded.
   */
  readonly workqueueMetrics?: WorkqueueMetricsProvider;
  /** Defaults for options a controller leaves unset (the Manager's `controller` options). Default: none. */
  readonly controllerDefaults?: ControllerDefaults;
  /**
   * Names of the controllers made with this context, so that two controllers cannot share a name
   * (and their metrics) unless `skipNameValidation` is set. Default: names are not checked.
   */
  readonly controllerNames?: Set<string>;
  /** Runs the controller (the Manager's `add`); called by `newController`, not `newUnmanagedController`. */
  add?(runnable: ControllerRunnable): void;
}

/** Options of {@link newControllerContext}. */
export interface NewControllerContextOptions {
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Also registers the workqueue metrics on it. Default: no metrics. */
  metricsRegistry?: Registry;
  /** Default: none. */
  controllerDefaults?: ControllerDefaults;
}

/**
 * A context for controllers run without a Manager (tests, small programs): it checks names and,
 * given a registry, records the controller and workqueue metrics on it. Make one per registry.
 */
export function newControllerContext(options: NewControllerContextOptions = {}): ControllerContext {
  const registry = options.metricsRegistry;
  return {
    logger: options.logger ?? nullLogger(),
    metricsRegistry: registry,
    workqueueMetrics: registry === undefined ? undefined : prometheusWorkqueueMetrics(registry),
    controllerDefaults: options.controllerDefaults,
    controllerNames: new Set(),
  };
}
