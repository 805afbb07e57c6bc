// The Manager: owns the shared cache, clients, metrics and probes, and runs every Runnable in
// controller-runtime's order — HTTP servers, webhooks, caches (until synced), runnables that need
// no leader, warm-up, then leader-elected runnables once this replica leads. Shutdown goes in
// reverse, bounded by gracefulShutdownTimeoutMs.
import type { Registry } from "prom-client";
import type { Cache, FieldIndexer } from "../cache/index.js";
import type { Client, ClientReader } from "../client/index.js";
import type { ControllerContext, ControllerDefaults, InFlightReconcile } from "../controller/index.js";
import type { Checker, HealthProbeServer } from "../healthz/index.js";
import type { LeaderElector } from "../leaderelection/index.js";
import type { Logger } from "../log/index.js";
import type { RESTMapper } from "../mapper/index.js";
import type { HTTPHandler, MetricsServer } from "../metrics/index.js";
import type { HTTPServerRunnable } from "../httpserver/index.js";
import type { Reconciler, Request } from "../reconcile/index.js";
import type { EventRecorder, EventsV1Recorder } from "../recorder/index.js";
import type { RESTConfig } from "../rest/index.js";
import type { RESTClient } from "../rest/index.js";
import type { ShardedControllers } from "../sharding/sharding.js";
import {
  type ConverterRegistry,
  converterRegistry,
  newWebhookServer,
  type WebhookServer,
} from "../webhook/index.js";
import type { WorkqueueMetricsProvider } from "../workqueue/index.js";
import { type ManagerComponents, newManagerComponents } from "./components.js";
import { newManagerElector } from "./election.js";
import { ManagerStateError, ShutdownTimeoutError, type StuckReconcile } from "./errors.js";
import { type ManagerOptions, type ResolvedManagerOptions, resolveManagerOptions } from "./options.js";
import {
  type ConditionalBuilder,
  ConditionalController,
  type ConditionalControllerStatus,
  type ConditionalOptions,
} from "./conditional-controller.js";
import { aborted, needsLeaderElection, type Runnable } from "./runnable.js";
import { RunnableGroup } from "./runnable-group.js";
import { isUnscopedRunnable, markUnscoped } from "../internal/runnable-scope.js";
import { type Cluster, hasCache } from "../cluster/cluster.js";

/**
 * Controller-runtime's manager.Manager. Create one with `Manager.create(config, options)`. It is
 * the Cluster of its own config (`getCache`, `getClient`, ...), as in Go.
 */
