// Reading one informer's store as controller-runtime's CacheReader does: get by key, list by
// namespace, labels and indexed fields, with pages. Objects are the frozen ones the store holds:
// no copy is made, and none is needed.
import type {
  DeepReadonly,
  FieldSelector,
  Kind,
  KubeList,
  KubeObject,
  LabelSelector,
  ObjectKey,
} from "../api/index.js";
import { labelSelectorFromSet, parseFieldSelector, parseLabelSelector } from "../api/index.js";
import { IndexNotFoundError, InvalidCacheListError, notFoundError, UnknownNamespaceError } from "./errors.js";
import { fieldIndexName, keyToNamespacedKey } from "./field-index.js";
import type { Informer } from "./informer.js";
import type { ReadAfterWrites } from "./read-your-writes.js";
import { NAMESPACE_INDEX } from "./store.js";

/** Options of a cache list, after controller-runtime's ListOptions. */
export interface CacheListOptions extends ReadAfterWrites {
  /** Only objects in this namespace. Default: all the namespaces the cache watches. */
  inNamespace?: string;
  /** Only objects with these labels (exact values). Default: any labels. */
  matchingLabels?: Readonly<Record<string, string>>;
  /** Only objects the selector matches (ANDed with `matchingLabels`). Default: any labels. */
  labelSelector?: string | LabelSelector;
  /**
   * Only objects whose indexed fields have these values, looked up through the indexes
   * registered with `indexField`; `metadata.name` and `metadata.namespace` need none.
   * Default: no restriction.
   */
  matchingFields?: Readonly<Record<string, string>>;
  /** As `matchingFields`, as a selector of exact (`=`/`==`) terms. Default: no restriction. */
  fieldSelector?: string | FieldSelector;
  /** At most this many items, in key order; `metadata.continue` then names the rest. Default: all. */
  limit?: number;
  /** The `metadata.continue` of the previous page. Default: from the start. */
  continue?: string;
  /** Cancels waiting for the informer to sync. Default: none. */
  signal?: AbortSignal;
}

export interface CacheGetOptions extends ReadAfterWrites {
  /** Cancels waiting for the informer to sync. Default: none. */
  signal?: AbortSignal;
}

function checkNamespace(informer: Informer, namespace: string | undefined): void {
  const watched = informer.namespaces;
  if (!informer.kind.namespaced || namespace === undefined || namespace === "" || watched.length === 0)
    return;
  if (!watched.includes(namespace)) throw new UnknownNamespaceError(informer.kind, namespace, watched);
}

/** The object under `key`, or the API server's NotFound error. */
export function getFromInformer<T extends KubeObject>(
  informer: Informer<T>,
  key: ObjectKey,
): DeepReadonly<T> {
  const kind = informer.kind;
  const namespace = kind.namespaced ? key.namespace : undefined;
  checkNamespace(informer, namespace);
  const obj = informer.store.getIn(namespace, key.name);
  if (obj === undefined) throw notFoundError(kind, key.name);
  return obj;
}

function fieldTerms(opts: CacheListOptions): [string, string][] {
  const terms: [string, string][] = Object.entries(opts.matchingFields ?? {});
  if (opts.fieldSelector !== undefined) {
    const sel =
      typeof opts.fieldSelector === "string" ? parseFieldSelector(opts.fieldSelector) : opts.fieldSelector;
    for (const r of sel.requirements) {
      if (r.op === "!=") {
        throw new InvalidCacheListError(
          `the cache answers field selectors of exact matches only, not "${r.field}!=${r.value}": ` +
            "list from the API reader, or filter the items yourself",
        );
      }
      terms.push([r.field, r.value]);
    }
  }
  return terms;
}

function labelFilter(opts: CacheListOptions): LabelSelector[] {
  const out: LabelSelector[] = [];
  if (opts.matchingLabels && Object.keys(opts.matchingLabels).length > 0) {
    out.push(labelSelectorFromSet(opts.matchingLabels));
  }
  if (opts.labelSelector !== undefined) {
    const sel =
      typeof opts.labelSelector === "string" ? parseLabelSelector(opts.labelSelector) : opts.labelSelector;
    if (!sel.empty) out.push(sel);
  }
  return out;
}

