// The controller: sources → work queue → workers → reconciler (controller-runtime's
// pkg/internal/controller). Start order matters:
//   1. the queue is made and every source started (all at once, so that each registers its
//      informer before any is waited for), then each is waited on to sync, within cacheSyncTimeoutMs;
//   2. only then do the workers start, so that reconcilers read a filled cache;
//   3. on abort the queue stops handing out keys, and `start` resolves once the reconciles in
//      flight have finished: a reconcile is never cut off by the controller, only told by its signal.
// The queue hands a key to one worker at a time, which is what keeps a key from being reconciled
// twice at once; a key added while it is being reconciled waits and runs once more afterwards.
import { trackController } from "../internal/running.js";
import { markUnscoped } from "../internal/runnable-scope.js";
import { setMaxListeners } from "node:events";
import type { RequestQueue } from "../handler/index.js";
import { deferredLogger } from "../log/deferred-logger.js";
import { type Logger, stackOf } from "../log/index.js";
import { type ControllerMetrics, controllerMetrics, type ReconcileCounts } from "../metrics/index.js";
import type { Reconciler, Request, Result } from "../reconcile/index.js";
import { isTerminalError } from "../reconcile/index.js";
import { isConflict } from "../rest/index.js";
import type { Source } from "../source/index.js";
import type { GetResult, HistogramRecorder, PriorityQueue } from "../workqueue/index.js";
import type { ControllerContext, ControllerRunnable } from "./context.js";
import {
  ControllerStartedTwiceError,
  isPanic,
  ReconcilePanicError,
  ReconciliationTimeoutError,
  SourceStartTimeoutError,
  SourceSyncError,
} from "./errors.js";
import { InFlightList } from "./in-flight.js";
import { newReconcileID } from "./reconcile-id.js";
import { startSource } from "./start-source.js";
import {
  type ControllerOptions,
  type ResolvedControllerOptions,
  resolveControllerOptions,
} from "./options.js";
import { checkControllerName } from "./name.js";

/** A controller: watches sources and reconciles the requests they queue. It is a Runnable. */
export interface Controller<Req = Request> extends ControllerRunnable {
  readonly name: string;
  /**
   * Adds a source. Before the controller starts, the source waits and starts with the others;
   * afterwards it starts at once (and the promise settles once it started).
   */
  watch(source: Source<Req>): Promise<void>;
  /** Runs the controller until `signal` aborts; resolves once every reconcile in flight finished. */
  start(signal: AbortSignal): Promise<void>;
  /**
   * With `enableWarmup`, starts the sources (filling the caches) without reconciling, so that a
   * non-leader is ready to take over fast; resolves once they synced. Does nothing otherwise.
   */
  warmup(signal: AbortSignal): Promise<void>;
  needLeaderElection(): boolean;
  /** The controller's logger (with `controller` and the other keys of its log constructor). */
  getLogger(): Logger;
  /** The reconciles running now, oldest first (the Manager names them when shutdown overruns). */
  inFlightReconciles(): InFlightReconcile[];
}

/** One reconcile in progress. */
export interface InFlightReconcile {
  /** The request's work queue key (`namespace/name` for the default codec). */
  request: string;
  reconcileID: string;
  /** Milliseconds since it started. */
  runningMs: number;
}

/** A controller added to the context's Manager (`ctx.add`), as controller-runtime's `controller.New`. */
export function newController<Req = Request>(
  name: string,
  ctx: ControllerContext,
  options: ControllerOptions<Req>,
): Controller<Req> {
  const c = newUnmanagedController(name, ctx, options);
  ctx.add?.(c);
  return c;
}

/** A controller that the caller starts itself (controller-runtime's `controller.NewUnmanaged`). */
export function newUnmanagedController<Req = Request>(
  name: string,
  ctx: ControllerContext,
  options: ControllerOptions<Req>,
): Controller<Req> {
  const resolved = resolveControllerOptions(name, ctx, options);
  checkControllerName(name, ctx, resolved.skipNameValidation);
  return new ControllerImpl(name, ctx, resolved);
}

