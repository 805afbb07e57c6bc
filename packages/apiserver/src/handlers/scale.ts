// The /scale subresource: an autoscaling/v1 Scale view of a replicas field, read, replaced and
// patched (JSON, merge, strategic for built-in kinds, server-side apply) as kube's ScaleREST
// does it: the write is made to the Scale, tracked by the field manager on the Scale, and then
// carried to the parent's replicas field and managedFields (scale-fields.ts).
import { applyJSONPatch, applyMergePatch, PatchError } from "controller-runtime/patch";
import { labelSelectorFromObject, labelSelectorFromSet } from "controller-runtime/api";
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import { ApplyConflictError, ApplyTypeError, applyToObject, updatedManagedFields } from "../apply/index.js";
import type { WriteContext } from "../apply/index.js";
import { type ResponseForm, readBody, sendJson } from "../http-io.js";
import { isDepthError, parseJsonBounded, parseYamlBounded } from "../nesting.js";
import { apiVersionOfDef, kubeTime } from "../object/meta.js";
import { PROTOBUF } from "../protobuf/media-type.js";
import { type ResourceDefinition, storeNameOf } from "../registry/index.js";
import {
  ApiError,
  badRequest,
  cause,
  conflict,
  internalError,
  invalid,
  staleObjectMessage,
  unsupportedMediaType,
} from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";
import { isTrue } from "./list-options.js";
import { formOf } from "./negotiation.js";
import { replicasMappings, type ReplicasMappings, toParent, toSubresource } from "./scale-fields.js";
import { scaleTableJson } from "./scale-table.js";
import { validateWriteOptions } from "./write-options.js";
import { metadataObject } from "./serialize.js";
import { metaApiVersionOf } from "../http-io.js";
import { commitUpdate, decodeProtobufBody, manager } from "./write.js";

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC = "application/strategic-merge-patch+json";
const APPLY = "application/apply-patch+yaml";
/** What a built-in kind's PATCH route consumes (go-restful refuses anything else first). */
const BUILTIN_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC, APPLY];
/** What kube's custom resource handler patches: no strategic merge. */
const CUSTOM_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY];
const SCALE_API_VERSION = "autoscaling/v1";
const SCALE_REF = { group: "autoscaling", resource: "", kind: "Scale" };

/** The Scale kind as the field manager types it: autoscaling/v1's definition. */
const SCALE_DEF: ResourceDefinition = {
  group: "autoscaling",
  version: "v1",
  kind: "Scale",
  listKind: "",
  plural: "",
  singular: "",
  namespaced: true,
  shortNames: [],
  categories: [],
  verbs: [],
  statusSubresource: false,
  storageVersion: "v1",
  selectableFields: {},
  printerColumns: [],
};

function getPath(obj: Readonly<Obj>, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.replace(/^\./, "").split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

function setPath(obj: Obj, path: string, value: unknown): void {
  const parts = path.replace(/^\./, "").split(".");
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (cur[p] === null || typeof cur[p] !== "object") cur[p] = {};
    cur = cur[p] as Obj;
  }
  cur[parts[parts.length - 1]] = value;
}

/** kube's marker, in the Scale a write starts from, of a custom resource without replicas. */
const NO_REPLICAS = -2147483648;

/** Whether a custom resource has the replicas its Scale reads (an integer there). */
function hasReplicas(r: ResourceRequest, stored: StoredObject): boolean {
  return typeof getPath(stored.obj, r.def.scale!.specReplicasPath) === "number";
}

function scaleOf(r: ResourceRequest, stored: StoredObject): Obj {
  const scale = r.def.scale!;
  const meta = stored.obj.metadata as Obj;
  let selector = "";
  if (scale.labelSelectorPath) {
    const sel = getPath(stored.obj, scale.labelSelectorPath);
    if (typeof sel === "string") selector = sel;
    else if (r.def.kind === "ReplicationController" && !r.def.crdName && sel && typeof sel === "object") {
      // An RC's selector is a plain map of labels, as kube's SelectorFromSet reads it.
      selector = labelSelectorFromSet(sel as Record<string, string>).toString();
    } else if (sel && typeof sel === "object") selector = labelSelectorFromObject(sel as Obj).toString();
  }
  const status: Obj = {
    replicas: (getPath(stored.obj, scale.statusReplicasPath) as number | undefined) ?? 0,
  };
  const specReplicas = (getPath(stored.obj, scale.specReplicasPath) as number | undefined) ?? 0;
  if (selector) status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: SCALE_API_VERSION,
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    // ScaleSpec's replicas is an omitempty int32: Go writes `spec: {}` for 0.
    spec: specReplicas === 0 ? {} : { replicas: specReplicas },
    status,
  };
}

