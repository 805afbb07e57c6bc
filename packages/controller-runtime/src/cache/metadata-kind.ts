// Metadata-only kinds: `metadataOnly(kinds.Pod)` names the same resource, but its informer asks
// the server for `PartialObjectMetadata` (by `Accept` header) and stores metadata alone, as
// controller-runtime does for a `metav1.PartialObjectMetadata` with a GVK. Objects keep the
// kind's apiVersion and kind, so `cache.list(metadataOnly(kinds.Pod))` returns items that say `Pod`.
import type { Kind, KubeObject, ObjectMeta } from "../api/index.js";

/** An object of any kind with its metadata only. */
export interface PartialObjectMetadata extends KubeObject {
  metadata: ObjectMeta;
}

const METADATA_ONLY = Symbol.for("controller-runtime.metadataOnly");

/** The metadata-only view of `kind`. */
export function metadataOnly(kind: Kind): Kind<PartialObjectMetadata> {
  if (isMetadataOnly(kind)) return kind as Kind<PartialObjectMetadata>;
  return Object.freeze({ ...kind, [METADATA_ONLY]: true }) as Kind<PartialObjectMetadata>;
}

/** True for a kind made by `metadataOnly`. */
export function isMetadataOnly(kind: Kind): boolean {
  return (kind as unknown as Record<symbol, unknown>)[METADATA_ONLY] === true;
}
