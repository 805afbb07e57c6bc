// The namespaces a cache or an informer watches: a list, or controller-runtime's map of namespace
// to settings of its own (cache.Config), where the key "" stands for every namespace not named.
import type { FieldSelector, LabelSelector } from "../api/index.js";
import type { TransformFunc } from "./transform.js";

/**
 * Settings of the objects of one namespace (controller-runtime's `cache.Config`). An unset field
 * falls back to the kind's `byObject` entry, then to the cache's `defaultNamespaces` entry of the
 * namespace, then to the cache's defaults, as in controller-runtime (for an informer made with
 * `newInformer`: to the informer's options).
 */
export interface NamespaceConfig {
  labelSelector?: string | LabelSelector;
  fieldSelector?: string | FieldSelector;
  transform?: TransformFunc;
  /** Accepted and ignored: cached objects are frozen and handed out without a copy. */
  unsafeDisableDeepCopy?: boolean;
  /** Resync period of this namespace's objects (0: never). */
  syncPeriodMs?: number;
}

/**
 * The key of the entry for every namespace without one of its own (controller-runtime's
 * `cache.AllNamespaces`, `""`): `{ [ALL_OTHER_NAMESPACES]: {}, "kube-system": { labelSelector } }`
 * caches all namespaces, kube-system's objects only those with the labels. Not to be confused
 * with `ALL_NAMESPACES`, the namespace part of field index keys.
 */
export const ALL_OTHER_NAMESPACES = "";

/**
 * The namespaces a cache (or a kind) watches: a list, or controller-runtime's map of namespace to
 * its own settings, where the key `ALL_OTHER_NAMESPACES` (`""`) stands for every namespace not
 * named. An empty list or map watches all namespaces.
 */
export type Namespaces = readonly string[] | Readonly<Record<string, NamespaceConfig>>;

/** A list of namespaces as a map of namespaces with no settings of their own. */
export function asMap(
  namespaces: Namespaces | undefined,
): Readonly<Record<string, NamespaceConfig>> | undefined {
  if (namespaces === undefined) return undefined;
  if (!Array.isArray(namespaces)) return namespaces as Readonly<Record<string, NamespaceConfig>>;
  return Object.fromEntries((namespaces as readonly string[]).map((ns) => [ns, {}]));
}

/**
 * The namespaces named in `namespaces`; empty when all are watched (an empty list or map, or an
 * `ALL_OTHER_NAMESPACES` entry). For parts that watch "the cache's namespaces" with settings of
 * their own (sharding's coordinator).
 */
export function namespacesOf(namespaces: Namespaces | undefined): readonly string[] {
  const map = asMap(namespaces);
  if (map === undefined || ALL_OTHER_NAMESPACES in map) return [];
  return Object.keys(map);
}