/** Answers a Scale in the negotiated form (its Table has kube's scale columns). */
function sendScale(r: ResourceRequest, scale: Obj, form: ResponseForm): void {
  if (form === "object") {
    sendJson(r.res, 200, JSON.stringify(scale));
    return;
  }
  if (form === "PartialObjectMetadataList") {
    // Built-in scale endpoints hold the internal Scale, the custom resource handler's autoscaling/v1's.
    const goType = r.def.crdName ? "*v1.Scale" : "*autoscaling.Scale";
    throw new ApiError(
      406,
      "NotAcceptable",
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`,
    );
  }
  const meta = scale.metadata as Obj;
  const stored: StoredObject = {
    obj: scale,
    json: JSON.stringify(scale),
    rv: Number(meta.resourceVersion ?? 0),
    key: "",
    namespace: String(meta.namespace ?? ""),
    name: String(meta.name ?? ""),
  };
  const body =
    form === "Table"
      ? scaleTableJson(r, scale)
      : JSON.stringify(metadataObject(SCALE_DEF, stored, metaApiVersionOf(r.res)));
  sendJson(r.res, 200, body);
}

/** The content type as kube's patch handler compares it: up to any `;`, as written. */
function patchContentType(header: string | undefined): string {
  const ct = header ?? "";
  const at = ct.indexOf(";");
  return at > 0 ? ct.slice(0, at) : ct;
}

/** go-restful's answer to a content type a route does not consume. */
function restfulUnsupportedMediaType(): ApiError {
  return new ApiError(415, "UnsupportedMediaType", "415: Unsupported Media Type", {});
}

/** The parent's replicas paths by version (a CRD's from every version it declares). */
function mappingsOf(r: ResourceRequest): ReplicasMappings {
  const versions: { apiVersion: string; specReplicasPath: string | undefined }[] = [];
  if (r.def.crdName) {
    const crds = r.server.registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    const crd = crds ? r.server.storage.get(storeNameOf(crds), r.def.crdName) : undefined;
    const spec = (crd?.obj.spec ?? {}) as Obj;
    for (const v of Array.isArray(spec.versions) ? (spec.versions as Obj[]) : []) {
      const scale = (v.subresources as Obj | undefined)?.scale as Obj | undefined;
      versions.push({
        apiVersion: `${String(spec.group)}/${String(v.name)}`,
        specReplicasPath: typeof scale?.specReplicasPath === "string" ? scale.specReplicasPath : undefined,
      });
    }
  }
  return replicasMappings(r.def, versions);
}

function scaleWriteContext(r: ResourceRequest): WriteContext {
  return {
    def: SCALE_DEF,
    apiVersion: SCALE_API_VERSION,
    subresource: "scale",
    time: kubeTime(r.server.now()),
    types: r.server.types,
  };
}

/** The request's Scale after its write, and the Scale's managedFields. */
interface ScaleWrite {
  scale: Obj;
  managedFields: ManagedFieldsEntry[];
}

function parseScale(text: string, yaml: boolean): Obj {
  try {
    return (yaml ? parseYamlBounded(text) : parseJsonBounded(text)) as Obj;
  } catch (e) {
    throw badRequest(`the object provided is unrecognized (must be of type Scale): ${(e as Error).message}`);
  }
}

const PUT_TYPES = ["application/json", "application/yaml", PROTOBUF];

/** PUT's body: a Scale naming the object (kube decodes and checks it before reading the object). */
function decodeReplacement(r: ResourceRequest, bytes: Buffer): Obj {
  const ct = (r.req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  const scale =
    ct === PROTOBUF
      ? decodeProtobufBody(bytes, SCALE_API_VERSION, "Scale")
      : parseScale(bytes.toString("utf8"), ct === "application/yaml");
  const name = ((scale?.metadata ?? {}) as Obj).name;
  // kube's checkName: the Scale must name its object.
  if (typeof name !== "string" || name === "") {
    throw badRequest(
      `the name of the object (${r.name} based on URL) was undeterminable: name must be provided`,
    );
  }
  if (name !== r.name) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${r.name})`);
  }
  return scale;
}

