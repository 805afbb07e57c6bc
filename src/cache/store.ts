// The informer's store: objects by `namespace/name`, and indexes kept up to date on every write
// (client-go's threadSafeMap with its indices). Objects come in frozen, so readers get them as
// they are, without a copy. The writer side belongs to the informer; everyone else gets the
// read-only `StoreReader`.
import type { KubeObject } from "../api/index.js";

/** Index values of an object: several strings, or none. Must depend on the object only. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: Readonly<T>) => readonly string[];

/** The index every store has: objects by namespace (client-go's `namespace` index). */
export const NAMESPACE_INDEX = "namespace";

/** What readers of a store can do. Objects are frozen: copy one (`structuredClone`) to change it. */
export interface StoreReader<T extends KubeObject = KubeObject> {
  /** The object under `namespace/name` (or `name` for cluster-scoped kinds). */
  get(key: string): Readonly<T> | undefined;
  /** Every object, in no particular order. */
  list(): Readonly<T>[];
  keys(): string[];
  readonly size: number;
  /** The objects whose `index` values include `value`; throws for an unknown index. */
  byIndex(index: string, value: string): Readonly<T>[];
  /** The keys of those objects. */
  indexKeys(index: string, value: string): string[];
  hasIndex(index: string): boolean;
  /** The values an index holds. */
  indexValues(index: string): string[];
}

/** What one write changed, for the handlers. */
export interface StoreChanges<T extends KubeObject> {
  added: Readonly<T>[];
  updated: [old: Readonly<T>, current: Readonly<T>][];
  deleted: [key: string, old: Readonly<T>][];
}

export class UnknownIndexError extends Error {
  override readonly name = "UnknownIndexError";
  readonly code = "ERR_UNKNOWN_INDEX";
}

export class IndexConflictError extends Error {
  override readonly name = "IndexConflictError";
  readonly code = "ERR_INDEX_CONFLICT";
}

interface Index<T extends KubeObject> {
  fn: IndexFunc<T>;
  byValue: Map<string, Set<string>>;
}

export class IndexedStore<T extends KubeObject> implements StoreReader<T> {
  #items = new Map<string, Readonly<T>>();
  readonly #indexes = new Map<string, Index<T>>();

  get size(): number {
    return this.#items.size;
  }

  get(key: string): Readonly<T> | undefined {
    return this.#items.get(key);
  }

  list(): Readonly<T>[] {
    return Array.from(this.#items.values());
  }

  keys(): string[] {
    return Array.from(this.#items.keys());
  }

  hasIndex(index: string): boolean {
    return this.#indexes.has(index);
  }

  #index(name: string): Index<T> {
    const index = this.#indexes.get(name);
    if (!index) throw new UnknownIndexError(`index "${name}" does not exist; add it with addIndexers first`);
    return index;
  }

  indexKeys(index: string, value: string): string[] {
    const keys = this.#index(index).byValue.get(value);
    return keys ? Array.from(keys) : [];
  }

  byIndex(index: string, value: string): Readonly<T>[] {
    const keys = this.#index(index).byValue.get(value);
    if (!keys) return [];
    // Every stored object has this value (the one namespace an informer watches): no lookups.
    if (keys.size === this.#items.size) return Array.from(this.#items.values());
    const out: Readonly<T>[] = [];
    for (const key of keys) {
      const obj = this.#items.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  indexValues(index: string): string[] {
    return Array.from(this.#index(index).byValue.keys());
  }

  /**
   * Adds indexes and fills them from the objects already stored. An index name in use is refused
   * (client-go's rule): two different functions under one name would answer inconsistently.
   */
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    for (const name of Object.keys(indexers)) {
      if (this.#indexes.has(name)) throw new IndexConflictError(`index "${name}" already exists`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      const index: Index<T> = { fn, byValue: new Map() };
      for (const [key, obj] of this.#items) addValues(index, key, fn(obj));
      this.#indexes.set(name, index);
    }
  }

  /** Stores `obj` under `key`; returns what it replaced. */
  set(key: string, obj: Readonly<T>): Readonly<T> | undefined {
    const old = this.#items.get(key);
    this.#items.set(key, obj);
    this.#reindex(key, old, obj);
    return old;
  }

  /** Removes `key`; returns what was there. */
  delete(key: string): Readonly<T> | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#items.delete(key);
    this.#reindex(key, old, undefined);
    return old;
  }

  /**
   * Replaces, in one step, the objects for which `inScope` is true with `items` (a relist of one
   * namespace replaces that namespace only). Objects whose resourceVersion did not change are
   * kept and reported neither added nor updated.
   */
  replace(
    items: ReadonlyMap<string, Readonly<T>>,
    inScope: (key: string) => boolean,
    owned = false,
  ): StoreChanges<T> {
    if (this.#items.size === 0 && owned && items instanceof Map) return this.#fill(items);
    const changes: StoreChanges<T> = { added: [], updated: [], deleted: [] };
    for (const [key, old] of this.#items) {
      if (!items.has(key) && inScope(key)) changes.deleted.push([key, old]);
    }
    for (const [key] of changes.deleted) this.delete(key);
    for (const [key, obj] of items) {
      const old = this.#items.get(key);
      if (old === undefined) {
        this.set(key, obj);
        changes.added.push(obj);
      } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        this.set(key, obj);
        changes.updated.push([old, obj]);
      }
    }
    return changes;
  }

  /** The first list into an empty store: `items` becomes the store, the indexes are built once. */
  #fill(items: Map<string, Readonly<T>>): StoreChanges<T> {
    this.#items = items;
    for (const index of this.#indexes.values()) {
      for (const [key, obj] of items) addValues(index, key, index.fn(obj));
    }
    return { added: Array.from(items.values()), updated: [], deleted: [] };
  }

  #reindex(key: string, old: Readonly<T> | undefined, obj: Readonly<T> | undefined): void {
    for (const index of this.#indexes.values()) {
      const before = old === undefined ? EMPTY : index.fn(old);
      const after = obj === undefined ? EMPTY : index.fn(obj);
      // The common case: values that did not change.
      if (sameValues(before, after)) continue;
      for (const value of before) {
        if (after.includes(value)) continue;
        const keys = index.byValue.get(value);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) index.byValue.delete(value);
      }
      for (const value of after) {
        if (before.includes(value)) continue;
        addKey(index, value, key);
      }
    }
  }
}

const EMPTY: readonly string[] = [];

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function addValues<T extends KubeObject>(index: Index<T>, key: string, values: readonly string[]): void {
  for (const value of values) addKey(index, value, key);
}

function addKey<T extends KubeObject>(index: Index<T>, value: string, key: string): void {
  const keys = index.byValue.get(value);
  if (keys) keys.add(key);
  else index.byValue.set(value, new Set([key]));
}
