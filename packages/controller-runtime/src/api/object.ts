// The object model: Kubernetes objects are plain JSON, typed by kubernetes-types interfaces.
// No model classes and no serializer pass: what JSON.parse returns is what a reconciler sees.
import type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { DeepReadonly } from "./deep-readonly.js";

export type { ListMeta, ObjectMeta } from "kubernetes-types/meta/v1.js";

/** Any Kubernetes object: the fields every kind shares. */
export interface KubeObject {
  // `| undefined` spelled out: under exactOptionalPropertyTypes, `DeepReadonly<T>` of a kind whose
  // fields are `?: string` must still satisfy this.
  apiVersion?: string | undefined;
  kind?: string | undefined;
  // Readonly: an object read from the cache is one too (DeepReadonly<T> extends KubeObject).
  metadata?: DeepReadonly<ObjectMeta> | undefined;
}

/** A list of objects as the API server returns it (`ConfigMapList`, ...). */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: ListMeta;
  items: T[];
}

/** An object of a kind not known at compile time (a CRD, say): any JSON fields. */
export interface Unstructured extends KubeObject {
  [field: string]: unknown;
}

/** Identifies an object: `namespace` is absent or empty for cluster-scoped kinds. */
export interface ObjectKey {
  namespace?: string;
  name: string;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key of stores and work queues. */
export function objectKeyString(key: ObjectKey): string {
  return key.namespace ? `${key.namespace}/${key.name}` : key.name;
}

/** The key of an object from its metadata. */
export function keyOf(obj: KubeObject): ObjectKey {
  const name = obj.metadata?.name ?? "";
  const namespace = obj.metadata?.namespace;
  return namespace ? { namespace, name } : { name };
}

/** Parses `namespace/name` or `name` back into a key. */
export function parseObjectKey(key: string): ObjectKey {
  const slash = key.indexOf("/");
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