/** A JSON, merge or strategic patch of the current Scale. */
function patched(r: ResourceRequest, ct: string, text: string, old: Obj): ScaleWrite {
  let scale: Obj;
  try {
    const patch = parseJsonBounded(text);
    const base = structuredClone(old);
    scale = (ct === JSON_PATCH ? applyJSONPatch(base, patch) : applyMergePatch(base, patch)) as Obj;
  } catch (e) {
    if (e instanceof PatchError) throw new ApiError(e.code, e.reason, e.statusMessage);
    if (e instanceof ApiError) throw e;
    throw badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  const name = ((scale?.metadata ?? {}) as Obj).name;
  if (name !== r.name) {
    throw badRequest(
      `the name of the object (${String(name ?? "")}) does not match the name on the URL (${r.name})`,
    );
  }
  const managedFields = updatedManagedFields(old, scale, manager(r), scaleWriteContext(r));
  return { scale, managedFields };
}

/** `namespace/name` of a configuration, as kube's objectGVKNN names it. */
function objectName(cfg: Obj): string {
  const meta = (cfg.metadata ?? {}) as Obj;
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return `${text(meta.namespace)}/${text(meta.name)}`;
}

/** A server-side apply of a Scale configuration. */
function applied(r: ResourceRequest, text: string, old: Obj): ScaleWrite {
  // validateWriteOptions (handleScale) has required the field manager.
  let config: unknown;
  try {
    config = parseYamlBounded(text, { uniqueKeys: false });
  } catch (e) {
    const why = isDepthError(e) ? `error converting YAML to JSON: ${e.message}` : (e as Error).message;
    throw badRequest(`error decoding YAML: ${why}`);
  }
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw badRequest("error decoding YAML: the apply configuration must be an object");
  }
  const cfg = config as Obj;
  const apiVersion = typeof cfg.apiVersion === "string" ? cfg.apiVersion : "";
  const kind = typeof cfg.kind === "string" ? cfg.kind : "";
  if (apiVersion !== SCALE_API_VERSION || kind !== "Scale") {
    throw badRequest(
      `invalid object type: ${apiVersion.includes("/") ? apiVersion : `/${apiVersion}`}, Kind=${kind}`,
    );
  }
  const meta = cfg.metadata;
  if (meta !== null && typeof meta === "object" && ((meta as Obj).managedFields ?? null) !== null) {
    throw badRequest("metadata.managedFields must be nil");
  }
  // kube 1.37 cannot apply to a custom resource's Scale: its field manager converts with the
  // custom resource's converter, which refuses autoscaling/v1 (a 500 without reason). Only an
  // apply that conflicts, or changes nothing, gets past it.
  const refused = (what: string) =>
    new ApiError(
      500,
      "",
      `${what} (${what.includes("live") ? "/" : objectName(cfg)}; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1`,
    );
  const oldManaged = (old.metadata as Obj).managedFields;
  if (r.def.crdName && (!Array.isArray(oldManaged) || oldManaged.length === 0)) {
    throw refused("failed to create manager for existing fields: failed to convert live object");
  }
  let result: ReturnType<typeof applyToObject>;
  try {
    result = applyToObject(old, cfg, manager(r), isTrue(r.query.get("force")), scaleWriteContext(r));
  } catch (e) {
    if (e instanceof ApplyConflictError) throw e.toApiError();
    if (e instanceof ApplyTypeError) {
      const ns = meta && typeof meta === "object" ? ((meta as Obj).namespace ?? "") : "";
      const name = meta && typeof meta === "object" ? ((meta as Obj).name ?? "") : "";
      const status = new ApiError(
        500,
        "",
        `failed to create typed patch object (${ns}/${name}; autoscaling/v1, Kind=Scale): ${e.message}`,
      );
      throw status;
    }
    throw e;
  }
  if (r.def.crdName && result.changed) throw refused("failed to convert new object");
  const scale = result.object;
  const name = ((scale.metadata ?? {}) as Obj).name;
  if (name !== r.name) {
    throw badRequest(
      `the name of the object (${String(name ?? "")}) does not match the name on the URL (${r.name})`,
    );
  }
  return { scale, managedFields: result.managedFields };
}

