// Controllers whose CRD comes and goes (mgr.addConditional). controller-runtime's controller for a
// kind whose CRD is missing fails its cache sync or retries forever (its #840, #2983). Here a
// Runnable watches the one CRD by name and runs the controller only while the CRD is established
// and serves the version: each run a fresh controller (new queue, sources, metrics), started
// when the CRD appears and stopped when it is deleted or stops serving the version. While the CRD
// terminates the controller keeps running, so that it can release the finalizers that hold the
// custom resources the CRD's deletion is removing. On every change the kind's informers are
// dropped and the RESTMapper forgets the group, so nothing stale outlives the CRD.
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { Registry } from "prom-client";
import { type Kind, kinds } from "../api/index.js";
import { type Cache, metadataOnly as metadataOnlyKind, newInformer } from "../cache/index.js";
import type { Controller, ControllerContext } from "../controller/index.js";
import type { Logger } from "../log/index.js";
import type { RESTMapper } from "../mapper/index.js";
import { getOrCreateGauge } from "../metrics/index.js";
import type { Reconciler, Request } from "../reconcile/index.js";
import type { RESTClient } from "../rest/index.js";
import type { Runnable } from "./runnable.js";
import type { DeepReadonly } from "../api/index.js";

/** What a conditional controller needs of a builder (`controllerManagedBy(mgr)...`). */
export interface ConditionalBuilder {
  readonly controllerName: string | undefined;
  readonly watchedKinds: readonly Kind[];
  buildUnmanaged(reconciler: Reconciler<Request>, ctx: ControllerContext): Controller<Request>;
}

/** The CRD a conditional controller follows. */
export interface ConditionalOptions {
  /** The CRD's name, `<plural>.<group>`. */
  crd: string;
  /** The version the CRD must serve for the controller to run. */
  version: string;
}

/** Where a conditional controller stands. */
export interface ConditionalControllerStatus {
  controller: string;
  crd: string;
  version: string;
  /** `waiting` for the CRD to serve the version, `running`, or `terminating` (the CRD is being deleted). */
  state: "waiting" | "running" | "terminating";
  /** Runs started so far. */
  runs: number;
}

export interface ConditionalDeps {
  rest: RESTClient;
  cache: Cache;
  mapper: RESTMapper;
  logger: Logger;
  registry: Registry | undefined;
  /** The context each run's controller gets (a fresh set of controller names each run). */
  context: () => ControllerContext;
  needLeaderElection: boolean;
}

