// Predicates on what an update changed. Creates, deletes and generic events pass them all, as in
// controller-runtime: they only filter updates.
import type { KubeObject, LabelSelector } from "../api/index.js";
import type { UpdateEvent } from "../event/index.js";
import { newPredicateFuncs, type Predicate } from "./predicate.js";

function updateOnly<T extends KubeObject>(update: (e: UpdateEvent<T>) => boolean): Predicate<T> {
  return { create: () => true, update, delete: () => true, generic: () => true };
}

/**
 * Passes updates that changed `metadata.generation`, which the API server bumps on spec changes
 * only: status-only and metadata-only updates are dropped. Kinds without a generation (ConfigMaps,
 * say) never pass an update; use it for the primary kind with a status subresource.
 */
export function generationChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return updateOnly((e) => e.objectOld.metadata?.generation !== e.objectNew.metadata?.generation);
}

/** Passes updates that changed `metadata.resourceVersion`: drops the resyncs of the informer. */
export function resourceVersionChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return updateOnly((e) => e.objectOld.metadata?.resourceVersion !== e.objectNew.metadata?.resourceVersion);
}

/** Passes updates that changed `metadata.labels` (absent and empty count as equal). */
export function labelChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return updateOnly((e) => !sameStringMap(e.objectOld.metadata?.labels, e.objectNew.metadata?.labels));
}

/** Passes updates that changed `metadata.annotations` (absent and empty count as equal). */
export function annotationChanged<T extends KubeObject = KubeObject>(): Predicate<T> {
  return updateOnly(
    (e) => !sameStringMap(e.objectOld.metadata?.annotations, e.objectNew.metadata?.annotations),
  );
}

/** Passes events whose object's labels match `selector` (for updates, the new object's). */
export function labelSelector<T extends KubeObject = KubeObject>(selector: LabelSelector): Predicate<T> {
  return newPredicateFuncs<T>((obj) => selector.matches(obj.metadata?.labels));
}

function sameStringMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  if (a === b) return true;
  const ka = a === undefined ? [] : Object.keys(a);
  const kb = b === undefined ? [] : Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (b === undefined || !Object.hasOwn(b, k) || b[k] !== a![k]) return false;
  }
  return true;
}