export async function handleScale(r: ResourceRequest, method: string): Promise<void> {
  const ct = patchContentType(r.req.headers["content-type"]);
  if (method === "PATCH" && !r.def.crdName && !BUILTIN_PATCH_TYPES.includes(ct)) {
    throw restfulUnsupportedMediaType();
  }
  if (method === "PATCH" && r.def.crdName && !CUSTOM_PATCH_TYPES.includes(ct)) {
    throw unsupportedMediaType(CUSTOM_PATCH_TYPES);
  }
  const form = formOf(r, method === "GET" ? "object" : "write");
  if (method === "GET") {
    const stored = mustGet(r);
    if (r.def.crdName && !hasReplicas(r, stored)) {
      throw internalError(
        `the spec replicas field ${JSON.stringify(r.def.scale!.specReplicasPath)} does not exist`,
      );
    }
    sendScale(r, scaleOf(r, stored), form);
    return;
  }
  if (method === "PUT") validateWriteOptions(r, "UpdateOptions");
  else validateWriteOptions(r, "PatchOptions", ct === APPLY);
  const putType = (r.req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (method === "PUT" && putType !== "" && !PUT_TYPES.includes(putType))
    throw unsupportedMediaType(PUT_TYPES);
  const bytes = await readBody(r.req, r.server.limits.maxBodyBytes);
  const replacement = method === "PUT" ? decodeReplacement(r, bytes) : undefined;
  const current = mustGet(r);
  const mappings = mappingsOf(r);
  const parentManaged = (current.obj.metadata as Obj).managedFields;
  const old = scaleOf(r, current);
  (old.metadata as Obj).managedFields = toSubresource(parentManaged, mappings);
  const custom = r.def.crdName !== undefined;
  if (custom && !hasReplicas(r, current)) (old.spec as Obj).replicas = NO_REPLICAS;
  const text = bytes.toString("utf8");
  const write: ScaleWrite = replacement
    ? {
        scale: replacement,
        managedFields: updatedManagedFields(old, replacement, manager(r), scaleWriteContext(r)),
      }
    : ct === APPLY
      ? applied(r, text, old)
      : patched(r, ct, text, old);
  const scale = write.scale;
  const replicas = (scale?.spec as Obj | undefined)?.replicas;
  const desired = typeof replicas === "number" ? replicas : 0;
  const specPath = r.def.scale!.specReplicasPath;
  if (custom && desired === NO_REPLICAS) {
    throw badRequest(`the spec replicas field ${JSON.stringify(specPath)} cannot be empty`);
  }
  // Built-in kinds validate the Scale; a custom resource's validation checks the replicas field.
  if (!custom && desired < 0) {
    throw invalid(SCALE_REF, r.name, [
      cause.invalid("spec.replicas", desired, "must be greater than or equal to 0"),
    ]);
  }
  if (custom && desired < 0) {
    throw invalid(refOf(r.def), r.name, [
      cause.invalid(specPath, desired, "should be a non-negative integer"),
    ]);
  }
  const rv = (scale?.metadata as Obj | undefined)?.resourceVersion;
  if (rv && rv !== String(current.rv)) throw conflict(refOf(r.def), r.name, staleObjectMessage);
  const next = JSON.parse(current.json) as Obj;
  setPath(next, r.def.scale!.specReplicasPath, desired);
  const managedFields = toParent(parentManaged, write.managedFields, mappings, apiVersionOfDef(r.def));
  const result = commitUpdate({ ...r, subresource: "" }, current, next, [], managedFields);
  sendScale(r, scaleOf(r, result.stored ?? current), form);
}
