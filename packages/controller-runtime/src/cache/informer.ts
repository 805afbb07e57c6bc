// The shared informer: one store of a kind, kept current by one reflector per watched namespace,
// with indexes and event handlers (client-go's sharedIndexInformer). Handlers run on the
// informer's own loop, in order, after the store holds the change; a late handler first gets the
// current objects as adds. Objects are frozen when they arrive (see freeze.ts).
import type {
  DeepMutable,
  DeepReadonly,
  FieldSelector,
  Kind,
  KubeObject,
  LabelSelector,
} from "../api/index.js";
import { parseLabelSelector } from "../api/index.js";
import { nullLogger, type Logger } from "../log/index.js";
import type { RESTClient } from "../rest/index.js";
import type { Backoff } from "./backoff.js";
import { ConditionWaiters } from "./condition-waiters.js";
import {
  DeletedFinalStateUnknown,
  type HandlerRegistration,
  type ResourceEventHandler,
} from "./event-handler.js";
import { deepFreeze } from "./freeze.js";
import { type ListerWatcher, listWatcherFor } from "./list-watcher.js";
import { Reflector, type ReflectorHealth, type ReflectorSink, storeKeyOf } from "./reflector.js";
import { trackInformer } from "../internal/running.js";
import { compareResourceVersions } from "./resource-version.js";
import {
  type IndexFunc,
  IndexedStore,
  NAMESPACE_INDEX,
  type NamespaceStrings,
  type StoreReader,
} from "./store.js";
import { ALL_OTHER_NAMESPACES, asMap, type NamespaceConfig, type Namespaces } from "./namespaces.js";
import { stripManagedFields, type TransformFunc } from "./transform.js";
import type { WatcherError, WatcherOptions } from "./watcher.js";

export interface InformerOptions {
  /**
   * Watch only these namespaces (one list/watch each; ignored for cluster-scoped kinds): a list,
   * or a map of namespace to settings of its own (selectors, transform, resync period; unset ones
   * are the options below), where `ALL_OTHER_NAMESPACES` (`""`) stands for every namespace not
   * named: one list/watch across namespaces, with a field selector leaving the named ones out.
   * Default: all.
   */
  namespaces?: Namespaces;
  /** Only objects with matching labels. Default: everything. */
  labelSelector?: string | LabelSelector;
  /** Only objects with matching fields (server-side field selectors). Default: everything. */
  fieldSelector?: string | FieldSelector;
  /** Applied to each object before it is stored. Default: `stripManagedFields`. */
  transform?: TransformFunc;
  /** Store `PartialObjectMetadata` only, asked for with the `Accept` header. Default: false. */
  metadataOnly?: boolean;
  /**
   * How often every object is replayed to the handlers as an update (0 turns it off); each period
   * is jittered to 87.5–112.5 % as controller-runtime does. Default: 36 000 000 ms (10 h).
   */
  syncPeriodMs?: number;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** A backoff for each reflector. Default: `exponentialBackoff()`. */
  backoff?: () => Backoff;
  /** Options of the list/watch state machine (streaming lists, page size, watch length). Default: its defaults. */
  watcher?: WatcherOptions;
  /**
   * Called with each list or watch failure, before the backoff and retry (controller-runtime's
   * `DefaultWatchErrorHandler`, client-go's WatchErrorHandler); `namespace` is the scope's.
   * Default: none (the failure is logged and shows in `health()`).
   */
  watchErrorHandler?: WatchErrorHandler;
}

/** Told of each list or watch failure of an informer; must not throw (a throw is logged). */
export type WatchErrorHandler = (err: WatcherError, info: { kind: Kind; namespace?: string }) => void;

/** Options of one event handler (client-go's HandlerOptions). */
export interface EventHandlerOptions {
  /**
   * This handler's own resync period: every stored object is replayed to it as an update this
   * often (0: never), instead of on the informer's period (client-go's
   * `AddEventHandlerWithResyncPeriod`). Default: the informer's `syncPeriodMs`.
   */
  resyncPeriodMs?: number;
}

/** The health of an informer: the worst of its reflectors'. */
export type InformerHealth = ReflectorHealth;

