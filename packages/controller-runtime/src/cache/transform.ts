// Transforms: what the informer applies to each object before storing it. The default drops
// `metadata.managedFields`, which controllers rarely read and which can be most of an object's
// size (controller-runtime's `TransformStripManagedFields`).
import type { DeepMutable, KubeObject } from "../api/index.js";

/**
 * Changes or replaces an object before it is stored. It receives a freshly decoded object that
 * nothing else holds, so it may change it in place. It runs on the informer's hot path.
 */
export type TransformFunc = (obj: DeepMutable<KubeObject>) => KubeObject;

/** Removes `metadata.managedFields` (the default transform). */
export function stripManagedFields(obj: DeepMutable<KubeObject>): KubeObject {
  const meta = obj.metadata;
  if (meta?.managedFields === undefined) return obj;
  // Deleting the property added last (where the API server writes managedFields, as Go orders
  // ObjectMeta) only steps V8's hidden class back: the object keeps fast properties, and costs
  // neither a copy nor a property array. Anywhere else `delete` would turn it into a dictionary,
  // so the metadata is rebuilt without it.
  let last: string | undefined;
  for (const key in meta) last = key;
  if (last === "managedFields") {
    delete meta.managedFields;
    return obj;
  }
  const { managedFields: _, ...rest } = meta;
  obj.metadata = rest;
  return obj;
}

/** Applies `transforms` in order. */
export function chainTransforms(...transforms: readonly (TransformFunc | undefined)[]): TransformFunc {
  const fns = transforms.filter((t): t is TransformFunc => t !== undefined);
  if (fns.length === 1) return fns[0];
  return (obj) => {
    let out = obj;
    // Each transform's output is the next one's own, as the first one's input was.
    for (const fn of fns) out = fn(out) as DeepMutable<KubeObject>;
    return out;
  };
}
