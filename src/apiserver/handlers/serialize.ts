// Serialized forms of stored objects, built from the JSON kept at write time so that reads and
// watch fan-out cost string concatenation, not JSON.stringify.
import { apiVersionOfDef } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import type { ResponseForm } from "../http-io.js";

/** The object as served in `def`'s version (custom resources may be stored in another one). */
export function objectJson(def: ResourceDefinition, stored: StoredObject): string {
  const apiVersion = apiVersionOfDef(def);
  if (stored.obj.apiVersion === apiVersion) return stored.json;
  const stale = `"apiVersion":${JSON.stringify(stored.obj.apiVersion)}`;
  return stored.json.replace(stale, `"apiVersion":${JSON.stringify(apiVersion)}`);
}

/** A list item: built-in lists omit each item's kind and apiVersion, as kube's typed lists do. */
export function itemJson(def: ResourceDefinition, stored: StoredObject): string {
  const json = objectJson(def, stored);
  if (def.crdName) return json;
  const prefix = `{"kind":${JSON.stringify(def.kind)},"apiVersion":${JSON.stringify(apiVersionOfDef(def))},`;
  return json.startsWith(prefix) ? `{${json.slice(prefix.length)}` : json;
}

export function metadataObject(stored: StoredObject): Obj {
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: stored.obj.metadata };
}

/** The serialized object in the form negotiated for single objects and watch events. */
export function formJson(def: ResourceDefinition, stored: StoredObject, form: ResponseForm): string {
  if (form === "PartialObjectMetadata" || form === "PartialObjectMetadataList") {
    return JSON.stringify(metadataObject(stored));
  }
  return objectJson(def, stored);
}

export interface ListMetaOut {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export function listJson(
  def: ResourceDefinition,
  items: string[],
  meta: ListMetaOut,
  form: ResponseForm,
): string {
  if (form === "PartialObjectMetadataList" || form === "PartialObjectMetadata") {
    return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":${JSON.stringify(meta)},"items":[${items.join(",")}]}`;
  }
  const kind = JSON.stringify(def.listKind);
  const apiVersion = JSON.stringify(apiVersionOfDef(def));
  if (def.crdName) {
    // An unstructured list, as kube writes it: every key sorted, the list's metadata's too.
    const sortedMeta: Record<string, unknown> = {};
    if (meta.continue !== undefined) sortedMeta.continue = meta.continue;
    if (meta.remainingItemCount !== undefined) sortedMeta.remainingItemCount = meta.remainingItemCount;
    sortedMeta.resourceVersion = meta.resourceVersion;
    return `{"apiVersion":${apiVersion},"items":[${items.join(",")}],"kind":${kind},"metadata":${JSON.stringify(sortedMeta)}}`;
  }
  return `{"kind":${kind},"apiVersion":${apiVersion},"metadata":${JSON.stringify(meta)},"items":[${items.join(",")}]}`;
}