/** A shared informer of one kind. */
export interface Informer<T extends KubeObject = KubeObject> {
  readonly kind: Kind<T>;
  /** The namespaces watched; empty means all (also when an `ALL_OTHER_NAMESPACES` entry watches the rest). */
  readonly namespaces: readonly string[];
  /**
   * The labels an object needs to be stored here; undefined when every object is. With settings
   * per namespace, the informer-wide option: `labelSelectorOf(namespace)` says a namespace's.
   */
  readonly labelSelector: LabelSelector | undefined;
  /** The labels an object of `namespace` needs to be stored here; undefined when every object is. */
  labelSelectorOf(namespace: string | undefined): LabelSelector | undefined;
  /**
   * Calls `handler` for every change from now on; if objects are stored, first as adds. With
   * `options.resyncPeriodMs`, the handler's resyncs follow its own period.
   */
  addEventHandler(handler: ResourceEventHandler<T>, options?: EventHandlerOptions): HandlerRegistration;
  /** Adds indexes; allowed at any time (the new ones are filled from the stored objects). */
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void;
  /** The store: frozen objects, read without copying. */
  readonly store: StoreReader<T>;
  /** True once every watched namespace has been listed. */
  hasSynced(): boolean;
  /** Resolves true once synced, false if the informer stops or the signal aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  health(): InformerHealth;
  /** The resourceVersion of the last change seen (the lowest over namespaces). */
  lastResourceVersion(): string;
  /**
   * The resourceVersion up to which the store holds every change to objects of `namespace` (its
   * reflector's, when the informer watches namespaces one by one; `lastResourceVersion()` without
   * a namespace). "" before the first list.
   */
  seenResourceVersion(namespace?: string): string;
  /**
   * Resolves true once `until()` holds, checked now and each time the store caught up with the
   * server (a list, a batch of events, a bookmark); false if the informer stops or `signal`
   * aborts first.
   */
  waitUntil(until: () => boolean, signal?: AbortSignal): Promise<boolean>;
  /** Lists and watches until `signal` aborts; resolves once stopped. A second call is refused. */
  run(signal: AbortSignal): Promise<void>;
  /** True after `run` has ended. */
  isStopped(): boolean;
}

interface Registration<T extends KubeObject> {
  handler: ResourceEventHandler<T>;
  removed: boolean;
  /** Set when the handler resyncs on a period of its own (and not with the informer's). */
  ownResync?: { periodMs: number; timer?: NodeJS.Timeout };
}

/** An informer for `kind` through `rest`. Starts nothing until `run`. */
export function newInformer<T extends KubeObject>(
  rest: RESTClient,
  kind: Kind<T>,
  opts: InformerOptions = {},
): Informer<T> {
  return new SharedInformer(rest, kind, opts);
}

function selectorText(s: string | LabelSelector | FieldSelector | undefined): string | undefined {
  return s === undefined ? undefined : typeof s === "string" ? s : s.toString();
}

/** One list/watch of the informer: a namespace (or all, or all but some) and its settings. */
interface Scope<T extends KubeObject> {
  /** The namespace listed; undefined: all namespaces (but `except`). */
  namespace: string | undefined;
  /** Namespaces other scopes watch, left out of an all-namespaces scope. */
  except: ReadonlySet<string> | undefined;
  labelSelector: LabelSelector | undefined;
  syncPeriodMs: number;
  reflector: Reflector<T>;
}

function parsedLabels(s: string | LabelSelector | undefined): LabelSelector | undefined {
  const labels = typeof s === "string" ? parseLabelSelector(s) : s;
  return labels === undefined || labels.empty ? undefined : labels;
}

/** `metadata.namespace!=a,...` and `own`: a list across namespaces but the named ones. */
function exceptNamespaces(except: readonly string[], own: string | undefined): string | undefined {
  const terms = [...except].sort().map((ns) => `metadata.namespace!=${ns}`);
  if (own) terms.push(own);
  return terms.length > 0 ? terms.join(",") : undefined;
}

class SharedInformer<T extends KubeObject> implements Informer<T> {
  readonly kind: Kind<T>;
  readonly namespaces: readonly string[];
  readonly labelSelector: LabelSelector | undefined;
  readonly #store = new IndexedStore<T>();
  readonly #scopes: Scope<T>[] = [];
  readonly #reflectors: Reflector<T>[];
  /** One list per watched scope, as the reflectors list: for settle()'s comparison with the store. */
  readonly #listers: ListerWatcher<T>[] = [];
  /** The scope of each watched namespace, when the informer watches them one by one. */
  readonly #byNamespace = new Map<string, Scope<T>>();
  /** The scope of the namespaces not named, when there is one beside named ones. */
  #others: Scope<T> | undefined;
  readonly #log: Logger;
  #handlers: Registration<T>[] = [];
  readonly #syncWaiters = new ConditionWaiters();
  readonly #progressWaiters = new ConditionWaiters();
  #started = false;
  #stopped = false;
  /** Set once every reflector synced; never unset (as client-go's HasSynced). */
  #synced = false;

