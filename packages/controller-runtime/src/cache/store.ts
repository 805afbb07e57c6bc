// The informer's store: objects by namespace and name (keys `namespace/name` to readers), and
// indexes kept up to date on every write (client-go's threadSafeMap with its indices). Objects come in frozen, so readers get them as
// they are, without a copy. The writer side belongs to the informer; everyone else gets the
// read-only `StoreReader`.
import type { DeepReadonly, KubeObject } from "../api/index.js";

/** Index values of an object: several strings, or none. Must depend on the object only. */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: DeepReadonly<T>) => readonly string[];

/**
 * An optional shortcut an {@link IndexFunc} may carry: true only when two objects are sure to
 * have the same index values. Cheaper than comparing the values when those are built strings
 * (as field indexes build `namespace/value`): an update that leaves them alone costs no strings.
 */
export const SAME_INDEX_VALUES: unique symbol = Symbol("sameIndexValues");

/** An index function with the {@link SAME_INDEX_VALUES} shortcut. */
export type IndexFuncWithShortcut<T extends KubeObject = KubeObject> = IndexFunc<T> & {
  [SAME_INDEX_VALUES]?: (a: DeepReadonly<T>, b: DeepReadonly<T>) => boolean;
};

/** The index every store has: objects by namespace (client-go's `namespace` index). */
export const NAMESPACE_INDEX = "namespace";

/** What readers of a store can do. Objects are frozen: copy one (`structuredClone`) to change it. */
export interface StoreReader<T extends KubeObject = KubeObject> {
  /** The object under `namespace/name` (or `name` for cluster-scoped kinds). */
  get(key: string): DeepReadonly<T> | undefined;
  /** The object `name` in `namespace` (empty or undefined for cluster-scoped kinds), without a key. */
  getIn(namespace: string | undefined, name: string): DeepReadonly<T> | undefined;
  /** Every object, in no particular order. */
  list(): DeepReadonly<T>[];
  keys(): string[];
  readonly size: number;
  /** The objects whose `index` values include `value`; throws for an unknown index. */
  byIndex(index: string, value: string): DeepReadonly<T>[];
  /** The keys of those objects. */
  indexKeys(index: string, value: string): string[];
  hasIndex(index: string): boolean;
  /** The values an index holds. */
  indexValues(index: string): string[];
}

/** What one write changed, for the handlers. */
export interface StoreChanges<T extends KubeObject> {
  added: DeepReadonly<T>[];
  updated: [old: DeepReadonly<T>, current: DeepReadonly<T>][];
  deleted: [key: string, old: DeepReadonly<T>][];
}

export class UnknownIndexError extends Error {
  override readonly name = "UnknownIndexError";
  readonly code = "ERR_UNKNOWN_INDEX";
}

export class IndexConflictError extends Error {
  override readonly name = "IndexConflictError";
  readonly code = "ERR_INDEX_CONFLICT";
}

/**
 * One copy of each namespace's strings for a store: the namespace itself, which the informer puts
 * in the objects it stores (JSON.parse makes a copy per object), and the `namespace/` prefix of
 * the keys the indexes hold.
 */
export class NamespaceStrings {
  readonly #entries = new Map<string, { readonly name: string; readonly prefix: string }>();

  #entry(ns: string): { readonly name: string; readonly prefix: string } {
    let entry = this.#entries.get(ns);
    if (entry === undefined) {
      entry = { name: ns, prefix: `${ns}/` };
      this.#entries.set(ns, entry);
    }
    return entry;
  }

  /** The shared copy of `ns`. */
  shared(ns: string): string {
    return this.#entry(ns).name;
  }

  /** The key of `name` in `ns`: `namespace/name`, or `name` when `ns` is empty. */
  key(ns: string, name: string): string {
    return ns === "" ? name : this.#entry(ns).prefix + name;
  }
}

interface Index<T extends KubeObject> {
  fn: IndexFunc<T>;
  same: ((a: DeepReadonly<T>, b: DeepReadonly<T>) => boolean) | undefined;
  byValue: Map<string, Set<string>>;
}

/**
 * Objects are kept by namespace, then by name: a read by namespace and name builds no key (a
 * lookup with a freshly built `namespace/name` measured 155 ns, by the two strings 31 ns), the
 * name is the object's own string, and the namespace index is the outer map itself. Keys are
 * built only for the `StoreReader` calls that take or return them, and for the other indexes.
 */
