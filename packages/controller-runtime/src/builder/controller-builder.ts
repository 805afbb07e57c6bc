// controllerManagedBy(mgr): controller-runtime's builder. It collects `for`, `owns` and `watches`
// settings, and reports the first mistake at complete()/build() with a message that says what to
// do, rather than failing half-way through wiring.
import type { Kind, KubeObject } from "../api/index.js";
import { metadataOnly } from "../cache/index.js";
import {
  type Controller,
  type ControllerContext,
  type ControllerOptions,
  type LogConstructor,
  newController,
  newLogConstructor,
  newUnmanagedController,
} from "../controller/index.js";
import type { GenericEvent } from "../event/index.js";
import { type EventHandler, enqueueRequestForObject, enqueueRequestForOwner } from "../handler/index.js";
import type { Predicate } from "../predicate/index.js";
import type { Reconciler, Request, RequestCodec } from "../reconcile/index.js";
import type { ShardedControllers } from "../sharding/sharding.js";
import {
  type Channel,
  channel,
  type InformerCache,
  kind as kindSource,
  type Source,
} from "../source/index.js";

/** What the builder needs of the Manager. */
export interface BuilderManager extends ControllerContext {
  getCache(): InformerCache;
  /** The Manager's part in a ring, when it was made with the `sharding` option. */
  readonly sharding?: ShardedControllers;
}

export interface ForOptions<T extends KubeObject> {
  /** Filters for events of the primary kind. Default: none. */
  predicates?: Predicate<T>[];
  /** Watch metadata only (`PartialObjectMetadata`), saving memory for large kinds. Default: false. */
  onlyMetadata?: boolean;
  /**
   * Share the objects of this kind, and of the kinds it `owns()`, with the other replicas of the
   * Manager's ring (`Manager.create(cfg, { sharding })`): this replica caches and reconciles only
   * the objects assigned to it, and runs the controller while it holds its place in the ring.
   * The Manager's cache then holds only this replica's objects of these kinds, for every reader:
   * read others with `getAPIReader()`. Default: false.
   */
  sharded?: boolean;
}

export interface OwnsOptions<T extends KubeObject> {
  predicates?: Predicate<T>[];
  /** Queue every owner of the primary kind, not only the controller owner. Default: false. */
  matchEveryOwner?: boolean;
  onlyMetadata?: boolean;
}

export interface WatchesOptions<T extends KubeObject> {
  predicates?: Predicate<T>[];
  onlyMetadata?: boolean;
  /** For a channel: events buffered for this source. Default: 1024. */
  bufferSize?: number;
}

/** Thrown by complete()/build() for a builder that cannot make a working controller. */
export class BuilderError extends Error {
  override readonly name = "BuilderError";
  readonly code = "ERR_BUILDER";
}

type Watchable<T extends KubeObject, Req = Request> =
  | Kind<T>
  | Source<Req>
  | Channel<GenericEvent<T>>
  | AsyncIterable<GenericEvent<T>>;

function isKind(x: unknown): x is Kind {
  return typeof x === "object" && x !== null && "plural" in x && "kind" in x && "apiVersion" in x;
}

function isSource<Req>(x: unknown): x is Source<Req> {
  return typeof x === "object" && x !== null && typeof (x as Source).start === "function";
}

interface PendingWatch<Req> {
  describe: string;
  make(globalPredicates: Predicate<KubeObject>[]): Source<Req>;
}

/** Options of {@link typedControllerManagedBy}. */
export interface TypedBuilderOptions<Req> {
  /** Work queue keys of the requests. Required: the queue holds strings. */
  requestCodec: RequestCodec<Req>;
}

/**
 * The builder of a controller reconciling `Req` (controller-runtime's `TypedBuilder[request]`).
 * `for()` and `owns()` queue `Request`s, so they serve `Request` controllers only (as in Go);
 * a typed controller watches kinds with its own handlers, sources and channels.
 */
export class ControllerBuilder<Req = Request> {
  readonly #mgr: BuilderManager;
  /** Set for a typed builder (requests other than `Request`). */
  readonly #typed: TypedBuilderOptions<Req> | undefined;
  #forKind: Kind | undefined;
  #forOptions: ForOptions<KubeObject> = {};
  readonly #watches: PendingWatch<Req>[] = [];
  readonly #globalPredicates: Predicate<KubeObject>[] = [];
  #options: Partial<ControllerOptions<Req>> = {};
  #name: string | undefined;
  #logConstructor: LogConstructor<Req> | undefined;
  readonly #errors: string[] = [];
  readonly #kinds = new Set<Kind>();
  readonly #owned: Kind[] = [];

  constructor(mgr: BuilderManager, typed?: TypedBuilderOptions<Req>) {
    this.#mgr = mgr;
    this.#typed = typed;
  }