  constructor(rest: RESTClient, kind: Kind<T>, opts: InformerOptions) {
    this.kind = kind;
    this.#log = (opts.logger ?? nullLogger()).withValues({ kind: kind.kind, group: kind.group });
    const byNamespace: Readonly<Record<string, NamespaceConfig>> = kind.namespaced
      ? (asMap(opts.namespaces) ?? {})
      : {};
    const named = Object.keys(byNamespace).filter((ns) => ns !== ALL_OTHER_NAMESPACES);
    const others = ALL_OTHER_NAMESPACES in byNamespace;
    this.namespaces = others ? [] : named;
    this.labelSelector = parsedLabels(opts.labelSelector);
    const defaults: NamespaceConfig = {
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector,
      transform: opts.transform ?? stripManagedFields,
      syncPeriodMs: opts.syncPeriodMs ?? 10 * 3600 * 1000,
    };
    const scopes: [string | undefined, NamespaceConfig][] =
      named.length === 0 && !others
        ? [[undefined, defaults]]
        : [
            ...named.map((ns): [string, NamespaceConfig] => [ns, byNamespace[ns]]),
            ...(others
              ? [[undefined, byNamespace[ALL_OTHER_NAMESPACES]] as [undefined, NamespaceConfig]]
              : []),
          ];
    const except = others && named.length > 0 ? new Set(named) : undefined;
    for (const [namespace, own] of scopes) {
      const c: NamespaceConfig = {
        labelSelector: own.labelSelector ?? defaults.labelSelector,
        fieldSelector: own.fieldSelector ?? defaults.fieldSelector,
        transform: own.transform ?? defaults.transform,
        syncPeriodMs: own.syncPeriodMs ?? defaults.syncPeriodMs,
      };
      const fields = selectorText(c.fieldSelector);
      const lw = listWatcherFor(rest, kind, {
        namespace,
        labelSelector: selectorText(c.labelSelector),
        fieldSelector: namespace === undefined && except ? exceptNamespaces(named, fields) : fields,
        metadataOnly: opts.metadataOnly,
        // The default transform drops managedFields: a protobuf answer's are never decoded.
        omitManagedFields: (c.transform ?? stripManagedFields) === stripManagedFields,
      });
      this.#listers.push(lw);
      const log = namespace ? this.#log.withValues({ namespace }) : this.#log;
      const scope: Scope<T> = {
        namespace,
        except: namespace === undefined ? except : undefined,
        labelSelector: parsedLabels(c.labelSelector),
        syncPeriodMs: c.syncPeriodMs ?? 0,
        reflector: undefined as unknown as Reflector<T>,
      };
      const onError = opts.watchErrorHandler;
      scope.reflector = new Reflector(lw, this.#sink(scope), {
        ingest: ingestFunc(kind, c.transform ?? stripManagedFields, this.#store.namespaces),
        logger: log,
        backoff: opts.backoff?.(),
        watcher: opts.watcher,
        onError: onError && ((err) => onError(err, namespace === undefined ? { kind } : { kind, namespace })),
      });
      if (namespace !== undefined) this.#byNamespace.set(namespace, scope);
      else if (except) this.#others = scope;
      this.#scopes.push(scope);
    }
    this.#reflectors = this.#scopes.map((sc) => sc.reflector);
  }

  /** The scope that holds `namespace`'s objects, when the informer watches namespaces apart. */
  #scopeOf(namespace: string | undefined): Scope<T> | undefined {
    if (namespace === undefined || this.#scopes.length === 1) return this.#scopes[0];
    return this.#byNamespace.get(namespace) ?? this.#others;
  }

  labelSelectorOf(namespace: string | undefined): LabelSelector | undefined {
    if (!this.kind.namespaced) return this.#scopes[0].labelSelector;
    return this.#scopeOf(namespace)?.labelSelector ?? this.labelSelector;
  }

  get store(): StoreReader<T> {
    return this.#store;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  isStopped(): boolean {
    return this.#stopped;
  }

  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return Promise.resolve(true);
    if (this.#stopped) return Promise.resolve(false);
    return this.#syncWaiters.wait(() => this.#synced, signal);
  }