export interface Manager extends ControllerContext, Cluster {
  /**
   * Runs `runnable` in its group; after `start()`, it starts at once. A Cluster (anything with a
   * `getCache()`) runs with the Manager's own cache, and controllers start once its cache synced,
   * as controller-runtime does.
   */
  add(runnable: Runnable): void;
  /**
   * Starts everything and runs until `signal` aborts, then shuts down gracefully. Rejects with
   * the first error of a runnable, with "leader election lost", or when shutdown overran
   * `gracefulShutdownTimeoutMs`. Runs once.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves once this replica leads (at start, without leader election). */
  elected(): Promise<void>;
  addHealthzCheck(name: string, check: Checker): void;
  addReadyzCheck(name: string, check: Checker): void;
  addMetricsServerExtraHandler(path: string, handler: HTTPHandler): void;
  getConfig(): RESTConfig;
  /** The client: reads from the cache (except `client.cacheDisableFor`), writes to the API server. */
  getClient(): Client;
  /** Reads straight from the API server; use sparingly, where the cache will not do. */
  getAPIReader(): ClientReader;
  /** Kind ⇄ resource mappings from discovery, refreshed on a miss. */
  getRESTMapper(): RESTMapper;
  getCache(): Cache;
  getFieldIndexer(): FieldIndexer;
  /**
   * A core/v1 Event recorder (`source.component` = `name`).
   * @deprecated As in controller-runtime v0.23+: use `getEventRecorder` (events.k8s.io/v1).
   */
  getEventRecorderFor(name: string): EventRecorder;
  /**
   * An events.k8s.io/v1 Event recorder; `name` is the Events' `reportingController`, so it must
   * be a qualified name (`widget-controller`, `example.com/widget-controller`).
   */
  getEventRecorder(name: string): EventsV1Recorder;
  getLogger(): Logger;
  getControllerOptions(): ControllerDefaults;
  /** The registry of every metric this manager serves on `/metrics`. */
  getMetricsRegistry(): Registry;
  /** The REST client the manager's parts share (one keep-alive connection pool). */
  getRESTClient(): RESTClient;
  /** @deprecated Use `getRESTClient`; removed in the next release. */
  getRestClient(): RESTClient;
  /** The metrics server (its bound address once started), or the disabled server. */
  getMetricsServer(): MetricsServer;
  /** The health probe server (its bound address once started), or the disabled server. */
  getHealthProbeServer(): HealthProbeServer;
  /** The profiling server of `pprofBindAddress` (its bound address once started), or the disabled server. */
  getPprofServer(): HTTPServerRunnable;
  /**
   * The webhook server, made on first use and run in the Webhooks group (before caches, on every
   * replica: webhooks need no leader).
   */
  getWebhookServer(): WebhookServer;
  /**
   * The converters served on the webhook server's `/convert` (controller-runtime's
   * `GetConverterRegistry`): what the webhook builder's `withConverter` registers.
   */
  getConverterRegistry(): ConverterRegistry;
  /**
   * Runs the controller `builder` describes (`controllerManagedBy(mgr).for(Foo)...`, without
   * `complete`) only while the CRD `opts.crd` is established and serves `opts.version`: started
   * when it does, stopped when the CRD is deleted or stops serving the version, each run a fresh
   * controller; kept running while the CRD terminates, so it can release its finalizers. Beyond
   * controller-runtime; startup never waits for the CRD.
   */
  addConditional(
    builder: ConditionalBuilder,
    reconciler: Reconciler<Request>,
    opts: ConditionalOptions,
  ): void;
  /** Where each controller added with `addConditional` stands (waiting for its CRD, running, terminating). */
  conditionalControllers(): ConditionalControllerStatus[];
}

