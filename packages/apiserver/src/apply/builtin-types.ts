// What kube's field manager needs beyond merge-types.generated.ts (kube's OpenAPI list and map
// types): ObjectMeta's strategic tags, the defaults of list keys an item may omit, and fields
// owned as a whole that the OpenAPI does not mark (RawExtensions).
import type { PatchMeta } from "controller-runtime/patch";
import type { Json } from "./path-element.js";

export const OBJECT_META_NAME = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

/** ObjectMeta's list tags: finalizers are a set, ownerReferences a map by uid. */
export const OBJECT_META_PATCH: PatchMeta = Object.freeze({
  fields: Object.freeze({
    finalizers: Object.freeze({ strategy: "merge" as const }),
    ownerReferences: Object.freeze({ strategy: "merge" as const, mergeKey: "uid" }),
  }),
});

const core = (t: string) => `io.k8s.api.core.v1.${t}`;
const tcp = { keys: ["containerPort", "protocol"], defaults: { protocol: "TCP" } };

/** `<definition>.<field>` → the list's map keys (and key defaults), where they differ from the merge key. */
export const LIST_MAP_KEYS: Readonly<
  Record<string, { keys: readonly string[]; defaults: Readonly<Record<string, Json>> }>
> = Object.freeze({
  [`${core("Container")}.ports`]: tcp,
  [`${core("EphemeralContainer")}.ports`]: tcp,
  [`${core("ServiceSpec")}.ports`]: { keys: ["port", "protocol"], defaults: { protocol: "TCP" } },
  [`${core("PodSpec")}.topologySpreadConstraints`]: {
    keys: ["topologyKey", "whenUnsatisfiable"],
    defaults: {},
  },
  // `+listType=map +listMapKey=type` without a patch strategy: the CRD controller's conditions.
  "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinitionStatus.conditions": {
    keys: ["type"],
    defaults: {},
  },
});

/** `<definition>.<field>` owned as a whole: `+mapType=atomic` maps and RawExtensions. */
export const ATOMIC_FIELDS: ReadonlySet<string> = new Set([
  core("ReplicationControllerSpec.selector"),
  core("ServiceSpec.selector"),
  core("PodSpec.nodeSelector"),
  "io.k8s.api.apps.v1.ControllerRevision.data",
]);