function intersect(a: Set<string>, b: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const k of b) if (a.has(k)) out.add(k);
  return out;
}

/** The objects of `informer` that `opts` selects, as a list of `kind`. */
export function listFromInformer<T extends KubeObject>(
  informer: Informer<T>,
  opts: CacheListOptions,
): KubeList<DeepReadonly<T>> {
  const kind: Kind<T> = informer.kind;
  const store = informer.store;
  let namespace = kind.namespaced ? opts.inNamespace || undefined : undefined;
  let name: string | undefined;
  // Keys selected by indexes; undefined while nothing narrowed the set.
  let keys: Set<string> | undefined;
  for (const [field, value] of fieldTerms(opts)) {
    if (field === "metadata.name") {
      if (name !== undefined && name !== value)
        name = "\0"; // two names: nothing matches
      else name = value;
      continue;
    }
    if (field === "metadata.namespace") {
      if (namespace !== undefined && namespace !== value) return emptyList(informer);
      namespace = value;
      continue;
    }
    const index = fieldIndexName(field);
    if (!store.hasIndex(index)) throw new IndexNotFoundError(kind, field);
    const found = store.indexKeys(index, keyToNamespacedKey(namespace ?? "", value));
    keys = keys === undefined ? new Set(found) : intersect(keys, found);
  }
  checkNamespace(informer, namespace);

  let items: DeepReadonly<T>[];
  if (keys !== undefined) {
    items = [];
    for (const key of keys) {
      const obj = store.get(key);
      if (obj !== undefined && (namespace === undefined || obj.metadata?.namespace === namespace))
        items.push(obj);
    }
  } else if (name !== undefined && namespace !== undefined) {
    const obj = store.getIn(namespace, name);
    items = obj === undefined ? [] : [obj];
  } else if (namespace !== undefined) {
    items = store.byIndex(NAMESPACE_INDEX, namespace);
  } else {
    items = store.list();
  }
  const labels = labelFilter(opts);
  if (name !== undefined || labels.length > 0) {
    items = items.filter(
      (o) =>
        (name === undefined || o.metadata?.name === name) &&
        labels.every((s) => s.matches(o.metadata?.labels)),
    );
  }

  let cont: string | undefined;
  if (opts.limit !== undefined || opts.continue) {
    items = items
      .map((o) => [storeKey(o), o] as const)
      .sort(byKey)
      .map(([, o]) => o);
    if (opts.continue) {
      const after = decodeContinue(opts.continue);
      const start = items.findIndex((o) => storeKey(o) > after);
      items = start < 0 ? [] : items.slice(start);
    }
    if (opts.limit !== undefined && opts.limit > 0 && items.length > opts.limit) {
      items = items.slice(0, opts.limit);
      cont = encodeContinue(storeKey(items[items.length - 1]));
    }
  }
  return listOf(informer, items, cont);
}

function emptyList<T extends KubeObject>(informer: Informer<T>): KubeList<DeepReadonly<T>> {
  return listOf(informer, [], undefined);
}

function listOf<T extends KubeObject>(
  informer: Informer<T>,
  items: DeepReadonly<T>[],
  cont: string | undefined,
): KubeList<DeepReadonly<T>> {
  // Metadata-only lists too say the kind's list kind, as their items say the kind.
  const kind = informer.kind;
  const resourceVersion = informer.lastResourceVersion();
  return {
    apiVersion: kind.apiVersion,
    kind: kind.listKind,
    metadata: cont ? { resourceVersion, continue: cont } : { resourceVersion },
    items,
  };
}

function storeKey(o: KubeObject): string {
  const ns = o.metadata?.namespace;
  return ns ? `${ns}/${o.metadata?.name}` : (o.metadata?.name ?? "");
}

function byKey(a: readonly [string, unknown], b: readonly [string, unknown]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function encodeContinue(lastKey: string): string {
  return Buffer.from(JSON.stringify({ after: lastKey })).toString("base64url");
}

function decodeContinue(token: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(token, "base64url").toString()) as { after?: unknown };
    if (typeof parsed.after === "string") return parsed.after;
  } catch {
    // reported below
  }
  throw new InvalidCacheListError(
    `invalid continue token ${JSON.stringify(token)}: pass the metadata.continue of the previous cache list page`,
  );
}