/** A reconcile running now: what it was handed and started with, and when it is next reported as slow. */
interface Run {
  readonly key: string;
  readonly handedOutPriority: number;
  readonly reconcileID: string;
  readonly started: number;
  readonly log: Logger;
  /** Running time (ms) at which it is next logged as taking long. */
  warnAtMs: number;
  /** The reconcile's signal: the worker's, or with a reconciliation timeout, also the timeout's. */
  signal: AbortSignal;
  timer: NodeJS.Timeout | undefined;
  /** The reconciler's answer. */
  promise: ReturnType<Reconciler<unknown>["reconcile"]> | undefined;
  /** Its neighbours among the reconciles running. */
  prev: Run | null;
  next: Run | null;
}

/** What a reconciler's `undefined` stands for: read only, never changed. */
const NO_RESULT: Result = Object.freeze({});

/** Marks a throw that must stop the controller (a panic with recoverPanic off). */
class FatalPanic {
  constructor(readonly value: unknown) {}
}

class ControllerImpl<Req> implements Controller<Req> {
  readonly name: string;
  readonly #o: ResolvedControllerOptions<Req>;
  readonly #metrics: ControllerMetrics | undefined;
  readonly #reconcileTime: HistogramRecorder | undefined;
  /** Label sets made once: prom-client hashes them on each update, we need not allocate them too. */
  readonly #labels: { readonly controller: string };
  /** The counts every reconcile updates, without prom-client's per-call cost. */
  readonly #counts: ReconcileCounts | undefined;
  readonly #log: Logger;
  /** The controller's logger at the reconciles' debug verbosity: whether their v(5) lines are written. */
  readonly #debug: Logger;
  #watches: Source<Req>[] = [];
  #queue: PriorityQueue<string> | undefined;
  #sourcesStarted: Promise<void> | undefined;
  #sourceSignal: AbortSignal | undefined;
  #started = false;
  /** Aborted with the thrown value when a panic is not recovered. */
  readonly #fatal = new AbortController();
  /** The reconciles running. */
  readonly #inFlight = new InFlightList<Run>();
  /** Keys queued again with backoff after an error or a `requeue`, until a reconcile of them ends well. */
  readonly #retrying = new Set<string>();

  constructor(name: string, ctx: ControllerContext, o: ResolvedControllerOptions<Req>) {
    // Starts outside the Runnable scope (see markUnscoped): reconcilers get their signal in ctx.
    markUnscoped(this);
    this.name = name;
    this.#o = o;
    this.#metrics = ctx.metricsRegistry === undefined ? undefined : controllerMetrics(ctx.metricsRegistry);
    this.#reconcileTime = this.#metrics?.reconcileTimeRecorder(name);
    this.#labels = { controller: name };
    this.#counts = this.#metrics?.reconcileCounts(name);
    this.#log = o.logConstructor(undefined);
    this.#debug = this.#log.v(5);
  }

