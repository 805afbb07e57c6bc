// The multi-cluster builder (multicluster-runtime's mcbuilder): for/owns/watches described once,
// made into a source in the local cluster and/or in each cluster the provider engages, for a
// controller of ClusterRequests.
import type { Kind, KubeObject } from "../api/index.js";
import { BuilderError } from "../builder/index.js";
import type { LogConstructor } from "../controller/index.js";
import type { Logger } from "../log/index.js";
import type { Predicate } from "../predicate/index.js";
import type { Reconciler } from "../reconcile/index.js";
import type { Source } from "../source/index.js";
import {
  type MulticlusterController,
  type MulticlusterControllerOptions,
  newMulticlusterController,
} from "./controller.js";
import {
  type ClusterHandlerFunc,
  enqueueClusterRequestForObject,
  enqueueClusterRequestForOwner,
} from "./handler.js";
import type { MulticlusterManager } from "./manager.js";
import type { ClusterRequest } from "./request.js";
import { type ClusterFilter, type ClusterSource, clusterKind } from "./source.js";

/** Which clusters a watch engages with (multicluster-runtime's `EngageOptions`). */
export interface EngageOptions {
  /** Watch the Manager's own cluster. Default: true when the Manager has no provider, else false. */
  engageWithLocalCluster?: boolean;
  /** Watch each cluster the provider engages. Default: true when the Manager has a provider. */
  engageWithProviderClusters?: boolean;
  /** Engage only with the clusters it accepts. Default: all. */
  clusterFilter?: ClusterFilter;
}

interface WatchOptions<T extends KubeObject> extends EngageOptions {
  predicates?: Predicate<T>[];
  /** Watch metadata only (`PartialObjectMetadata`). Default: false. */
  onlyMetadata?: boolean;
}

export interface ClusterForOptions<T extends KubeObject> extends WatchOptions<T> {}
export interface ClusterOwnsOptions<T extends KubeObject> extends WatchOptions<T> {
  /** Queue every owner of the primary kind, not only the controller owner. Default: false. */
  matchEveryOwner?: boolean;
}
export interface ClusterWatchesOptions<T extends KubeObject> extends WatchOptions<T> {}

interface Pending {
  describe: string;
  make(global: Predicate<KubeObject>[]): { source: ClusterSource; engage: EngageOptions };
}

export class MulticlusterControllerBuilder {
  readonly #mgr: MulticlusterManager;
  #forKind: Kind | undefined;
  #for: Pending | undefined;
  readonly #watches: Pending[] = [];
  readonly #raw: Source<ClusterRequest>[] = [];
  readonly #global: Predicate<KubeObject>[] = [];
  #options: Partial<MulticlusterControllerOptions> = {};
  #name: string | undefined;
  readonly #errors: string[] = [];

  constructor(mgr: MulticlusterManager) {
    this.#mgr = mgr;
  }

