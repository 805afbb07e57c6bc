// Serialized forms of stored objects, built from the JSON kept at write time so that reads and
// watch fan-out cost string concatenation, not JSON.stringify.
import { apiVersionOfDef, inObjectMetaOrder } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import type { ResponseForm } from "../http-io.js";
import { stringifyJson } from "../object/deep-json.js";
import { storedMetadataJson } from "./metadata-json.js";

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

/** Keys of `o` in `order` first, then the rest as they come. */
function ordered(o: Obj, order: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of order) if (o[k] !== undefined) out[k] = o[k];
  for (const k in o) if (!(k in out) && Object.hasOwn(o, k)) out[k] = o[k];
  return out;
}

const MANAGED_FIELDS_ORDER = [
  "manager",
  "operation",
  "apiVersion",
  "time",
  "fieldsType",
  "fieldsV1",
  "subresource",
];
const OWNER_REFERENCE_ORDER = ["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"];

/**
 * The object's metadata as kube's typed ObjectMeta writes it. A custom resource's is stored in
 * unstructured (sorted) order and is put in the struct's; a built-in's already is (metadata-only
 * informers list and watch through here: no copy for them).
 */
export function metadataObject(
  def: ResourceDefinition,
  stored: StoredObject,
  metaApiVersion = "meta.k8s.io/v1",
): Obj {
  const partial = (metadata: unknown) => ({
    kind: "PartialObjectMetadata",
    apiVersion: metaApiVersion,
    metadata,
  });
  if (!def.crdName) return partial(stored.obj.metadata);
  const meta = inObjectMetaOrder(stored.obj.metadata as Obj);
  const entries = (list: unknown, order: readonly string[]) =>
    Array.isArray(list) ? list.map((e) => (e && typeof e === "object" ? ordered(e as Obj, order) : e)) : list;
  if (meta.managedFields) meta.managedFields = entries(meta.managedFields, MANAGED_FIELDS_ORDER);
  if (meta.ownerReferences) meta.ownerReferences = entries(meta.ownerReferences, OWNER_REFERENCE_ORDER);
  return partial(meta);
}

/**
 * `obj` when an answer of `def` (in form "object") can be encoded from it rather than from its
 * JSON read back: a built-in's object in the request's version and kind, as protobuf wants it.
 */
export function answerSource(def: ResourceDefinition, obj: Readonly<Obj> | undefined): Obj | undefined {
  if (obj === undefined || def.crdName) return undefined;
  return obj.apiVersion === apiVersionOfDef(def) && obj.kind === def.kind ? (obj as Obj) : undefined;
}

/** The serialized object in the form negotiated for single objects and watch events. */
export function formJson(
  def: ResourceDefinition,
  stored: StoredObject,
  form: ResponseForm,
  metaApiVersion = "meta.k8s.io/v1",
): string {
  if (form === "PartialObjectMetadata" || form === "PartialObjectMetadataList") {
    const metadata = def.crdName ? undefined : storedMetadataJson(stored);
    if (metadata !== undefined) {
      return `{"kind":"PartialObjectMetadata","apiVersion":${JSON.stringify(metaApiVersion)},"metadata":${metadata}}`;
    }
    return stringifyJson(metadataObject(def, stored, metaApiVersion));
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
  metaApiVersion = "meta.k8s.io/v1",
): string {
  if (form === "PartialObjectMetadataList" || form === "PartialObjectMetadata") {
    // An empty one says null, as kube-apiserver does (its items are a nil Go slice).
    const list = items.length > 0 ? `[${items.join(",")}]` : "null";
    return `{"kind":"PartialObjectMetadataList","apiVersion":${JSON.stringify(metaApiVersion)},"metadata":${JSON.stringify(meta)},"items":${list}}`;
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