class ControllerManager implements Manager {
  readonly #config: RESTConfig;
  readonly #o: ResolvedManagerOptions;
  readonly #log: Logger;
  /** Controllers added, to name their reconciles still running when shutdown overruns. */
  readonly #reconcilers: { name: string; inFlight: () => InFlightReconcile[] }[] = [];
  readonly #c: ManagerComponents;
  readonly #groups: {
    http: RunnableGroup;
    webhooks: RunnableGroup;
    caches: RunnableGroup;
    others: RunnableGroup;
    warmup: RunnableGroup;
    leader: RunnableGroup;
    sharded: RunnableGroup;
  };
  readonly #elected: Promise<void>;
  #resolveElected!: () => void;
  #firstError: unknown;
  #webhookServer: WebhookServer | undefined;
  #failed = new AbortController();
  #started = false;
  readonly #conditionals: ConditionalController[] = [];

  readonly logger: Logger;
  readonly metricsRegistry: Registry;
  readonly workqueueMetrics: WorkqueueMetricsProvider;
  readonly controllerDefaults: ControllerDefaults;
  readonly controllerNames = new Set<string>();

  constructor(config: RESTConfig, o: ResolvedManagerOptions) {
    this.#config = config;
    this.#o = o;
    this.#log = o.logger;
    this.logger = o.logger;
    const c = newManagerComponents(config, o);
    this.#c = c;
    this.metricsRegistry = c.registry;
    this.workqueueMetrics = c.workqueueMetrics;
    this.controllerDefaults = o.controller;
    const onError = (err: unknown) => this.#fail(err);
    this.#groups = {
      http: new RunnableGroup("HTTP servers", onError),
      webhooks: new RunnableGroup("webhooks", onError),
      caches: new RunnableGroup("caches", onError),
      others: new RunnableGroup("others", onError),
      warmup: new RunnableGroup("warm-up", onError),
      leader: new RunnableGroup("leader election", onError),
      sharded: new RunnableGroup("sharded", onError),
    };
    this.#elected = new Promise((resolve) => {
      this.#resolveElected = resolve;
    });
    const listening = (s: MetricsServer | HealthProbeServer | HTTPServerRunnable) => async () => {
      await s.listening();
    };
    void this.#groups.http.add(markUnscoped(c.metricsServer), listening(c.metricsServer));
    void this.#groups.http.add(markUnscoped(c.probes), listening(c.probes));
    void this.#groups.http.add(markUnscoped(c.pprof), listening(c.pprof));
    void this.#groups.caches.add(markUnscoped(c.cache), async (signal) => {
      if (!(await c.cache.waitForCacheSync(signal)) && !signal.aborted) {
        throw new Error("manager: the cache did not sync");
      }
    });
    if (c.sharding) this.add(markUnscoped(c.sharding.coordinator()));
  }

  /**
   * This replica's part in its ring, when made with the `sharding` option: the builder's
   * `for(Kind, { sharded: true })` registers through it.
   */
  get sharding(): ShardedControllers | undefined {
    const s = this.#c.sharding;
    if (!s) return undefined;
    return {
      ring: s.o.ring,
      identity: s.o.identity,
      register: (kind, owned) => s.register(kind, owned),
      reconciler: (kind, inner) => s.reconciler(kind, inner),
      add: (runnable) => {
        this.#track(runnable);
        this.#groups.sharded.add(runnable).catch((err: unknown) => this.#fail(err));
      },
    };
  }

  addConditional(
    builder: ConditionalBuilder,
    reconciler: Reconciler<Request>,
    opts: ConditionalOptions,
  ): void {
    const name = builder.controllerName;
    if (!name) throw new TypeError("addConditional: call for(Kind) or named(name) on the builder first");
    if (this.controllerNames.has(name)) {
      throw new TypeError(
        `addConditional: a controller named ${JSON.stringify(name)} already exists; name it with named()`,
      );
    }
    this.controllerNames.add(name);
    const conditional = new ConditionalController(name, builder, reconciler, opts, {
      rest: this.#c.rest,
      cache: this.#c.cache,
      mapper: this.#c.mapper,
      logger: this.#log.withName("conditional-controller"),
      registry: this.metricsRegistry,
      context: () => ({
        logger: this.logger,
        metricsRegistry: this.metricsRegistry,
        workqueueMetrics: this.workqueueMetrics,
        controllerDefaults: this.controllerDefaults,
        controllerNames: new Set(),
      }),
      needLeaderElection: this.controllerDefaults.needLeaderElection ?? true,
    });
    this.#conditionals.push(conditional);
    this.add(markUnscoped(conditional));
  }

  conditionalControllers(): ConditionalControllerStatus[] {
    return this.#conditionals.map((c) => c.status());
  }

  /** Keeps a controller's in-flight reconciles, for the shutdown timeout's message. */
  #track(runnable: Runnable): void {
    const reporter = runnable as Runnable & {
      name?: unknown;
      inFlightReconciles?: () => InFlightReconcile[];
    };
    if (typeof reporter.inFlightReconciles === "function") {
      this.#reconcilers.push({ name: String(reporter.name), inFlight: () => reporter.inFlightReconciles!() });
    }
  }

  add(runnable: Runnable): void {
    if (hasCache(runnable)) {
      const cache = runnable.getCache();
      this.#groups.caches
        .add(runnable, async (signal) => {
          if (!(await cache.waitForCacheSync(signal)) && !signal.aborted) {
            throw new Error(`manager: the cache of an added cluster (${clusterName(runnable)}) did not sync`);
          }
        })
        .catch((err: unknown) => this.#fail(err));
      return;
    }
    this.#track(runnable);
    const warm = runnable as Runnable & { warmup?: (signal: AbortSignal) => Promise<void> };
    if (typeof warm.warmup === "function" && needsLeaderElection(runnable)) {
      const warmup = { start: (s: AbortSignal) => warm.warmup!(s), needLeaderElection: () => false };
      // A controller's warm-up is the library's; a user's runnable's is the user's.
      void this.#groups.warmup.add(isUnscopedRunnable(runnable) ? markUnscoped(warmup) : warmup);
    }
    const group = needsLeaderElection(runnable) ? this.#groups.leader : this.#groups.others;
    group.add(runnable).catch((err: unknown) => this.#fail(err));
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#started)
      throw new ManagerStateError("manager: start() was already called; a manager runs once");
    this.#started = true;
    const stop = AbortSignal.any([signal, this.#failed.signal]);
    let elector: LeaderElector | undefined;
    let electorDone: Promise<void> | undefined;
    const electionSignal = new AbortController();
    const membership = new AbortController();
    let membershipDone: Promise<void> | undefined;
    try {
      const g = this.#groups;
      await g.http.start(stop);
      await g.webhooks.start(stop);
      await g.caches.start(stop);
      await g.others.start(stop);
      await g.warmup.start(stop);
      if (!stop.aborted) {
        if (this.#o.leaderElection) {
          elector = newManagerElector(this.#c, this.#o, (leading) => this.#lead(leading));
          electorDone = elector.run(electionSignal.signal).catch((err: unknown) => this.#fail(err));
        } else {
          await g.leader.start(stop);
          this.#resolveElected();
        }
        // In a ring: the sharded controllers run while this replica holds its Lease; losing it
        // fails the manager, as losing leader election does.
        membershipDone = this.#c.sharding
          ?.runMembership((held) => this.#hold(held), membership.signal)
          .catch((err: unknown) => this.#fail(err));
      }
      await aborted(stop);
    } finally {
      await this.#shutdown(electionSignal, electorDone, membership, membershipDone);
    }
    if (this.#firstError !== undefined) throw this.#firstError;
  }

  elected(): Promise<void> {
    return this.#elected;
  }

  async #lead(leading: AbortSignal): Promise<void> {
    const group = this.#groups.leader;
    void group.start(leading);
    this.#resolveElected();
    await aborted(leading);
    await group.stop();
  }

  async #hold(held: AbortSignal): Promise<void> {
    const group = this.#groups.sharded;
    void group.start(held);
    await aborted(held);
    await group.stop();
  }

  // Reverse start order: leader runnables first (and the Lease released, if asked), the sharded
  // ones (and the ring's Lease released), then the rest, caches, webhooks, and the HTTP servers
  // last so probes answer during shutdown.
  async #shutdown(
    electionSignal: AbortController,
    electorDone: Promise<void> | undefined,
    membership: AbortController,
    membershipDone: Promise<void> | undefined,
  ): Promise<void> {
    const g = this.#groups;
    const steps = async () => {
      await g.leader.stop();
      electionSignal.abort();
      await electorDone;
      await g.sharded.stop();
      membership.abort();
      await membershipDone;
      await g.warmup.stop();
      await g.others.stop();
      await g.caches.stop();
      await g.webhooks.stop();
      await this.#c.recorders.shutdown({ timeoutMs: Math.min(5_000, this.#o.gracefulShutdownTimeoutMs) });
      await g.http.stop();
      await this.#c.rest.close();
    };
    const timeout = this.#o.gracefulShutdownTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeout);
    });
    const result = await Promise.race([steps().then(() => "done" as const), overran]);
    clearTimeout(timer);
    if (result !== "timeout") return;
    if (this.#firstError === undefined) {
      this.#firstError = new ShutdownTimeoutError(timeout, this.#stuckReconciles());
      this.#log.error(this.#firstError, "graceful shutdown timed out");
    }
    // Go's process ends when main returns; Node's lives while a socket or timer is open. Stop
    // every part now, without waiting on the stuck ones, so that only the stuck reconcile's own
    // handles (if any) can keep the process: watches end, servers close, connections drop.
    electionSignal.abort();
    membership.abort();
    for (const group of Object.values(g)) group.abort();
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([g.caches.stop(), g.webhooks.stop(), g.http.stop()]),
      new Promise((resolve) => {
        bound = setTimeout(resolve, 1_000);
      }),
    ]);
    clearTimeout(bound);
    await this.#c.rest.transport.destroy().catch(() => {});
  }

  /** Each reconcile still running, named by controller, for the shutdown timeout's message. */
  #stuckReconciles(): StuckReconcile[] {
    return this.#reconcilers.flatMap((c) => c.inFlight().map((r) => ({ controller: c.name, ...r })));
  }

  #fail(err: unknown): void {
    if (this.#firstError === undefined) {
      this.#firstError = err;
      this.#log.error(err, "error received after stop sequence was engaged");
    }
    this.#failed.abort(err);
  }

  addHealthzCheck(name: string, check: Checker): void {
    this.#c.probes.addHealthzCheck(name, check);
  }

  addReadyzCheck(name: string, check: Checker): void {
    this.#c.probes.addReadyzCheck(name, check);
  }

  addMetricsServerExtraHandler(path: string, handler: HTTPHandler): void {
    this.#c.metricsServer.addExtraHandler(path, handler);
  }

  getConfig(): RESTConfig {
    return this.#config;
  }

  getClient(): Client {
    return this.#c.client;
  }

  getAPIReader(): ClientReader {
    return this.#c.apiReader;
  }

  getRESTMapper(): RESTMapper {
    return this.#c.mapper;
  }

  getCache(): Cache {
    return this.#c.cache;
  }

  getFieldIndexer(): FieldIndexer {
    return this.#c.cache;
  }

  getEventRecorderFor(name: string): EventRecorder {
    return this.#c.recorders.getEventRecorderFor(name);
  }

  getEventRecorder(name: string): EventsV1Recorder {
    return this.#c.recorders.getEventRecorder(name);
  }

  getLogger(): Logger {
    return this.#log;
  }

  getControllerOptions(): ControllerDefaults {
    return this.#o.controller;
  }

  getMetricsRegistry(): Registry {
    return this.#c.registry;
  }

  getRESTClient(): RESTClient {
    return this.#c.rest;
  }

  getRestClient(): RESTClient {
    return this.getRESTClient();
  }

  getMetricsServer(): MetricsServer {
    return this.#c.metricsServer;
  }

  getHealthProbeServer(): HealthProbeServer {
    return this.#c.probes;
  }

  getPprofServer(): HTTPServerRunnable {
    return this.#c.pprof;
  }

  getConverterRegistry(): ConverterRegistry {
    return converterRegistry(this.getWebhookServer());
  }

  getWebhookServer(): WebhookServer {
    if (!this.#webhookServer) {
      const given = this.#o.webhookServer;
      const server =
        "register" in given
          ? (given as WebhookServer)
          : newWebhookServer({
              ...given,
              logger: given.logger ?? this.#log.withName("controller-runtime"), // the server adds "webhook"
              registry: given.registry ?? this.#c.registry,
            });
      this.#webhookServer = server;
      this.#groups.webhooks
        .add(markUnscoped(server), async () => {
          await server.listening();
        })
        .catch((err: unknown) => this.#fail(err));
    }
    return this.#webhookServer;
  }
}

function clusterName(c: object): string {
  const config = (c as { getConfig?: () => RESTConfig }).getConfig?.();
  return config?.host ?? "no config";
}

/** Creates a Manager; nothing connects or listens until `start()`. */
async function create(config: RESTConfig, options: ManagerOptions = {}): Promise<Manager> {
  return new ControllerManager(config, resolveManagerOptions(options, config));
}

/** `Manager.create(config, options)`, as controller-runtime's `manager.New`. */
export const Manager = { create };
