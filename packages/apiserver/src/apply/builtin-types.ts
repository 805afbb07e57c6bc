// What kube's OpenAPI says about built-in types beyond their strategic-merge tags: lists keyed by
// more than the patch merge key (`+listMapKey`), and structs owned as a whole (`+structType=atomic`).
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

/** Definitions kube marks `x-kubernetes-map-type: atomic`. */
export const ATOMIC_STRUCTS: ReadonlySet<string> = new Set([
  "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
  core("LocalObjectReference"),
  core("ObjectReference"),
  core("TypedLocalObjectReference"),
  core("SecretKeySelector"),
  core("ConfigMapKeySelector"),
  core("ObjectFieldSelector"),
  core("ResourceFieldSelector"),
  core("NodeSelector"),
  core("NodeSelectorTerm"),
  core("TopologySelectorTerm"),
  core("SecretReference"),
  "io.k8s.api.rbac.v1.RoleRef",
]);

/** `<definition>.<field>` kube marks `+listType=set` where no patch strategy says so. */
export const LIST_SETS: ReadonlySet<string> = new Set([
  "io.k8s.api.storage.v1.CSIDriverSpec.volumeLifecycleModes",
]);

/** `<definition>.<field>` owned as a whole: `+mapType=atomic` maps and RawExtensions. */
export const ATOMIC_FIELDS: ReadonlySet<string> = new Set([
  core("ReplicationControllerSpec.selector"),
  core("ServiceSpec.selector"),
  core("PodSpec.nodeSelector"),
  "io.k8s.api.apps.v1.ControllerRevision.data",
]);