  readonly #requestQueue: RequestQueue<Req> = {
    add: (req, options) => this.#queue!.add(this.#o.requestCodec.toKey(req), options),
  };

  getLogger(): Logger {
    return this.#log;
  }

  inFlightReconciles(): InFlightReconcile[] {
    const now = performance.now();
    return [...this.#inFlight].map((r) => ({
      request: r.key,
      reconcileID: r.reconcileID,
      runningMs: Math.round(now - r.started),
    }));
  }

  needLeaderElection(): boolean {
    return this.#o.needLeaderElection;
  }

  async watch(source: Source<Req>): Promise<void> {
    if (this.#sourcesStarted === undefined) {
      this.#watches.push(source);
      return;
    }
    // Sources given while the others start join once those are done, as Go's mutex orders them.
    await this.#sourcesStarted.catch(() => {});
    const log = this.#log.withValues({ source: String(source) });
    log.info("Starting EventSource");
    await source.start(this.#sourceSignal!, this.#requestQueue, { logger: log });
  }

  async warmup(signal: AbortSignal): Promise<void> {
    if (!this.#o.enableWarmup) return;
    await this.#startSources(signal);
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new ControllerStartedTwiceError(this.name);
    this.#started = true;
    this.#metrics?.initialize(this.name, this.#o.maxConcurrentReconciles);
    // Known to settle() from the first moment: a controller whose sources still sync has work
    // coming (its manager's elected() resolves before then).
    let queue: PriorityQueue<string> | undefined;
    const untrack = trackController({
      what: `controller ${this.name}`,
      busy: () => {
        if (!queue) return "starting: its sources are syncing";
        const ready = queue.len();
        const running = this.#inFlight.size;
        const retrying = this.#retrying.size;
        if (ready + running + retrying === 0) return undefined;
        return `${ready} keys ready, ${running} reconciling, ${retrying} retrying after errors`;
      },
    });
    try {
      await this.#startSources(signal);
    } catch (err) {
      untrack();
      throw err;
    }
    // Sources may have been started by warmup under another signal: this one stops the queue too.
    queue = this.#queue!;
    const started = queue;
    if (signal.aborted) started.shutDown();
    else signal.addEventListener("abort", () => started.shutDown(), { once: true });

    const workerSignal = AbortSignal.any([signal, this.#fatal.signal]);
    workerSignal.addEventListener("abort", untrack, { once: true });
    if (workerSignal.aborted) untrack();
    if (!workerSignal.aborted) {
      this.#log.info("Starting Controller");
      this.#log.info("Starting workers", { "worker count": this.#o.maxConcurrentReconciles });
      const stopWatchingSlow = this.#watchSlow();
      const workers = Array.from({ length: this.#o.maxConcurrentReconciles }, () =>
        this.#worker(started, workerSignal),
      );
      await new Promise<void>((resolve) =>
        workerSignal.addEventListener("abort", () => resolve(), { once: true }),
      );
      this.#log.info("Shutdown signal received, waiting for all workers to finish");
      await Promise.all(workers).finally(stopWatchingSlow);
      this.#log.info("All workers finished");
    }
    if (this.#fatal.signal.aborted) throw this.#fatal.signal.reason;
  }

  /** Makes the queue and starts every source, once; later calls share the first call's outcome. */
  #startSources(signal: AbortSignal): Promise<void> {
    if (this.#sourcesStarted !== undefined) return this.#sourcesStarted;
    const queue = this.#o.newQueue(this.name, this.#o.rateLimiter);
    this.#queue = queue;
    // Every source and informer waiter listens on this signal: a child of our own, linked to the
    // caller's by one listener, so many sources never trip Node's max-listeners warning on a
    // signal the manager shares between all its runnables.
    const own = new AbortController();
    setMaxListeners(0, own.signal);
    if (signal.aborted) own.abort(signal.reason);
    else signal.addEventListener("abort", () => own.abort(signal.reason), { once: true });
    signal = own.signal;
    this.#sourceSignal = signal;
    if (signal.aborted) queue.shutDown();
    else signal.addEventListener("abort", () => queue.shutDown(), { once: true });
    const watches = this.#watches;
    // Sources are held only until started: each may hold a cache that should be collectable.
    this.#watches = [];
    this.#sourcesStarted = Promise.all(
      watches.map((w) =>
        startSource(w, {
          signal,
          queue: this.#requestQueue,
          logger: this.#log.withValues({ source: String(w) }),
          timeoutMs: this.#o.cacheSyncTimeoutMs,
          onStartTimeout: () => new SourceStartTimeoutError(String(w), this.#o.cacheSyncTimeoutMs),
          onSyncError: (err) => new SourceSyncError(this.name, String(w), err),
        }),
      ),
    ).then(() => undefined);
    return this.#sourcesStarted;
  }

  async #worker(queue: PriorityQueue<string>, signal: AbortSignal): Promise<void> {
    const active = this.#counts?.activeWorkers;
    // One options object for every wait, not one per wait.
    const getOptions = { signal };
    while (!signal.aborted) {
      let item: GetResult<string>;
      try {
        // A key ready now is taken without waiting on a promise of its own.
        item = queue.tryGet() ?? (await queue.get(getOptions));
      } catch {
        return; // aborted: hand out no more work
      }
      if (item.shutdown) return;
      active?.inc();
      // The reconcile's one await: the work before and after it is done by plain methods, since an
      // async function keeps its whole frame alive across each await it makes.
      const run = this.#begin(item.key, item.priority, signal);
      let result: Result = NO_RESULT;
      let thrown: unknown;
      let failed = false;
      try {
        result = (await run.promise) ?? NO_RESULT;
      } catch (err) {
        thrown = err;
        failed = true;
      }
      let fatal: FatalPanic | undefined;
      try {
        fatal = failed ? this.#failed(queue, run, thrown) : this.#finish(queue, run, result);
      } finally {
        queue.done(item.key);
        active?.dec();
      }
      if (fatal !== undefined) {
        this.#fatal.abort(fatal.value);
        return;
      }
    }
  }

  /** Starts a reconcile of `key`: its request, ID, logger and in-flight entry, then the call. */
  #begin(key: string, handedOutPriority: number, signal: AbortSignal): Run {
    const started = performance.now();
    const req = this.#o.requestCodec.fromKey(key);
    const reconcileID = newReconcileID();
    const logConstructor = this.#o.logConstructor;
    const log = deferredLogger(() => logConstructor(req).withValues({ reconcileID }));
    const run: Run = {
      key,
      handedOutPriority,
      reconcileID,
      started,
      log,
      warnAtMs: this.#o.slowReconcileWarningMs,
      signal,
      timer: undefined,
      promise: undefined,
      prev: null,
      next: null,
    };
    this.#inFlight.add(run);
    if (this.#debug.enabled()) log.v(5).info("Reconciling");
    const timeoutMs = this.#o.reconciliationTimeoutMs;
    if (timeoutMs > 0) {
      const timeout = new AbortController();
      run.timer = setTimeout(() => timeout.abort(new ReconciliationTimeoutError(timeoutMs)), timeoutMs);
      run.signal = AbortSignal.any([signal, timeout.signal]);
    }
    try {
      run.promise = this.#o.reconciler.reconcile(req, { signal: run.signal, logger: log, reconcileID });
    } catch (err) {
      run.promise = Promise.reject(err);
    }
    return run;
  }

  /**
   * Ends a reconcile with what it returned: the key queued again as the result asks, counted and
   * logged. The common ending (nothing to requeue) runs through the fewest bytes: V8 optimizes
   * a function after a number of calls that grows with its size, and this one runs for every
   * reconcile from the first.
   */
  #finish(queue: PriorityQueue<string>, run: Run, result: Result): undefined {
    this.#ended(run);
    try {
      if (result.requeueAfter === undefined && result.requeue !== true) {
        if (this.#debug.enabled()) run.log.v(5).info("Reconcile successful");
        queue.forget(run.key);
        // Mostly empty: then the key need not be hashed.
        if (this.#retrying.size > 0) this.#retrying.delete(run.key);
        this.#counts?.results.success.inc();
      } else this.#requeue(queue, run, result);
      return undefined;
    } finally {
      this.#leave(run);
    }
  }

  /** A result asking to requeue (or a requeueAfter of 0 or less: a success). */
  #requeue(queue: PriorityQueue<string>, run: Run, result: Result): void {
    const { key, log } = run;
    const results = this.#counts?.results;
    const priority = result.priority ?? run.handedOutPriority;
    if (result.requeueAfter !== undefined && result.requeueAfter > 0) {
      if (this.#debug.enabled()) log.v(5).info(`Reconcile done, requeueing after ${result.requeueAfter}ms`);
      // Forget first: a requeueAfter is a plan, not a failure, so the backoff starts over.
      queue.forget(key);
      this.#retrying.delete(key);
      queue.add(key, { after: result.requeueAfter, priority });
      results?.requeue_after.inc();
    } else if (result.requeue === true) {
      if (this.#debug.enabled()) log.v(5).info("Reconcile done, requeueing");
      queue.add(key, { rateLimited: true, priority });
      this.#retrying.add(key);
      results?.requeue.inc();
    } else {
      if (this.#debug.enabled()) log.v(5).info("Reconcile successful");
      queue.forget(key);
      if (this.#retrying.size > 0) this.#retrying.delete(key);
      results?.success.inc();
    }
  }

  /**
   * Ends a reconcile that threw: the key queued again with backoff unless the error is terminal,
   * counted and logged. A FatalPanic (a panic with recoverPanic off) is returned for the worker
   * to stop the controller with.
   */
  #failed(queue: PriorityQueue<string>, run: Run, thrown: unknown): FatalPanic | undefined {
    const { key, log, handedOutPriority } = run;
    this.#ended(run);
    const m = this.#metrics;
    const results = this.#counts?.results;
    try {
      let err = thrown;
      if (isPanic(err)) {
        m?.reconcilePanics.inc(this.#labels);
        if (!this.#o.recoverPanic) {
          log.info(`Observed a panic in reconciler: ${String(err)}`);
          return new FatalPanic(err);
        }
        err = new ReconcilePanicError(err);
      }
      // A failure is retried with backoff at the priority the key had, unless it is terminal.
      if (isTerminalError(err)) {
        m?.terminalReconcileErrors.inc(this.#labels);
        this.#retrying.delete(key);
      } else {
        queue.add(key, { rateLimited: true, priority: handedOutPriority });
        this.#retrying.add(key);
      }
      m?.reconcileErrors.inc(this.#labels);
      results?.error.inc();
      // Routine outcomes are not failures: a write that lost a race (409, retried with a fresh
      // read) and a reconcile the shutdown cut short say so at info, without a stack.
      if (run.signal.aborted && !(run.signal.reason instanceof ReconciliationTimeoutError)) {
        log.info("Reconcile ended by shutdown", { error: messageOf(err) });
        return undefined;
      }
      if (isConflict(err)) {
        log.info("Reconcile lost a write race (409 Conflict); requeued to retry on a fresh read", {
          error: messageOf(err),
        });
        return undefined;
      }
      // The reconciler's failure is the user's: its stack (a panic's own, not our wrapper's)
      // goes with it at every verbosity, so the file and line of the bug are in the log.
      log.error(err, "Reconciler error", {
        stacktrace: stackOf(err instanceof ReconcilePanicError ? err.cause : err),
      });
      return undefined;
    } finally {
      this.#leave(run);
    }
  }

  /** The reconciler returned or threw: its timeout timer stops, and a timeout is counted. */
  #ended(run: Run): void {
    if (run.timer === undefined) return;
    clearTimeout(run.timer);
    // Counted only when our own deadline fired first, not on shutdown.
    if (run.signal.aborted && run.signal.reason instanceof ReconciliationTimeoutError) {
      this.#metrics?.reconcileTimeouts.inc({ controller: this.name });
    }
  }

  /** The reconcile is no longer in flight; its time is observed. */
  #leave(run: Run): void {
    this.#inFlight.delete(run);
    this.#reconcileTime?.observe((performance.now() - run.started) / 1000);
  }

  /**
   * Logs each reconcile still running after `slowReconcileWarningMs`, then again after each
   * further period: a hung reconcile is otherwise invisible until shutdown. One timer for the
   * controller, checking its in-flight reconciles a tenth of the period apart (at most every
   * second), rather than a timer per reconcile; returns its stop.
   */
  #watchSlow(): () => void {
    const every = this.#o.slowReconcileWarningMs;
    if (every <= 0) return () => {};
    const timer = setInterval(
      () => {
        const now = performance.now();
        for (const r of this.#inFlight) {
          const running = now - r.started;
          if (running < r.warnAtMs) continue;
          r.log.info("Reconcile is taking long; it may be stuck (a call without a timeout or signal?)", {
            runningMs: Math.round(running),
          });
          r.warnAtMs = (Math.floor(running / every) + 1) * every;
        }
      },
      Math.max(10, Math.min(1_000, Math.floor(every / 10))),
    );
    timer.unref();
    return () => clearInterval(timer);
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