  /** The kind this controller reconciles: its events queue a request for the object itself. */
  for<T extends KubeObject>(kind: Kind<T>, opts: ForOptions<T> = {}): this {
    if (this.#typed) {
      this.#errors.push(
        `for(${kind.kind}) queues Requests, not this typed controller's requests: watch the kind with a handler of yours (watches(Kind, handler))`,
      );
    }
    if (this.#forKind) {
      this.#errors.push(`for() was called twice (${this.#forKind.kind}, then ${kind.kind}): call it once`);
    }
    this.#forKind = kind;
    this.#kinds.add(kind);
    this.#forOptions = opts as ForOptions<KubeObject>;
    return this;
  }

  /** A kind the controller creates: its events queue the owner (of the `for()` kind) found in ownerReferences. */
  owns<T extends KubeObject>(kind: Kind<T>, opts: OwnsOptions<T> = {}): this {
    if (this.#typed) {
      this.#errors.push(
        `owns(${kind.kind}) queues Requests, not this typed controller's requests: watch the kind with a handler of yours (watches(Kind, handler))`,
      );
    }
    this.#kinds.add(kind);
    this.#owned.push(kind);
    this.#watches.push({
      describe: `owns(${kind.kind})`,
      make: (global) => {
        if (!this.#forKind)
          throw new BuilderError("owns() can only be used together with for(): name the owner kind in for()");
        const handler = enqueueRequestForOwner<KubeObject, T>(this.#forKind, {
          onlyControllerOwner: !(opts.matchEveryOwner ?? false),
        });
        return this.#kindSource(kind, handler as unknown as EventHandler<T, Req>, opts.onlyMetadata, [
          ...global,
          ...(opts.predicates ?? []),
        ]);
      },
    });
    return this;
  }

  /**
   * Another source of requests: a kind with a handler (`enqueueRequestsFromMapFunc(...)`), a
   * channel or async iterable of GenericEvents with a handler (events from outside the cluster),
   * or a ready-made Source (its own handler; `handler` must be omitted).
   */
  watches<T extends KubeObject>(
    what: Watchable<T, Req>,
    handler?: EventHandler<T, Req>,
    opts: WatchesOptions<T> = {},
  ): this {
    const predicates = (opts.predicates ?? []) as Predicate<KubeObject>[];
    if (isKind(what)) {
      const k = what as Kind<T>;
      this.#kinds.add(k);
      this.#watches.push({
        describe: `watches(${k.kind})`,
        make: (global) => {
          if (!handler)
            throw new BuilderError(
              `watches(${k.kind}) needs an event handler, e.g. enqueueRequestsFromMapFunc`,
            );
          return this.#kindSource(k, handler, opts.onlyMetadata, [...global, ...predicates]);
        },
      });
    } else if (isSource<Req>(what)) {
      if (handler)
        this.#errors.push("watches(source, handler): a Source brings its own handler; omit the handler");
      this.#watches.push({ describe: String(what), make: () => what });
    } else {
      this.#watches.push({
        describe: "watches(channel)",
        make: (global) => {
          if (!handler)
            throw new BuilderError(
              "watches(channel) needs an event handler, e.g. enqueueRequestsFromMapFunc",
            );
          return channel(what as AsyncIterable<GenericEvent<T>>, handler, {
            bufferSize: opts.bufferSize,
            predicates: [...global, ...predicates] as Predicate<T>[],
          });
        },
      });
    }
    return this;
  }

  /** Filters applied to every kind and channel watched through this builder. */
  withEventFilter(p: Predicate<KubeObject>): this {
    this.#globalPredicates.push(p);
    return this;
  }

  /** Controller options (maxConcurrentReconciles, rateLimiter, ...); the manager's defaults fill the rest. */
  withOptions(options: Partial<Omit<ControllerOptions<Req>, "reconciler">>): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** The controller's name, in logs and metrics. Default: the `for()` kind, lower-cased. */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /** A source of this controller's requests of its own (controller-runtime's `WatchesRawSource`). */
  watchesRawSource(source: Source<Req>): this {
    return this.watches(source);
  }

  withLogConstructor(f: LogConstructor<Req>): this {
    this.#logConstructor = f;
    return this;
  }

  /** Builds the controller, adds it to the manager, and returns it. */
  build(reconciler: Reconciler<Req>): Controller<Req> {
    return this.#make(reconciler, this.#mgr, newController<Req>);
  }

  /**
   * Builds a controller that the caller starts, under `ctx` (the manager's by default): the
   * manager's conditional controllers make a fresh one for each run this way.
   */
  buildUnmanaged(reconciler: Reconciler<Req>, ctx: ControllerContext = this.#mgr): Controller<Req> {
    return this.#make(reconciler, ctx, newUnmanagedController<Req>);
  }

  /** The name `build` gives the controller (its `named()`, else the `for()` kind in lower case). */
  get controllerName(): string | undefined {
    return this.#name ?? this.#forKind?.kind.toLowerCase();
  }

  /** The kinds the controller's sources read from the cache (`for`, `owns`, `watches` of a Kind). */
  get watchedKinds(): readonly Kind[] {
    return [...this.#kinds];
  }

  #make(
    reconciler: Reconciler<Req>,
    ctx: ControllerContext,
    create: typeof newController<Req>,
  ): Controller<Req> {
    const errors = [...this.#errors];
    if (!this.#forKind && !this.#name)
      errors.push("call for(Kind) or named(name) before complete(): a controller needs a name");
    if (!this.#forKind && this.#watches.length === 0) {
      errors.push("the controller watches nothing: add for(Kind), owns(Kind) or watches(...)");
    }
    const sharded = this.#forOptions.sharded === true;
    if (sharded && !this.#mgr.sharding) {
      errors.push("for(Kind, { sharded: true }) needs a Manager made with the sharding option");
    }
    if (errors.length > 0) throw new BuilderError(`controllerManagedBy: ${errors.join("; ")}`);
    if (sharded) {
      const sharding = this.#mgr.sharding!;
      sharding.register(this.#forKind!, this.#owned);
      reconciler = sharding.reconciler(
        this.#forKind!,
        reconciler as unknown as Reconciler<Request>,
      ) as unknown as Reconciler<Req>;
      // A managed one is run by the ring, not the Manager: only while this replica holds its Lease.
      if (create === newController<Req>) {
        create = (name, context, options) => {
          const c = newUnmanagedController<Req>(name, context, options);
          sharding.add(c);
          return c;
        };
      }
    }
    const name = this.#name ?? this.#forKind!.kind.toLowerCase();
    const sources: Source<Req>[] = [];
    const global = this.#globalPredicates;
    if (this.#forKind) {
      const fo = this.#forOptions;
      sources.push(
        this.#kindSource(
          this.#forKind,
          enqueueRequestForObject() as unknown as EventHandler<KubeObject, Req>,
          fo.onlyMetadata,
          [...global, ...(fo.predicates ?? [])],
        ),
      );
    }
    for (const w of this.#watches) sources.push(w.make(global));
    // controller-runtime logs the primary kind on every line (controllerGroup, controllerKind).
    const logConstructor =
      this.#logConstructor ??
      this.#options.logConstructor ??
      (this.#mgr.logger
        ? newLogConstructor<Req>({ logger: this.#mgr.logger, controllerName: name, kind: this.#forKind })
        : undefined);
    const controller = create(name, ctx, {
      ...this.#options,
      ...(this.#typed ? { requestCodec: this.#options.requestCodec ?? this.#typed.requestCodec } : {}),
      maxConcurrentReconciles: this.#options.maxConcurrentReconciles ?? this.#groupKindConcurrency(ctx),
      reconciler,
      logConstructor,
    });
    for (const s of sources) void controller.watch(s);
    return controller;
  }

  /** Builds the controller and adds it to the manager (controller-runtime's Complete). */
  complete(reconciler: Reconciler<Req>): void {
    this.build(reconciler);
  }

  /** The manager's `groupKindConcurrency` for the `for` kind, as Go's builder looks it up. */
  #groupKindConcurrency(ctx: ControllerContext): number | undefined {
    const k = this.#forKind;
    if (!k) return undefined;
    const n = ctx.controllerDefaults?.groupKindConcurrency?.[k.group ? `${k.kind}.${k.group}` : k.kind];
    return n !== undefined && n > 0 ? n : undefined;
  }

  #kindSource<T extends KubeObject>(
    k: Kind<T>,
    handler: EventHandler<T, Req>,
    onlyMetadata: boolean | undefined,
    predicates: Predicate<KubeObject>[],
  ): Source<Req> {
    const watched = (onlyMetadata ? metadataOnly(k) : k) as Kind<T>;
    return kindSource(this.#mgr.getCache(), watched, handler, ...(predicates as Predicate<T>[]));
  }
}

/** Starts a controller builder for `mgr`, as controller-runtime's `ctrl.NewControllerManagedBy`. */
export function controllerManagedBy(mgr: BuilderManager): ControllerBuilder {
  return new ControllerBuilder(mgr);
}

/**
 * Starts a builder of a controller of `Req` requests (controller-runtime's
 * `TypedControllerManagedBy[request]`): `typedControllerManagedBy<Key>(mgr, { requestCodec })`.
 */
export function typedControllerManagedBy<Req>(
  mgr: BuilderManager,
  options: TypedBuilderOptions<Req>,
): ControllerBuilder<Req> {
  if (
    typeof options?.requestCodec?.toKey !== "function" ||
    typeof options.requestCodec.fromKey !== "function"
  ) {
    throw new BuilderError(
      "typedControllerManagedBy: pass { requestCodec: { toKey, fromKey } }: the work queue holds string keys",
    );
  }
  return new ControllerBuilder<Req>(mgr, options);
}
