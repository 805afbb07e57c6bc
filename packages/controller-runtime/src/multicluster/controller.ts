// The multi-cluster controller (multicluster-runtime's mccontroller): an ordinary controller of
// ClusterRequests that is Aware: engaging a cluster starts a source per multi-cluster watch in
// that cluster, stopped when the engagement's signal aborts.
import {
  type Controller,
  type ControllerContext,
  type ControllerOptions,
  type InFlightReconcile,
  newUnmanagedController,
} from "../controller/index.js";
import type { Cluster } from "../cluster/index.js";
import { markUnscoped } from "../internal/runnable-scope.js";
import type { Logger } from "../log/index.js";
import type { Source } from "../source/index.js";
import type { Aware, ClusterName } from "./multicluster.js";
import { type ClusterRequest, clusterRequestCodec } from "./request.js";
import { type ClusterSource, withinSignal } from "./source.js";

/** A controller of requests in named clusters (multicluster-runtime's `mccontroller.Controller`). */
export interface MulticlusterController<Req = ClusterRequest> extends Controller<Req>, Aware {
  /** Watches `source` in every cluster engaged, now and later (multicluster-runtime's `MultiClusterWatch`). */
  multiClusterWatch(source: ClusterSource<Req>): Promise<void>;
  /** The clusters engaged now, by name. */
  engagedClusters(): ClusterName[];
}

/** What the controller needs of the multi-cluster Manager. */
export interface MulticlusterContext extends ControllerContext {
  /** Runs the controller and engages it with every cluster the provider engages. */
  add?(runnable: Parameters<NonNullable<ControllerContext["add"]>>[0] & Partial<Aware>): void;
}

export type MulticlusterControllerOptions<Req = ClusterRequest> = Omit<
  ControllerOptions<Req>,
  "requestCodec"
> &
  Partial<Pick<ControllerOptions<Req>, "requestCodec">>;

/** A multi-cluster controller added to `ctx`'s Manager (multicluster-runtime's `mccontroller.New`). */
export function newMulticlusterController<Req = ClusterRequest>(
  name: string,
  ctx: MulticlusterContext,
  options: MulticlusterControllerOptions<Req>,
): MulticlusterController<Req> {
  const c = newUnmanagedMulticlusterController(name, ctx, options);
  ctx.add?.(c);
  return c;
}

/** A multi-cluster controller the caller starts (and engages) itself. */
export function newUnmanagedMulticlusterController<Req = ClusterRequest>(
  name: string,
  ctx: ControllerContext,
  options: MulticlusterControllerOptions<Req>,
): MulticlusterController<Req> {
  const inner = newUnmanagedController<Req>(name, ctx, {
    ...options,
    requestCodec: options.requestCodec ?? (clusterRequestCodec as never),
  } as ControllerOptions<Req>);
  return new ClusterAwareController(inner);
}

interface Engagement {
  cluster: Cluster;
  stop: AbortController;
}

class ClusterAwareController<Req> implements MulticlusterController<Req> {
  readonly #inner: Controller<Req>;
  readonly #engaged = new Map<ClusterName, Engagement>();
  readonly #sources: ClusterSource<Req>[] = [];

  constructor(inner: Controller<Req>) {
    this.#inner = inner;
    markUnscoped(this);
  }

  get name(): string {
    return this.#inner.name;
  }

  async engage(signal: AbortSignal, name: ClusterName, cluster: Cluster): Promise<void> {
    const old = this.#engaged.get(name);
    if (old && !old.stop.signal.aborted) {
      if (old.cluster === cluster) return;
      old.stop.abort();
    }
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal.reason);
    if (signal.aborted) return;
    signal.addEventListener("abort", onAbort, { once: true });
    const engagement: Engagement = { cluster, stop };
    this.#engaged.set(name, engagement);
    stop.signal.addEventListener(
      "abort",
      () => {
        signal.removeEventListener("abort", onAbort);
        if (this.#engaged.get(name) === engagement) this.#engaged.delete(name);
      },
      { once: true },
    );
    try {
      for (const s of this.#sources) await this.#watchIn(s, name, engagement);
    } catch (err) {
      stop.abort(err);
      throw err;
    }
  }

  async multiClusterWatch(source: ClusterSource<Req>): Promise<void> {
    this.#sources.push(source);
    for (const [name, engagement] of this.#engaged) await this.#watchIn(source, name, engagement);
  }

  async #watchIn(source: ClusterSource<Req>, name: ClusterName, engagement: Engagement): Promise<void> {
    const src: Source<Req> | undefined = source.forCluster(name, engagement.cluster);
    if (!src) return;
    await this.#inner.watch(withinSignal(src, engagement.stop.signal));
  }

  engagedClusters(): ClusterName[] {
    return [...this.#engaged.keys()].sort();
  }

  watch(source: Source<Req>): Promise<void> {
    return this.#inner.watch(source);
  }

  start(signal: AbortSignal): Promise<void> {
    return this.#inner.start(signal);
  }

  warmup(signal: AbortSignal): Promise<void> {
    return this.#inner.warmup(signal);
  }

  needLeaderElection(): boolean {
    return this.#inner.needLeaderElection();
  }

  getLogger(): Logger {
    return this.#inner.getLogger();
  }

  inFlightReconciles(): InFlightReconcile[] {
    return this.#inner.inFlightReconciles();
  }
}
