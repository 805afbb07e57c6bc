// The Cache: informers shared by kind, started with the cache (or on first use once it runs),
// and a Reader over their stores. One informer per kind (and metadata-only flag) serves every
// controller, the client and the field indexer; its namespaces, selectors and transform come from
// the cache's options, as in controller-runtime, so everyone asking for a kind sees the same set.
import type { DeepReadonly, GroupVersionKind, Kind, KubeList, KubeObject, ObjectKey } from "../api/index.js";
import { defineKind } from "../api/index.js";
import type { RESTConfig } from "../rest/index.js";
import { newRESTMapper, type RESTMapper } from "../mapper/index.js";
import { newRESTClient, type RESTClient } from "../rest/index.js";
import { type CacheOptions, type ResolvedCacheOptions, resolveCacheOptions } from "./cache-options.js";
import {
  type CacheGetOptions,
  type CacheListOptions,
  getFromInformer,
  listFromInformer,
} from "./cache-reader.js";
import { CacheNotStartedError, CacheSyncError, ResourceNotCachedError } from "./errors.js";
import { fieldIndexName, type IndexerFunc, indexByFieldAndNamespace } from "./field-index.js";
import { type Informer, newInformer } from "./informer.js";
import { isMetadataOnly } from "./metadata-kind.js";
import { awaitWrites } from "./read-your-writes.js";

/** Reads objects: from the cache, or (the Client's API reader) from the server. */
export interface Reader {
  /** The object, frozen; a missing one rejects with a NotFound `StatusError` (`isNotFound`). */
  get<T extends KubeObject>(kind: Kind<T>, key: ObjectKey, opts?: CacheGetOptions): Promise<DeepReadonly<T>>;
  list<T extends KubeObject>(kind: Kind<T>, opts?: CacheListOptions): Promise<KubeList<DeepReadonly<T>>>;
}

/** Registers field indexes for `matchingFields` (controller-runtime's FieldIndexer). */
export interface FieldIndexer {
  /**
   * Indexes `kind` by `field` with the values `extract` returns. Allowed before and after the
   * cache started: a running informer's index is filled from the objects it holds. Registering
   * one field twice for a kind is refused (`IndexConflictError`).
   */
  indexField<T extends KubeObject>(kind: Kind<T>, field: string, extract: IndexerFunc<T>): Promise<void>;
}

export interface GetInformerOptions {
  /** Wait until the informer synced when the cache runs. Default: true. */
  blockUntilSynced?: boolean;
  /** Cancels the wait. Default: none. */
  signal?: AbortSignal;
}

export interface Cache extends Reader, FieldIndexer {
  /** The shared informer of `kind`, created (and started, if the cache runs) on first use. */
  getInformer<T extends KubeObject>(kind: Kind<T>, opts?: GetInformerOptions): Promise<Informer<T>>;
  /** As `getInformer`, for a kind known by name only (discovery finds its resource and scope). */
  getInformerForKind(gvk: GroupVersionKind, opts?: GetInformerOptions): Promise<Informer>;
  /** Stops and forgets the informer of `kind`; true if there was one. */
  removeInformer(kind: Kind): boolean;
  /** Resolves true once the cache started and every informer synced, false if `signal` fires first. */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean>;
  /** Runs the informers until `signal` aborts; resolves once all stopped. Runs once. */
  start(signal: AbortSignal): Promise<void>;
  /** The Manager's readiness: every informer synced. */
  hasSynced(): boolean;
}

interface Entry {
  informer: Informer;
  stop: AbortController;
  done?: Promise<void>;
  removed?: boolean;
}

/** A cache reading through `config` (or `opts.restClient`). Opens no connection until started. */
export function newCache(config: RESTConfig, opts: CacheOptions = {}): Cache {
  return new InformerCache(config, resolveCacheOptions(opts));
}

function informerKey(kind: GroupVersionKind, metadataOnly: boolean): string {
  return `${kind.group}/${kind.version}/${kind.kind}${metadataOnly ? "#metadata" : ""}`;
}