/** Whether `crd` is established and serves `version`. */
function serves(crd: DeepReadonly<CustomResourceDefinition> | undefined, version: string): boolean {
  if (!crd) return false;
  const established = crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  return !!established && crd.spec.versions.some((v) => v.name === version && v.served);
}

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export class ConditionalController implements Runnable {
  readonly name: string;
  readonly #builder: ConditionalBuilder;
  readonly #reconciler: Reconciler<Request>;
  readonly #opts: ConditionalOptions;
  readonly #deps: ConditionalDeps;
  readonly #group: string;
  readonly #log: Logger;
  #state: ConditionalControllerStatus["state"] = "waiting";
  #runs = 0;
  #wake: (() => void) | undefined;
  #dirty = true;

  constructor(
    name: string,
    builder: ConditionalBuilder,
    reconciler: Reconciler<Request>,
    opts: ConditionalOptions,
    deps: ConditionalDeps,
  ) {
    const dot = opts.crd.indexOf(".");
    if (dot <= 0 || dot === opts.crd.length - 1) {
      throw new TypeError(`addConditional: crd must be "<plural>.<group>", got ${JSON.stringify(opts.crd)}`);
    }
    if (!opts.version) throw new TypeError("addConditional: version must name the CRD version to follow");
    this.name = name;
    this.#builder = builder;
    this.#reconciler = reconciler;
    this.#opts = opts;
    this.#deps = deps;
    this.#group = opts.crd.slice(dot + 1);
    this.#log = deps.logger.withValues({ controller: name, crd: opts.crd, version: opts.version });
  }

  needLeaderElection(): boolean {
    return this.#deps.needLeaderElection;
  }

  status(): ConditionalControllerStatus {
    return {
      controller: this.name,
      crd: this.#opts.crd,
      version: this.#opts.version,
      state: this.#state,
      runs: this.#runs,
    };
  }

  async start(signal: AbortSignal): Promise<void> {
    const gauge = this.#deps.registry
      ? getOrCreateGauge(this.#deps.registry, {
          name: "controller_runtime_conditional_controller_running",
          help: "Whether a controller that follows its CRD runs (1) or waits for the CRD (0).",
          labelNames: ["controller", "crd"],
        })
      : undefined;
    const labels = { controller: this.name, crd: this.#opts.crd };
    gauge?.set(labels, 0);
    const crds = newInformer(this.#deps.rest, kinds.CustomResourceDefinition, {
      fieldSelector: `metadata.name=${this.#opts.crd}`,
      syncPeriodMs: 0,
      logger: this.#deps.logger.withName("conditional"),
    });
    const poke = () => {
      this.#dirty = true;
      this.#wake?.();
    };
    crds.addEventHandler({ onAdd: poke, onUpdate: poke, onDelete: poke });
    const informerDone = crds.run(signal);
    let run: { stop: AbortController; done: Promise<void>; ended: boolean } | undefined;
    let retryMs = RETRY_MIN_MS;
    let retry: NodeJS.Timeout | undefined;
    const onAbort = () => this.#wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    this.#log.info("waiting for the CRD to serve the version");
    try {
      while (!signal.aborted) {
        if (!this.#dirty) {
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
          });
          this.#wake = undefined;
          continue;
        }
        this.#dirty = false;
        if (!crds.hasSynced()) continue;
        const crd = crds.store.getIn(undefined, this.#opts.crd);
        const wanted = serves(crd, this.#opts.version);
        if (run?.ended) {
          // The controller stopped by itself (a failed start): start again after a backoff.
          run = undefined;
          this.#forget();
          if (wanted) {
            clearTimeout(retry);
            retry = setTimeout(poke, retryMs);
            retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
            this.#state = "waiting";
            gauge?.set(labels, 0);
            continue;
          }
        }
        if (wanted && !run) {
          run = this.#startRun(signal, poke);
          gauge?.set(labels, 1);
        } else if (!wanted && run) {
          this.#log.info("the CRD no longer serves the version; stopping the controller");
          run.stop.abort();
          await run.done;
          run = undefined;
          this.#forget();
          retryMs = RETRY_MIN_MS;
          gauge?.set(labels, 0);
        }
        if (run) this.#state = crd?.metadata?.deletionTimestamp ? "terminating" : "running";
        else this.#state = "waiting";
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(retry);
      run?.stop.abort();
      await run?.done;
      await informerDone;
      if (run) this.#forget();
    }
  }

  #startRun(
    signal: AbortSignal,
    poke: () => void,
  ): { stop: AbortController; done: Promise<void>; ended: boolean } {
    this.#runs++;
    this.#log.info("the CRD serves the version; starting the controller", { run: this.#runs });
    // Discovery may have cached the group without the kind (or without the group at all).
    this.#deps.mapper.resetGroup(this.#group);
    const stop = new AbortController();
    const controller = this.#builder.buildUnmanaged(this.#reconciler, this.#deps.context());
    const entry = { stop, done: Promise.resolve(), ended: false };
    entry.done = controller
      .start(AbortSignal.any([signal, stop.signal]))
      .catch((err: unknown) => {
        if (!stop.signal.aborted && !signal.aborted)
          this.#log.error(err, "the controller stopped with an error");
      })
      .finally(() => {
        entry.ended = true;
        if (!stop.signal.aborted) poke();
      });
    return entry;
  }

  /** Drops the informers of the CRD's kinds and what discovery knew of its group. */
  #forget(): void {
    for (const kind of this.#builder.watchedKinds) {
      if (kind.group !== this.#group) continue;
      this.#deps.cache.removeInformer(kind);
      this.#deps.cache.removeInformer(metadataOnlyKind(kind));
    }
    this.#deps.mapper.resetGroup(this.#group);
  }
}