export class IndexedStore<T extends KubeObject> implements StoreReader<T> {
  /** Namespace ("" for cluster-scoped objects) → name → object; no namespace maps empty. */
  readonly #byNs = new Map<string, Map<string, DeepReadonly<T>>>();
  #size = 0;
  /** Indexes other than the namespace index. */
  readonly #indexes = new Map<string, Index<T>>();
  /** One copy of each namespace's strings, shared by the objects and by the keys indexes hold. */
  readonly namespaces = new NamespaceStrings();

  get size(): number {
    return this.#size;
  }

  get(key: string): DeepReadonly<T> | undefined {
    const slash = key.indexOf("/");
    if (slash === -1) return this.#byNs.get("")?.get(key);
    return this.#byNs.get(key.slice(0, slash))?.get(key.slice(slash + 1));
  }

  /** The object `name` in `namespace` (empty or undefined for cluster-scoped kinds). */
  getIn(namespace: string | undefined, name: string): DeepReadonly<T> | undefined {
    return this.#byNs.get(namespace || "")?.get(name);
  }

  list(): DeepReadonly<T>[] {
    if (this.#byNs.size === 1) for (const objects of this.#byNs.values()) return Array.from(objects.values());
    const out: DeepReadonly<T>[] = [];
    for (const objects of this.#byNs.values()) for (const obj of objects.values()) out.push(obj);
    return out;
  }

  keys(): string[] {
    const out: string[] = [];
    for (const [ns, objects] of this.#byNs) for (const name of objects.keys()) out.push(this.#key(ns, name));
    return out;
  }

  hasIndex(index: string): boolean {
    return index === NAMESPACE_INDEX || this.#indexes.has(index);
  }

  #index(name: string): Index<T> {
    const index = this.#indexes.get(name);
    if (!index) throw new UnknownIndexError(`index "${name}" does not exist; add it with addIndexers first`);
    return index;
  }

  indexKeys(index: string, value: string): string[] {
    if (index === NAMESPACE_INDEX) {
      const objects = value === "" ? undefined : this.#byNs.get(value);
      return objects ? Array.from(objects.keys(), (name) => this.#key(value, name)) : [];
    }
    const keys = this.#index(index).byValue.get(value);
    return keys ? Array.from(keys) : [];
  }

  byIndex(index: string, value: string): DeepReadonly<T>[] {
    if (index === NAMESPACE_INDEX) {
      const objects = value === "" ? undefined : this.#byNs.get(value);
      return objects ? Array.from(objects.values()) : [];
    }
    const keys = this.#index(index).byValue.get(value);
    if (!keys) return [];
    const out: DeepReadonly<T>[] = [];
    for (const key of keys) {
      const obj = this.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  indexValues(index: string): string[] {
    if (index === NAMESPACE_INDEX) return Array.from(this.#byNs.keys()).filter((ns) => ns !== "");
    return Array.from(this.#index(index).byValue.keys());
  }

  /**
   * Adds indexes and fills them from the objects already stored. An index name in use is refused
   * (client-go's rule): two different functions under one name would answer inconsistently. The
   * namespace index ({@link NAMESPACE_INDEX}) is always there.
   */
  addIndexers(indexers: Readonly<Record<string, IndexFunc<T>>>): void {
    for (const name of Object.keys(indexers)) {
      if (this.hasIndex(name)) throw new IndexConflictError(`index "${name}" already exists`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      const same = (fn as IndexFuncWithShortcut<T>)[SAME_INDEX_VALUES];
      const index: Index<T> = { fn, same, byValue: new Map() };
      for (const [ns, objects] of this.#byNs) {
        for (const [objName, obj] of objects) addValues(index, this.#key(ns, objName), fn(obj));
      }
      this.#indexes.set(name, index);
    }
  }

  /** Stores `obj` under its namespace and name; returns what it replaced. */
  put(obj: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const meta = obj.metadata;
    return this.#put(meta?.namespace || "", meta?.name ?? "", obj);
  }

  /** Removes the object with `obj`'s namespace and name; returns what was there. */
  remove(obj: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const meta = obj.metadata;
    return this.#remove(meta?.namespace || "", meta?.name ?? "");
  }

  /** Stores `obj` under `key` (`namespace/name`, or `name`); returns what it replaced. */
  set(key: string, obj: DeepReadonly<T>): DeepReadonly<T> | undefined {
    const slash = key.indexOf("/");
    return slash === -1 ? this.#put("", key, obj) : this.#put(key.slice(0, slash), key.slice(slash + 1), obj);
  }

  /** Removes `key`; returns what was there. */
  delete(key: string): DeepReadonly<T> | undefined {
    const slash = key.indexOf("/");
    return slash === -1 ? this.#remove("", key) : this.#remove(key.slice(0, slash), key.slice(slash + 1));
  }

  #put(ns: string, name: string, obj: DeepReadonly<T>): DeepReadonly<T> | undefined {
    let objects = this.#byNs.get(ns);
    if (objects === undefined) {
      objects = new Map();
      this.#byNs.set(ns, objects);
    }
    const old = objects.get(name);
    objects.set(name, obj);
    if (old === undefined) this.#size++;
    if (this.#indexes.size > 0) this.#reindex(this.#key(ns, name), old, obj);
    return old;
  }

  #remove(ns: string, name: string): DeepReadonly<T> | undefined {
    const objects = this.#byNs.get(ns);
    const old = objects?.get(name);
    if (objects === undefined || old === undefined) return undefined;
    objects.delete(name);
    if (objects.size === 0) this.#byNs.delete(ns);
    this.#size--;
    if (this.#indexes.size > 0) this.#reindex(this.#key(ns, name), old, undefined);
    return old;
  }

  #key(ns: string, name: string): string {
    return this.namespaces.key(ns, name);
  }

  /**
   * Replaces, in one step, the objects of `namespace` (all objects when undefined but those of the
   * namespaces in `except`: a relist of one namespace replaces that namespace only) with `items`. Objects whose resourceVersion did
   * not change are kept and reported neither added nor updated. Keys are built only for the
   * objects that went away.
   */
  replace(
    items: readonly DeepReadonly<T>[],
    namespace?: string,
    except?: ReadonlySet<string>,
  ): StoreChanges<T> {
    const changes: StoreChanges<T> = { added: [], updated: [], deleted: [] };
    if (this.#size > 0) {
      const listed = new Map<string, Set<string>>();
      for (const obj of items) {
        const meta = obj.metadata;
        const ns = meta?.namespace || "";
        let names = listed.get(ns);
        if (names === undefined) {
          names = new Set();
          listed.set(ns, names);
        }
        names.add(meta?.name ?? "");
      }
      const scopes =
        namespace === undefined
          ? Array.from(this.#byNs)
          : this.#byNs.has(namespace)
            ? [[namespace, this.#byNs.get(namespace)!] as const]
            : [];
      for (const [ns, objects] of scopes) {
        if (except?.has(ns)) continue;
        const names = listed.get(ns);
        for (const [name, old] of objects) {
          if (!names?.has(name)) changes.deleted.push([this.#key(ns, name), old]);
        }
      }
      for (const [, old] of changes.deleted) this.remove(old);
    }
    for (const obj of items) {
      const meta = obj.metadata;
      const ns = meta?.namespace || "";
      const name = meta?.name ?? "";
      const old = this.#byNs.get(ns)?.get(name);
      if (old === undefined) {
        this.#put(ns, name, obj);
        changes.added.push(obj);
      } else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) {
        this.#put(ns, name, obj);
        changes.updated.push([old, obj]);
      }
    }
    return changes;
  }

  #reindex(key: string, old: DeepReadonly<T> | undefined, obj: DeepReadonly<T> | undefined): void {
    for (const index of this.#indexes.values()) {
      if (old !== undefined && obj !== undefined && index.same?.(old, obj)) continue;
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

// A namespace's first object takes a path of its own in the store (a new map for the namespace,
// a new entry of its strings), once. V8 collects no feedback in a function's first calls, so in a
// new process that path ran without any, and code optimized meanwhile, the informer's whole hot
// path (watch chunk → decode → store → handlers) with these methods inlined in it, is thrown away
// at the next new namespace and compiled again: measured, ~40 ms of compiling and the time until
// it is optimized again, in the first burst of objects of a new namespace. Taking the path in a
// scratch store at load, past those first calls, gives it feedback before anything is optimized.
{
  const scratch = new IndexedStore<KubeObject>();
  for (let i = 0; i < 32; i++) {
    const namespace = `warm-${i}`;
    scratch.put({ metadata: { namespace: scratch.namespaces.shared(namespace), name: "warm" } });
    scratch.remove({ metadata: { namespace, name: "warm" } });
  }
}