class InformerCache implements Cache {
  readonly #config: RESTConfig;
  readonly #opts: ResolvedCacheOptions;
  readonly #informers = new Map<string, Entry>();
  /** Entries by descriptor, so that a read of a synced kind needs no key building. */
  readonly #byKind = new WeakMap<Kind, Entry>();
  /** Each started informer's run (settled once it stops) and the error it stopped with, if any. */
  readonly #runs = new WeakMap<Informer, Promise<void>>();
  readonly #failures = new WeakMap<Informer, unknown>();
  #rest: RESTClient | undefined;
  #mapper: RESTMapper | undefined;
  #signal: AbortSignal | undefined;
  #onStart: (() => void)[] = [];

  constructor(config: RESTConfig, opts: ResolvedCacheOptions) {
    this.#config = config;
    this.#opts = opts;
  }

  #restClient(): RESTClient {
    this.#rest ??= this.#opts.restClient ?? newRESTClient(this.#config);
    return this.#rest;
  }

  async start(signal: AbortSignal): Promise<void> {
    if (this.#signal) throw new Error("the cache was already started; a cache runs once");
    this.#signal = signal;
    for (const entry of this.#informers.values()) this.#run(entry);
    for (const f of this.#onStart.splice(0)) f();
    if (!signal.aborted)
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    await Promise.all([...this.#informers.values()].map((e) => e.done));
    if (!this.#opts.restClient && this.#rest) await this.#rest.close();
  }

  #run(entry: Entry): void {
    const signal = this.#signal;
    if (!signal || entry.done) return;
    entry.done = entry.informer.run(AbortSignal.any([signal, entry.stop.signal])).catch((err: unknown) => {
      this.#failures.set(entry.informer, err);
      this.#opts.logger.error(err, "informer stopped with an error", { kind: entry.informer.kind.kind });
    });
    this.#runs.set(entry.informer, entry.done);
  }

  #entry<T extends KubeObject>(kind: Kind<T>, create: boolean): Entry | undefined {
    const key = informerKey(kind, isMetadataOnly(kind));
    let entry = this.#informers.get(key);
    if (entry || !create) return entry;
    const k = this.#opts.forKind(kind);
    const informer = (this.#opts.newInformer ?? newInformer)(this.#restClient(), kind, {
      namespaces: k.namespaces,
      labelSelector: k.labelSelector,
      fieldSelector: k.fieldSelector,
      transform: k.transform,
      syncPeriodMs: k.syncPeriodMs,
      metadataOnly: isMetadataOnly(kind),
      logger: this.#opts.logger.withName("cache"),
      watcher: this.#opts.watcher,
      backoff: this.#opts.backoff,
      watchErrorHandler: this.#opts.defaultWatchErrorHandler,
    });
    entry = { informer: informer as unknown as Informer, stop: new AbortController() };
    this.#informers.set(key, entry);
    this.#run(entry);
    return entry;
  }

  async getInformer<T extends KubeObject>(
    kind: Kind<T>,
    opts: GetInformerOptions = {},
  ): Promise<Informer<T>> {
    const entry = this.#entry(kind, true)!;
    const informer = entry.informer as unknown as Informer<T>;
    if ((opts.blockUntilSynced ?? true) && this.#signal) await this.#waitSynced(informer, opts.signal);
    return informer;
  }

  async getInformerForKind(gvk: GroupVersionKind, opts: GetInformerOptions = {}): Promise<Informer> {
    const existing = this.#informers.get(informerKey(gvk, false));
    if (existing) return this.getInformer(existing.informer.kind, opts);
    return this.getInformer(await this.#discover(gvk, opts.signal), opts);
  }

  /** The kind's resource and scope, from the mapper (which rejects with a NoKindMatchError). */
  async #discover(gvk: GroupVersionKind, signal: AbortSignal | undefined): Promise<Kind> {
    this.#mapper ??= this.#opts.mapper ?? newRESTMapper(this.#restClient());
    const mapping = await this.#mapper.restMapping({ group: gvk.group, kind: gvk.kind }, gvk.version, {
      signal,
    });
    return defineKind({ ...gvk, plural: mapping.resource.resource, namespaced: mapping.namespaced });
  }

  removeInformer(kind: Kind): boolean {
    const key = informerKey(kind, isMetadataOnly(kind));
    const entry = this.#informers.get(key);
    if (!entry) return false;
    entry.stop.abort();
    entry.removed = true;
    this.#informers.delete(key);
    return true;
  }

  hasSynced(): boolean {
    return this.#signal !== undefined && [...this.#informers.values()].every((e) => e.informer.hasSynced());
  }

  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    if (!this.#signal) {
      const started = await new Promise<boolean>((resolve) => {
        if (signal?.aborted) return resolve(false);
        const onAbort = () => resolve(false);
        signal?.addEventListener("abort", onAbort, { once: true });
        this.#onStart.push(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve(true);
        });
      });
      if (!started) return false;
    }
    const results = await Promise.all(
      [...this.#informers.values()].map((e) => e.informer.waitForSync(signal)),
    );
    return results.every(Boolean);
  }

  async indexField<T extends KubeObject>(
    kind: Kind<T>,
    field: string,
    extract: IndexerFunc<T>,
  ): Promise<void> {
    if (!field) throw new TypeError("indexField: the field name must not be empty");
    const informer = this.#entry(kind, true)!.informer as unknown as Informer<T>;
    informer.addIndexers({ [fieldIndexName(field)]: indexByFieldAndNamespace(extract) });
  }

  async #readable<T extends KubeObject>(
    kind: Kind<T>,
    signal: AbortSignal | undefined,
  ): Promise<Informer<T>> {
    if (!this.#signal) throw new CacheNotStartedError();
    const existing = this.#entry(kind, false);
    if (!existing && this.#opts.readerFailOnMissingInformer) throw new ResourceNotCachedError(kind);
    const informer = (existing ?? this.#entry(kind, true)!).informer as unknown as Informer<T>;
    await this.#waitSynced(informer, signal);
    return informer;
  }

  async #waitSynced(informer: Informer, signal: AbortSignal | undefined): Promise<void> {
    if (informer.hasSynced()) return;
    if (!(await informer.waitForSync(signal))) {
      signal?.throwIfAborted();
      // An informer that failed says why; otherwise it stopped because the cache is stopping.
      await this.#runs.get(informer); // settles just after the informer stops, its failure recorded
      const failure = this.#failures.get(informer);
      if (failure !== undefined)
        throw new CacheSyncError(
          `the ${informer.kind.kind} informer failed before it synced: ${failure instanceof Error ? failure.message : String(failure)}`,
          { cause: failure },
        );
      throw new CacheSyncError(
        `the ${informer.kind.kind} informer stopped before it synced; the cache is shutting down`,
      );
    }
  }

  /** The informer of `kind` when the cache runs and it synced: the fast path of reads. */
  #synced<T extends KubeObject>(kind: Kind<T>): Informer<T> | undefined {
    if (!this.#signal) return undefined;
    let entry = this.#byKind.get(kind);
    if (!entry || entry.removed) {
      entry = this.#entry(kind, false);
      if (!entry) return undefined;
      this.#byKind.set(kind, entry);
    }
    return entry.informer.hasSynced() ? (entry.informer as unknown as Informer<T>) : undefined;
  }

  get<T extends KubeObject>(
    kind: Kind<T>,
    key: ObjectKey,
    opts: CacheGetOptions = {},
  ): Promise<DeepReadonly<T>> {
    const informer = this.#synced(kind);
    if (informer) {
      try {
        const writes = awaitWrites(informer, opts);
        if (writes) return writes.then(() => getFromInformer(informer, key));
        return Promise.resolve(getFromInformer(informer, key));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.#readable(kind, opts.signal).then(async (i) => {
      await awaitWrites(i, opts);
      return getFromInformer(i, key);
    });
  }

  list<T extends KubeObject>(kind: Kind<T>, opts: CacheListOptions = {}): Promise<KubeList<DeepReadonly<T>>> {
    const informer = this.#synced(kind);
    if (informer) {
      try {
        const writes = awaitWrites(informer, opts);
        if (writes) return writes.then(() => listFromInformer(informer, opts));
        return Promise.resolve(listFromInformer(informer, opts));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.#readable(kind, opts.signal).then(async (i) => {
      await awaitWrites(i, opts);
      return listFromInformer(i, opts);
    });
  }
}
