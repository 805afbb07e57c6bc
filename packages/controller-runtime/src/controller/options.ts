// Controller options and their defaults, resolved in one place (controller-runtime's
// `NewTypedUnmanaged` defaulting).
import { nullLogger } from "../log/index.js";
import type { Reconciler, Request, RequestCodec } from "../reconcile/index.js";
import { requestCodec } from "../reconcile/index.js";
import {
  defaultControllerRateLimiter,
  newPriorityQueue,
  newRateLimitingQueue,
  type PriorityQueue,
  type RateLimiter,
} from "../workqueue/index.js";
import type { ControllerContext, ControllerDefaults } from "./context.js";
import { InvalidControllerOptionsError } from "./errors.js";
import { type LogConstructor, newLogConstructor } from "./log-constructor.js";

/** Options of `newController`. */
export interface ControllerOptions<Req = Request> extends ControllerDefaults {
  /** The user's logic. Required. */
  reconciler: Reconciler<Req>;
  /**
   * Reconciles running at once (never two for the same request).
   * Default: the context's default, else 1.
   */
  maxConcurrentReconciles?: number;
  /** Milliseconds to wait for each source to start and sync. Default: the context's default, else 120_000. */
  cacheSyncTimeoutMs?: number;
  /**
   * Recover from "panics" (throws of non-Errors, TypeErrors, ReferenceErrors): count them in
   * `controller_runtime_reconcile_panics_total` and retry with backoff. When false, the controller
   * stops and `start` rejects with what was thrown. Default: the context's default, else true.
   */
  recoverPanic?: boolean;
  /** Run only on the leader. Default: the context's default, else true. */
  needLeaderElection?: boolean;
  /**
   * Start the sources (and so the informers) on non-leaders too, through `warmup`, so that a new
   * leader starts with warm caches. Default: the context's default, else false.
   */
  enableWarmup?: boolean;
  /** Allow a name already used in this context. Default: the context's default, else false. */
  skipNameValidation?: boolean;
  /**
   * Milliseconds after which a reconcile's signal aborts (counted in
   * `controller_runtime_reconcile_timeouts_total`); 0 for none. Default: the context's default, else 0.
   */
  reconciliationTimeoutMs?: number;
  /**
   * Milliseconds after which a reconcile still running is logged ("Reconcile is taking long",
   * with the request, reconcileID and how long), and again each time as long again passes;
   * 0 for never. Default: the context's default, else 60_000.
   */
  slowReconcileWarningMs?: number;
  /** Delays of retries. Default: `defaultControllerRateLimiter()` (5 ms → 1000 s per key, 10 qps overall). */
  rateLimiter?: RateLimiter<string>;
  /**
   * Makes the work queue when the controller starts.
   * Default: `newPriorityQueue({ name, rateLimiter, metricsProvider: ctx.workqueueMetrics })`, or
   * `newRateLimitingQueue(...)` with `usePriorityQueue: false`.
   */
  newQueue?: (controllerName: string, rateLimiter: RateLimiter<string>) => PriorityQueue<string>;
  /**
   * Loggers for the controller (`undefined`) and for each request.
   * Default: the context's logger with `controller`, and `namespace` and `name` for a request.
   */
  logConstructor?: LogConstructor<Req>;
  /** Work queue keys of requests. Default: `requestCodec` (`namespace/name`); required for other request types. */
  requestCodec?: RequestCodec<Req>;
}

/** Every option resolved. */
export interface ResolvedControllerOptions<Req> {
  reconciler: Reconciler<Req>;
  maxConcurrentReconciles: number;
  cacheSyncTimeoutMs: number;
  recoverPanic: boolean;
  needLeaderElection: boolean;
  enableWarmup: boolean;
  skipNameValidation: boolean;
  reconciliationTimeoutMs: number;
  slowReconcileWarningMs: number;
  rateLimiter: RateLimiter<string>;
  newQueue: (controllerName: string, rateLimiter: RateLimiter<string>) => PriorityQueue<string>;
  logConstructor: LogConstructor<Req>;
  requestCodec: RequestCodec<Req>;
}

/** Applies the defaults: the options, then the context's defaults, then controller-runtime's. */
export function resolveControllerOptions<Req>(
  name: string,
  ctx: ControllerContext,
  o: ControllerOptions<Req>,
): ResolvedControllerOptions<Req> {
  const d = ctx.controllerDefaults ?? {};
  if (typeof o.reconciler?.reconcile !== "function") {
    throw new InvalidControllerOptionsError(
      `controller ${JSON.stringify(name)}: options.reconciler is required (an object with a reconcile method)`,
    );
  }
  const positive = (v: number | undefined) => (v !== undefined && v > 0 ? v : undefined);
  const maxConcurrentReconciles =
    positive(o.maxConcurrentReconciles) ?? positive(d.maxConcurrentReconciles) ?? 1;
  if (!Number.isInteger(maxConcurrentReconciles)) {
    throw new InvalidControllerOptionsError(
      `controller ${JSON.stringify(name)}: maxConcurrentReconciles must be a whole number, got ${maxConcurrentReconciles}`,
    );
  }
  const rateLimiter = o.rateLimiter ?? defaultControllerRateLimiter<string>();
  return {
    reconciler: o.reconciler,
    maxConcurrentReconciles,
    cacheSyncTimeoutMs:
      positive(o.cacheSyncTimeoutMs ?? o.cacheSyncTimeout) ??
      positive(d.cacheSyncTimeoutMs ?? d.cacheSyncTimeout) ??
      120_000,
    recoverPanic: o.recoverPanic ?? d.recoverPanic ?? true,
    needLeaderElection: o.needLeaderElection ?? d.needLeaderElection ?? true,
    enableWarmup: o.enableWarmup ?? d.enableWarmup ?? false,
    skipNameValidation: o.skipNameValidation ?? d.skipNameValidation ?? false,
    reconciliationTimeoutMs:
      positive(o.reconciliationTimeoutMs ?? o.reconciliationTimeout) ??
      positive(d.reconciliationTimeoutMs ?? d.reconciliationTimeout) ??
      0,
    slowReconcileWarningMs:
      o.slowReconcileWarningMs ??
      o.slowReconcileWarning ??
      d.slowReconcileWarningMs ??
      d.slowReconcileWarning ??
      60_000,
    rateLimiter,
    newQueue:
      o.newQueue ??
      ((controllerName, limiter) =>
        ((o.usePriorityQueue ?? d.usePriorityQueue ?? true)
          ? newPriorityQueue
          : newRateLimitingQueue)<string>({
          name: controllerName,
          rateLimiter: limiter,
          metricsProvider: ctx.workqueueMetrics,
        })),
    logConstructor:
      o.logConstructor ??
      newLogConstructor<Req>({ logger: ctx.logger ?? nullLogger(), controllerName: name }),
    requestCodec: o.requestCodec ?? (requestCodec as unknown as RequestCodec<Req>),
  };
}
