// Kind<T> descriptors: the TypeScript stand-in for a Go type registered in a Scheme. A descriptor
// names a kind's group, version, plural and scope, and carries the object type for inference.
import type { GroupVersionKind } from "./gvk.js";
import { apiVersionOf } from "./gvk.js";
import type { KubeObject } from "./object.js";

export interface Kind<T extends KubeObject = KubeObject> extends GroupVersionKind {
  /** `v1` or `group/version`. */
  readonly apiVersion: string;
  /** The plural resource name used in URLs: `configmaps`. */
  readonly plural: string;
  /** Whether objects live in a namespace. */
  readonly namespaced: boolean;
  /** `ConfigMapList`. */
  readonly listKind: string;
  /** Never set: carries `T` so that `client.get(kinds.Pod, ...)` returns a `Pod`. */
  readonly __object?: T;
}

/** The object type a descriptor describes. */
export type ObjectOf<K> = K extends Kind<infer T> ? T : never;

export interface KindOptions {
  /** "" for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Default: the lower-cased kind made plural by English rules (`Policy` → `policies`). */
  plural?: string;
  /** Default: true. */
  namespaced?: boolean;
}

/** Describes a kind, typically a custom resource: `defineKind<MarkdownView>({ group, version, kind })`. */
export function defineKind<T extends KubeObject = KubeObject>(opts: KindOptions): Kind<T> {
  if (!opts.kind || !opts.version) {
    throw new TypeError(`defineKind: kind and version are required, got ${JSON.stringify(opts)}`);
  }
  return Object.freeze({
    group: opts.group,
    version: opts.version,
    kind: opts.kind,
    apiVersion: apiVersionOf(opts),
    plural: opts.plural ?? pluralize(opts.kind),
    namespaced: opts.namespaced ?? true,
    listKind: `${opts.kind}List`,
  });
}

/** The plural apimachinery guesses for a kind (`UnsafeGuessKindToResource`). */
export function pluralize(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower === "") return lower;
  if (lower.endsWith("s")) return `${lower}es`;
  if (lower.endsWith("y")) {
    const before = lower.at(-2) ?? "";
    return "aeiou".includes(before) ? `${lower}s` : `${lower.slice(0, -1)}ies`;
  }
  return `${lower}s`;
}

/** What `newObject` takes: the object without the apiVersion and kind its Kind already names. */
export type ObjectFields<T extends KubeObject> = Omit<T, "apiVersion" | "kind">;

/**
 * An object of `kind`, its apiVersion and kind filled in: Go's `&v1.Memcached{...}`. The fields
 * are checked against the Kind's type, so a typo (`spec: { sise: 3 }`) does not compile, as it
 * would with `client.create({ ... })` and no type argument:
 * `await client.create(newObject(Memcached, { metadata: { name: "m" }, spec: { size: 3 } }))`.
 */
export function newObject<T extends KubeObject>(kind: Kind<T>, fields: ObjectFields<T>): T {
  return { apiVersion: kind.apiVersion, kind: kind.kind, ...fields } as T;
}
