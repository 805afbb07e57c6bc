// Finalizers, as controller-runtime's controllerutil. `addFinalizer` and `removeFinalizer` return
// a copy when they change something and the object itself when there is nothing to change, so
// `next !== obj` tells whether to write; the object given is never changed (it may be frozen).
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import { type DeepReadonly, deepCopy, type KubeObject } from "../api/index.js";

/** Whether `object` has `finalizer`. */
export function containsFinalizer(object: DeepReadonly<KubeObject>, finalizer: string): boolean {
  return (object.metadata?.finalizers ?? []).includes(finalizer);
}

function withFinalizers<T extends KubeObject>(object: T, finalizers: string[]): T {
  const copy = deepCopy(object) as T;
  const metadata = { ...copy.metadata, finalizers } as ObjectMeta; // a copy: mutable
  if (finalizers.length === 0) delete metadata.finalizers;
  copy.metadata = metadata;
  return copy;
}

/** `object` with `finalizer` appended: a copy, or `object` itself when it already has it. */
export function addFinalizer<T extends KubeObject>(object: T, finalizer: string): T {
  if (containsFinalizer(object, finalizer)) return object;
  return withFinalizers(object, [...(object.metadata?.finalizers ?? []), finalizer]);
}

/** `object` without `finalizer` (every occurrence): a copy, or `object` itself when it has none. */
export function removeFinalizer<T extends KubeObject>(object: T, finalizer: string): T {
  if (!containsFinalizer(object, finalizer)) return object;
  return withFinalizers(
    object,
    (object.metadata?.finalizers ?? []).filter((f) => f !== finalizer),
  );
}