  /** The kind reconciled: its events queue its own key in its cluster. */
  for<T extends KubeObject>(kind: Kind<T>, opts: ClusterForOptions<T> = {}): this {
    if (this.#forKind) this.#errors.push(`for() was called twice (${this.#forKind.kind}, then ${kind.kind})`);
    this.#forKind = kind;
    this.#for = this.#pending(`for(${kind.kind})`, kind, enqueueClusterRequestForObject<T>(), opts);
    return this;
  }

  /** A kind the controller creates: its events queue their owner of the `for()` kind, in their cluster. */
  owns<T extends KubeObject>(kind: Kind<T>, opts: ClusterOwnsOptions<T> = {}): this {
    this.#watches.push({
      describe: `owns(${kind.kind})`,
      make: (global) => {
        if (!this.#forKind)
          throw new BuilderError("owns() can only be used together with for(): name the owner kind in for()");
        const handler = enqueueClusterRequestForOwner<KubeObject, T>(this.#forKind, {
          onlyControllerOwner: !(opts.matchEveryOwner ?? false),
        });
        return this.#pending(`owns(${kind.kind})`, kind, handler, opts).make(global);
      },
    });
    return this;
  }

  /** Another kind, each cluster's events mapped by `handler(name, cluster)` (e.g. `lift(enqueueRequestsFromMapFunc(...))`). */
  watches<T extends KubeObject>(
    kind: Kind<T>,
    handler: ClusterHandlerFunc<T>,
    opts: ClusterWatchesOptions<T> = {},
  ): this {
    this.#watches.push(this.#pending(`watches(${kind.kind})`, kind, handler, opts));
    return this;
  }

  /** A source of ClusterRequests of its own (multicluster-runtime's `WatchesRawSource`). */
  watchesRawSource(source: Source<ClusterRequest>): this {
    this.#raw.push(source);
    return this;
  }

  /** Filters applied to every kind watched through this builder. */
  withEventFilter(p: Predicate<KubeObject>): this {
    this.#global.push(p);
    return this;
  }

  withOptions(options: Partial<Omit<MulticlusterControllerOptions, "reconciler">>): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** The controller's name, in logs and metrics. Default: the `for()` kind, lower-cased. */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  withLogConstructor(f: LogConstructor<ClusterRequest>): this {
    this.#options.logConstructor = f;
    return this;
  }

  #pending<T extends KubeObject>(
    describe: string,
    kind: Kind<T>,
    handler: ClusterHandlerFunc<T>,
    opts: WatchOptions<T>,
  ): Pending {
    return {
      describe,
      make: (global) => ({
        source: clusterKind(
          kind,
          handler,
          [...global, ...((opts.predicates ?? []) as Predicate<KubeObject>[])] as Predicate<T>[],
          { clusterFilter: opts.clusterFilter, onlyMetadata: opts.onlyMetadata },
        ) as ClusterSource,
        engage: opts,
      }),
    };
  }

  /** Builds the controller, adds it to the Manager (engaged with its clusters), and returns it. */
  build(reconciler: Reconciler<ClusterRequest>): MulticlusterController {
    const errors = [...this.#errors];
    if (!this.#forKind && !this.#name)
      errors.push("call for(Kind) or named(name): a controller needs a name");
    if (!this.#for && this.#watches.length === 0 && this.#raw.length === 0) {
      errors.push(
        "the controller watches nothing: add for(Kind), owns(Kind), watches(...) or watchesRawSource(...)",
      );
    }
    if (errors.length > 0) throw new BuilderError(`multiclusterControllerManagedBy: ${errors.join("; ")}`);
    const name = this.#name ?? this.#forKind!.kind.toLowerCase();
    const hasProvider = this.#mgr.getProvider() !== undefined;
    const made = [this.#for, ...this.#watches]
      .filter((p): p is Pending => p !== undefined)
      .map((p) => p.make(this.#global));
    const logger = this.#mgr.logger;
    const controller = newMulticlusterController(name, this.#mgr, {
      ...this.#options,
      logConstructor:
        this.#options.logConstructor ??
        (logger ? clusterLogConstructor(logger.withValues({ controller: name })) : undefined),
      reconciler,
    });
    const local = this.#mgr.getLocalManager();
    for (const { source, engage } of made) {
      if (engage.engageWithLocalCluster ?? !hasProvider) {
        const src = source.forCluster("", local);
        if (src) void controller.watch(src);
      }
      if (engage.engageWithProviderClusters ?? hasProvider) void controller.multiClusterWatch(source);
    }
    for (const s of this.#raw) void controller.watch(s);
    return controller;
  }

  complete(reconciler: Reconciler<ClusterRequest>): void {
    this.build(reconciler);
  }
}

/** A request's logger names its cluster beside its namespace and name. */
function clusterLogConstructor(base: Logger): LogConstructor<ClusterRequest> {
  return (req) =>
    req === undefined
      ? base
      : base.withValues({ cluster: req.clusterName, namespace: req.namespace, name: req.name });
}

/** Starts a multi-cluster controller builder (multicluster-runtime's `mcbuilder.ControllerManagedBy`). */
export function multiclusterControllerManagedBy(mgr: MulticlusterManager): MulticlusterControllerBuilder {
  return new MulticlusterControllerBuilder(mgr);
}
