// Apply configurations: what a controller states it owns in a server-side apply. In Go they are
// generated types (`corev1ac.ConfigMap(...)`); here an apply configuration is any partial object
// of the kind, with the fields that name it (apiVersion, kind, metadata.name) required.
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { Kind, KubeObject } from "../api/index.js";

/** `T` with every field optional, at every depth (list elements too). */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/**
 * A server-side apply configuration of objects of type `T`: the fields the field owner states,
 * and nothing else (an empty field is a statement too: "I own it, and it is empty").
 */
export type ApplyConfiguration<T extends KubeObject = KubeObject> = DeepPartial<
  Omit<T, "apiVersion" | "kind" | "metadata">
> & {
  apiVersion: string;
  kind: string;
  metadata: DeepPartial<ObjectMeta> & { name: string };
};

/**
 * An apply configuration of `kind` from the fields given, with apiVersion and kind filled in:
 * `applyConfiguration(kinds.ConfigMap, { metadata: { name, namespace }, data })`. The result is
 * typed, so `client.apply(applyConfiguration(...))` returns a `ConfigMap`.
 */
export function applyConfiguration<T extends KubeObject>(
  kind: Kind<T>,
  fields: Omit<ApplyConfiguration<T>, "apiVersion" | "kind">,
): ApplyConfiguration<T> & { readonly __object?: T } {
  return { ...fields, apiVersion: kind.apiVersion, kind: kind.kind } as unknown as ApplyConfiguration<T> & {
    readonly __object?: T;
  };
}

/**
 * What `apply` takes: an apply configuration whose `T` is inferred only from the brand that
 * `applyConfiguration` sets (never from the fields, which would type the result as the literal).
 */
export type ApplyInput<T extends KubeObject> = ApplyConfiguration<NoInfer<T>> & { readonly __object?: T };
