// Field ownership across the scale subresource: apimachinery's managedfields.ScaleHandler. A
// write to /scale is tracked on the Scale (autoscaling/v1, `spec.replicas`), starting from the
// parent's managers that own its replicas field, and the result is folded back into the
// parent's managedFields under the parent's own path and version. Its quirks are kept: a scale
// manager new to the parent gets no time, and parent entries of versions the resource no longer
// serves are dropped.
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import { FieldSet } from "../apply/field-set.js";
import { decodeManagedFields, encodeManagedFields, type Managers } from "../apply/managers.js";
import type { Path } from "../apply/path-element.js";
import type { ResourceDefinition } from "../registry/index.js";

const SCALE_API_VERSION = "autoscaling/v1";
const REPLICAS_IN_SCALE: Path = [{ field: "spec" }, { field: "replicas" }];

/** A `.spec.replicas` path as a field path. */
export function replicasPath(path: string): Path {
  return path
    .replace(/^\./, "")
    .split(".")
    .map((field) => ({ field }));
}

/**
 * The parent's replicas path by apiVersion (ResourcePathMappings): a built-in kind has its one
 * version; a custom resource every version of its CRD, without a path where that version has
 * no scale subresource.
 */
export type ReplicasMappings = ReadonlyMap<string, Path | undefined>;

/** The mappings of `def`'s kind: `versions` gives a CRD's versions and their scale paths. */
export function replicasMappings(
  def: ResourceDefinition,
  versions: readonly { apiVersion: string; specReplicasPath: string | undefined }[],
): ReplicasMappings {
  const out = new Map<string, Path | undefined>();
  for (const v of versions)
    out.set(v.apiVersion, v.specReplicasPath ? replicasPath(v.specReplicasPath) : undefined);
  if (out.size === 0 && def.scale) {
    const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    out.set(apiVersion, replicasPath(def.scale.specReplicasPath));
  }
  return out;
}

/** ScaleHandler.ToSubresource: the parent's managers of the replicas field, as Scale managers. */
export function toSubresource(parentEntries: unknown, mappings: ReplicasMappings): ManagedFieldsEntry[] {
  const parent = decodeManagedFields(parentEntries);
  const out: Managers = new Map();
  for (const [id, m] of parent) {
    const path = mappings.get(m.apiVersion);
    if (!path || !m.set.has(path)) continue;
    out.set(id, { ...m, apiVersion: SCALE_API_VERSION, set: FieldSet.of(REPLICAS_IN_SCALE) });
  }
  return encodeManagedFields(out);
}

/**
 * ScaleHandler.ToParent: the Scale's managers after the write merged into the parent's. A parent
 * manager whose replicas field the write took loses it; the Scale's owners of `spec.replicas`
 * own the parent's replicas field (in the parent's version `apiVersion`), with the time the
 * parent had for the same identity, if any.
 */
export function toParent(
  parentEntries: unknown,
  scaleEntries: readonly ManagedFieldsEntry[],
  mappings: ReplicasMappings,
  apiVersion: string,
): ManagedFieldsEntry[] {
  const parent = decodeManagedFields(parentEntries);
  const scale = decodeManagedFields(scaleEntries);
  const out: Managers = new Map();
  for (const [id, m] of parent) {
    if (!mappings.has(m.apiVersion)) continue;
    const path = mappings.get(m.apiVersion);
    if (!path || !m.set.has(path)) {
      out.set(id, m);
      continue;
    }
    if (!scale.has(id)) {
      const rest = m.set.difference(FieldSet.of(path));
      if (!rest.isEmpty()) out.set(id, { ...m, set: rest });
    } else {
      out.set(id, m);
      scale.delete(id);
    }
  }
  const own = mappings.get(apiVersion);
  for (const [id, m] of scale) {
    if (!m.set.has(REPLICAS_IN_SCALE) || !own) continue;
    out.set(id, { ...m, apiVersion, time: parent.get(id)?.time, set: FieldSet.of(own) });
  }
  return encodeManagedFields(out);
}