  waitUntil(until: () => boolean, signal?: AbortSignal): Promise<boolean> {
    if (this.#stopped) return Promise.resolve(until());
    return this.#progressWaiters.wait(until, signal);
  }

  seenResourceVersion(namespace?: string): string {
    if (namespace === undefined || this.#scopes.length === 1) return this.lastResourceVersion();
    return this.#scopeOf(namespace)?.reflector.health().resourceVersion ?? "";
  }

  health(): InformerHealth {
    const all = this.#reflectors.map((r) => r.health());
    const worst = all.reduce((a, b) => (b.consecutiveErrors > a.consecutiveErrors ? b : a));
    const oldest = all.reduce((a, b) =>
      (b.lastSyncTime?.getTime() ?? 0) < (a.lastSyncTime?.getTime() ?? 0) ? b : a,
    );
    return {
      ...worst,
      hasSynced: all.every((h) => h.hasSynced),
      lastSyncTime: oldest.lastSyncTime,
      resourceVersion: this.lastResourceVersion(),
    };
  }

  lastResourceVersion(): string {
    let min = "";
    for (const r of this.#reflectors) {
      const rv = r.health().resourceVersion;
      if (min === "" || (rv !== "" && compareResourceVersions(rv, min) < 0)) min = rv;
    }
    return min;
  }

  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    this.#store.addIndexers(indexers);
  }

  addEventHandler(handler: ResourceEventHandler<T>, options: EventHandlerOptions = {}): HandlerRegistration {
    const reg: Registration<T> = { handler, removed: false };
    if (options.resyncPeriodMs !== undefined) {
      const periodMs = options.resyncPeriodMs;
      if (!(periodMs >= 0 && Number.isFinite(periodMs))) {
        throw new RangeError(
          `addEventHandler on the ${this.kind.kind} informer: resyncPeriodMs must be ≥ 0 ms (0: never), not ${periodMs}`,
        );
      }
      reg.ownResync = { periodMs };
      if (this.#started && !this.#stopped) this.#scheduleOwnResync(reg);
    }
    this.#handlers = [...this.#handlers, reg];
    for (const obj of this.#store.list()) this.#call(reg, "onAdd", () => handler.onAdd?.(obj, true));
    return {
      hasSynced: () => !reg.removed && this.hasSynced(),
      remove: () => {
        reg.removed = true;
        clearTimeout(reg.ownResync?.timer);
        this.#handlers = this.#handlers.filter((r) => r !== reg);
      },
    };
  }

  /** A handler's own resyncs: every stored object replayed to it alone, on its period (jittered). */
  #scheduleOwnResync(reg: Registration<T>): void {
    const own = reg.ownResync;
    if (!own || own.periodMs <= 0 || reg.removed) return;
    own.timer = setTimeout(
      () => {
        if (reg.removed || this.#stopped) return;
        for (const obj of this.#store.list())
          this.#call(reg, "onUpdate", () => reg.handler.onUpdate?.(obj, obj));
        this.#scheduleOwnResync(reg);
      },
      own.periodMs * (0.875 + Math.random() / 4),
    );
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.#started)
      throw new Error(`the ${this.kind.kind} informer was already started; an informer runs once`);
    this.#started = true;
    // Each scope resyncs on its own period, as each namespace's informer does in controller-runtime.
    const resyncs = new Map<Scope<T>, NodeJS.Timeout>();
    const schedule = (scope: Scope<T>) => {
      if (scope.syncPeriodMs <= 0) return;
      const timer = setTimeout(
        () => {
          this.#resync(scope);
          schedule(scope);
        },
        scope.syncPeriodMs * (0.875 + Math.random() / 4),
      );
      resyncs.set(scope, timer);
    };
    for (const scope of this.#scopes) schedule(scope);
    for (const reg of this.#handlers) this.#scheduleOwnResync(reg);
    const untrack = trackInformer({ what: `${this.kind.kind} informer`, caughtUp: () => this.#caughtUp() });
    try {
      await Promise.all(this.#reflectors.map((r) => r.run(signal)));
    } finally {
      untrack();
      for (const timer of resyncs.values()) clearTimeout(timer);
      for (const reg of this.#handlers) clearTimeout(reg.ownResync?.timer);
      this.#stopped = true;
      this.#syncWaiters.endAll(false);
      this.#progressWaiters.endAll(false);
    }
  }

  /** Whether the store holds what the server holds now: the same keys at the same versions. */
  async #caughtUp(): Promise<boolean> {
    if (!this.#synced || this.#stopped) return false;
    const server = new Map<string, string>();
    for (const lw of this.#listers) {
      const list = await lw.list({}, AbortSignal.timeout(30_000)); // no limit: every object at once
      for (const o of list.items ?? []) server.set(storeKeyOf(o), o.metadata?.resourceVersion ?? "");
    }
    if (server.size !== this.#store.size) return false;
    for (const [key, rv] of server) if (this.#store.get(key)?.metadata?.resourceVersion !== rv) return false;
    return true;
  }

  #resync(scope: Scope<T>): void {
    const handlers = this.#handlers;
    if (handlers.length === 0) return;
    const { namespace, except } = scope;
    const shared = handlers.filter((reg) => reg.ownResync === undefined);
    if (shared.length === 0) return;
    const objects =
      namespace !== undefined
        ? this.#store.byIndex(NAMESPACE_INDEX, namespace)
        : except
          ? this.#store.list().filter((o) => !except.has(o.metadata?.namespace ?? ""))
          : this.#store.list();
    for (const obj of objects) {
      for (const reg of shared) this.#call(reg, "onUpdate", () => reg.handler.onUpdate?.(obj, obj));
    }
  }

  #sink(scope: Pick<Scope<T>, "namespace" | "except">): ReflectorSink<T> {
    let first = true;
    return {
      replace: (items) => {
        const changes = this.#store.replace(items, scope.namespace, scope.except);
        const initial = first;
        first = false;
        for (const [key, old] of changes.deleted) this.#deleted(new DeletedFinalStateUnknown(key, old));
        for (const obj of changes.added) this.#added(obj, initial);
        for (const [old, obj] of changes.updated) this.#updated(old, obj);
      },
      synced: () => {
        this.#synced = this.#reflectors.every((r) => r.hasSynced());
        this.#syncWaiters.check();
      },
      progress: () => this.#progressWaiters.check(),
      apply: (obj) => {
        const old = this.#store.put(obj);
        if (old === undefined) this.#added(obj, false);
        else this.#updated(old, obj);
      },
      delete: (obj) => {
        this.#store.remove(obj);
        this.#deleted(obj);
      },
    };
  }

  // One loop per kind of notification, with no closure per event: they run for every change.
  #added(obj: DeepReadonly<T>, initial: boolean): void {
    for (const reg of this.#handlers) {
      if (reg.removed) continue;
      try {
        this.#settle(reg.handler.onAdd?.(obj, initial), "onAdd");
      } catch (err) {
        this.#log.error(err, "event handler onAdd failed");
      }
    }
  }

  #updated(old: DeepReadonly<T>, obj: DeepReadonly<T>): void {
    for (const reg of this.#handlers) {
      if (reg.removed) continue;
      try {
        this.#settle(reg.handler.onUpdate?.(old, obj), "onUpdate");
      } catch (err) {
        this.#log.error(err, "event handler onUpdate failed");
      }
    }
  }

  #deleted(obj: DeepReadonly<T> | DeletedFinalStateUnknown<T>): void {
    for (const reg of this.#handlers) {
      if (reg.removed) continue;
      try {
        this.#settle(reg.handler.onDelete?.(obj), "onDelete");
      } catch (err) {
        this.#log.error(err, "event handler onDelete failed");
      }
    }
  }

  /** A handler may return a promise (typed void): its rejection is logged, never unhandled. */
  #settle(out: unknown, what: string): void {
    if (out !== undefined && typeof (out as Promise<void>).then === "function") {
      (out as Promise<void>).catch((err: unknown) => this.#log.error(err, `event handler ${what} failed`));
    }
  }

  #call(reg: Registration<T>, what: string, call: () => unknown): void {
    if (reg.removed) return;
    try {
      const out = call();
      if (out !== undefined && typeof (out as Promise<void>).then === "function") {
        (out as Promise<void>).catch((err: unknown) => this.#log.error(err, `event handler ${what} failed`));
      }
    } catch (err) {
      this.#log.error(err, `event handler ${what} failed`);
    }
  }
}

/**
 * Fills in apiVersion and kind (list items come without them), transforms, shares one string per
 * namespace among the objects (JSON.parse makes a copy for each), freezes.
 */
function ingestFunc<T extends KubeObject>(
  kind: Kind<T>,
  transform: TransformFunc,
  namespaces: NamespaceStrings,
): (obj: T) => DeepReadonly<T> {
  return (obj) => {
    if (obj.kind !== kind.kind || obj.apiVersion !== kind.apiVersion) {
      obj.apiVersion = kind.apiVersion;
      obj.kind = kind.kind;
    }
    const out = transform(obj as DeepMutable<KubeObject>) as T;
    // Not yet frozen: the transform's output is the informer's own until deepFreeze below.
    const meta = out.metadata as { namespace?: string } | undefined;
    const ns = meta?.namespace;
    if (ns && !Object.isFrozen(meta)) meta.namespace = namespaces.shared(ns);
    return deepFreeze(out);
  };
}
