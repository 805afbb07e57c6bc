// Field indexes with controller-runtime's semantics. An index registered for field `spec.x` is
// named `field:spec.x`; for each value an object yields, a namespaced object is filed under both
// `<namespace>/<value>` and `__all_namespaces/<value>`, a cluster-scoped one under the latter, so
// that one index answers both per-namespace and cluster-wide lookups.
import type { DeepReadonly, KubeObject } from "../api/index.js";
import { type IndexFunc, type IndexFuncWithShortcut, SAME_INDEX_VALUES } from "./store.js";

/** Extracts the values of a field from an object: strings, several per object, or none. */
export type IndexerFunc<T extends KubeObject = KubeObject> = (obj: DeepReadonly<T>) => readonly string[];

/** The namespace part of an index key that looks across all namespaces. */
export const ALL_NAMESPACES = "__all_namespaces";

/** `field:<field>`: the index a field is stored under. */
export function fieldIndexName(field: string): string {
  return `field:${field}`;
}

/** `<namespace>/<value>`, or `__all_namespaces/<value>` when namespace is empty. */
export function keyToNamespacedKey(namespace: string, value: string): string {
  return `${namespace || ALL_NAMESPACES}/${value}`;
}

/** Wraps an extractor so each value is filed per namespace and across all namespaces. */
export function indexByFieldAndNamespace<T extends KubeObject>(extract: IndexerFunc<T>): IndexFunc<T> {
  const fn: IndexFuncWithShortcut<T> = (obj) => {
    const values = extract(obj);
    if (values.length === 0) return values;
    const ns = obj.metadata?.namespace;
    const out: string[] = [];
    for (const v of values) {
      out.push(`${ALL_NAMESPACES}/${v}`);
      if (ns) out.push(`${ns}/${v}`);
    }
    return out;
  };
  // Same namespace and same extracted values: the same index values, without building them.
  fn[SAME_INDEX_VALUES] = (a, b) =>
    a.metadata?.namespace === b.metadata?.namespace && sameStrings(extract(a), extract(b));
  return fn;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The namespace index function: an object's namespace, none for cluster-scoped objects. */
export function namespaceIndexFunc(obj: DeepReadonly<KubeObject>): readonly string[] {
  const ns = obj.metadata?.namespace;
  return ns ? [ns] : [];
}
