// The shared informer: one store of a kind, kept current by one reflector per watched namespace,
// with indexes and event handlers (client-go's sharedIndexInformer). Handlers run on the
// informer's own loop, in order, after the store holds the change; a late handler first gets the
// current objects as adds. Objects are frozen when they arrive (see freeze.ts).
import type { FieldSelector, Kind, KubeObject, LabelSelector } from "../api/index.js";
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
import { type IndexFunc, IndexedStore, type NamespaceStrings, type StoreReader } from "./store.js";
import { stripManagedFields, type TransformFunc } from "./transform.js";
import type { WatcherOptions } from "./watcher.js";

export interface InformerOptions {
  /** Watch only these namespaces (one list/watch each; ignored for cluster-scoped kinds). Default: all. */
  namespaces?: readonly string[];
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
}

/** The health of an informer: the worst of its reflectors'. */
export type InformerHealth = ReflectorHealth;

/** A shared informer of one kind. */
export interface Informer<T extends KubeObject = KubeObject> {
  readonly kind: Kind<T>;
  /** The namespaces watched; empty means all. */
  readonly namespaces: readonly string[];
  /** The labels an object needs to be stored here; undefined when every object is. */
  readonly labelSelector: LabelSelector | undefined;
  /** Calls `handler` for every change from now on; if objects are stored, first as adds. */
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration;
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

class SharedInformer<T extends KubeObject> implements Informer<T> {
  readonly kind: Kind<T>;
  readonly namespaces: readonly string[];
  readonly labelSelector: LabelSelector | undefined;
  readonly #store = new IndexedStore<T>();
  readonly #reflectors: Reflector<T>[];
  /** One list per watched scope, as the reflectors list: for settle()'s comparison with the store. */
  readonly #listers: ListerWatcher<T>[] = [];
  /** The reflector of each watched namespace, when the informer watches them one by one. */
  readonly #byNamespace = new Map<string, Reflector<T>>();
  readonly #log: Logger;
  readonly #syncPeriodMs: number;
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
    this.#syncPeriodMs = opts.syncPeriodMs ?? 10 * 3600 * 1000;
    this.namespaces = kind.namespaced ? [...new Set(opts.namespaces ?? [])] : [];
    const labels =
      typeof opts.labelSelector === "string" ? parseLabelSelector(opts.labelSelector) : opts.labelSelector;
    this.labelSelector = labels === undefined || labels.empty ? undefined : labels;
    const ingest = ingestFunc(kind, opts.transform ?? stripManagedFields, this.#store.namespaces);
    const scopes: (string | undefined)[] = this.namespaces.length > 0 ? [...this.namespaces] : [undefined];
    this.#reflectors = scopes.map((namespace) => {
      const lw = listWatcherFor(rest, kind, {
        namespace,
        labelSelector: selectorText(opts.labelSelector),
        fieldSelector: selectorText(opts.fieldSelector),
        metadataOnly: opts.metadataOnly,
      });
      this.#listers.push(lw);
      const log = namespace ? this.#log.withValues({ namespace }) : this.#log;
      const reflector = new Reflector(lw, this.#sink(namespace), {
        ingest,
        logger: log,
        backoff: opts.backoff?.(),
        watcher: opts.watcher,
      });
      if (namespace !== undefined) this.#byNamespace.set(namespace, reflector);
      return reflector;
    });
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
    if (namespace === undefined || this.#byNamespace.size === 0) return this.lastResourceVersion();
    return this.#byNamespace.get(namespace)?.health().resourceVersion ?? "";
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

  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    const reg: Registration<T> = { handler, removed: false };
    this.#handlers = [...this.#handlers, reg];
    for (const obj of this.#store.list()) this.#call(reg, "onAdd", () => handler.onAdd?.(obj, true));
    return {
      hasSynced: () => !reg.removed && this.hasSynced(),
      remove: () => {
        reg.removed = true;
        this.#handlers = this.#handlers.filter((r) => r !== reg);
      },
    };
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.#started)
      throw new Error(`the ${this.kind.kind} informer was already started; an informer runs once`);
    this.#started = true;
    let resync: NodeJS.Timeout | undefined;
    const schedule = () => {
      if (this.#syncPeriodMs <= 0) return;
      resync = setTimeout(
        () => {
          this.#resync();
          schedule();
        },
        this.#syncPeriodMs * (0.875 + Math.random() / 4),
      );
    };
    schedule();
    const untrack = trackInformer({ what: `${this.kind.kind} informer`, caughtUp: () => this.#caughtUp() });
    try {
      await Promise.all(this.#reflectors.map((r) => r.run(signal)));
    } finally {
      untrack();
      clearTimeout(resync);
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

  #resync(): void {
    const handlers = this.#handlers;
    if (handlers.length === 0) return;
    for (const obj of this.#store.list()) {
      for (const reg of handlers) this.#call(reg, "onUpdate", () => reg.handler.onUpdate?.(obj, obj));
    }
  }

  #sink(namespace: string | undefined): ReflectorSink<T> {
    let first = true;
    return {
      replace: (items) => {
        const changes = this.#store.replace(items, namespace);
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
  #added(obj: Readonly<T>, initial: boolean): void {
    for (const reg of this.#handlers) {
      if (reg.removed) continue;
      try {
        this.#settle(reg.handler.onAdd?.(obj, initial), "onAdd");
      } catch (err) {
        this.#log.error(err, "event handler onAdd failed");
      }
    }
  }

  #updated(old: Readonly<T>, obj: Readonly<T>): void {
    for (const reg of this.#handlers) {
      if (reg.removed) continue;
      try {
        this.#settle(reg.handler.onUpdate?.(old, obj), "onUpdate");
      } catch (err) {
        this.#log.error(err, "event handler onUpdate failed");
      }
    }
  }

  #deleted(obj: Readonly<T> | DeletedFinalStateUnknown<T>): void {
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
): (obj: T) => Readonly<T> {
  return (obj) => {
    if (obj.kind !== kind.kind || obj.apiVersion !== kind.apiVersion) {
      obj.apiVersion = kind.apiVersion;
      obj.kind = kind.kind;
    }
    const out = transform(obj) as T;
    const meta = out.metadata;
    const ns = meta?.namespace;
    if (ns && !Object.isFrozen(meta)) meta.namespace = namespaces.shared(ns);
    return deepFreeze(out);
  };
}
