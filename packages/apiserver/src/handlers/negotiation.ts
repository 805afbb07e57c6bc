// The answer's form, negotiated from `Accept` as kube-apiserver does it in two steps. go-restful
// first matches a route (built-in kinds only: custom resources are not served through it): one
// entry's bare media type must be `*/*` or one the route produces, compared as written, else 406
// "Available representations". kube's negotiation then takes the first entry it can serve with
// its `as`/`g`/`v` transform (Table only where the resource has a table convertor, in JSON or
// YAML), else 406 "only the following media types are accepted". Both happen before the request
// does anything. Whether the object or list fits the form is decided when the answer is written.
import { type AcceptEntry, parseAccept, type ResponseForm, SERIALIZERS, sendJson } from "../http-io.js";
import type { ResourceDefinition } from "../registry/index.js";
import { ApiError } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { metadataObject } from "./serialize.js";
import { tableJson } from "./table.js";
import { stringifyJson } from "../object/deep-json.js";

const WATCH_STREAMS = ["application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"];

/** Which of the server's routes a request took: what it produces depends on it. */
export type Route = "object" | "list" | "write";

function restfulNotAcceptable(produces: readonly string[]): ApiError {
  return new ApiError(
    406,
    "NotAcceptable",
    `406: Not Acceptable\n\nAvailable representations: ${produces.join(", ")}`,
    {},
  );
}

function notAcceptable(): ApiError {
  return new ApiError(
    406,
    "NotAcceptable",
    `only the following media types are accepted: ${SERIALIZERS.join(", ")}`,
  );
}

/** The transform an entry asks for, or null when the resource cannot give it. */
function transform(e: AcceptEntry, serializer: string, tables: boolean): ResponseForm | null {
  const as = e.params.as;
  if (as === undefined) return "object";
  if (e.params.g !== "meta.k8s.io" || (e.params.v !== "v1" && e.params.v !== "v1beta1")) return null;
  if (as === "Table") return tables && serializer !== SERIALIZERS[2] ? "Table" : null;
  if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") return as;
  return null;
}

export interface Negotiation {
  route: Route;
  /** Whether the resource converts to Table (review and token endpoints do not). */
  tables: boolean;
}

/** The form of the answer to a request with `accept`; throws kube's 406 when none can be given. */
export function negotiateForm(
  def: ResourceDefinition,
  accept: string | undefined,
  n: Negotiation,
): ResponseForm {
  const entries = parseAccept(accept || "*/*");
  if (!def.crdName) {
    const produces = n.route === "list" ? [...SERIALIZERS, ...WATCH_STREAMS] : SERIALIZERS;
    if (!entries.some((e) => e.type === "*/*" || produces.includes(e.type)))
      throw restfulNotAcceptable(produces);
  }
  for (const e of entries) {
    const type = e.type.toLowerCase();
    const serializer =
      type === "*/*" || type === "application/*" ? SERIALIZERS[0] : SERIALIZERS.find((s) => s === type);
    if (!serializer) continue;
    // Custom resources are served in JSON and YAML only.
    if (def.crdName && serializer === SERIALIZERS[2] && e.params.as === undefined) continue;
    const form = transform(e, serializer, n.tables);
    if (form === null) continue;
    // YAML and protobuf answers are JSON here (client-go and kubectl read it whatever they asked),
    // protobuf ones encoded at the end where kube has a message for them.
    return serializer === SERIALIZERS[0] ? form : form === "Table" ? form : "object";
  }
  throw notAcceptable();
}

/** Go's `%T` of the object kube's handler holds: the internal type of the group's package. */
function goType(def: ResourceDefinition, list: boolean): string {
  if (def.crdName) return list ? "*unstructured.UnstructuredList" : "*unstructured.Unstructured";
  // events.k8s.io is served from core's Event storage.
  const pkg = def.group === "" || def.group === "events.k8s.io" ? "core" : def.group.split(".")[0];
  return `*${pkg}.${def.kind}${list ? "List" : ""}`;
}

/** The 406 (or a custom resource's 500) of a list form asked of one object, or the reverse. */
export function checkFormFits(def: ResourceDefinition, form: ResponseForm, list: boolean): void {
  if (form === "PartialObjectMetadataList" && !list) {
    if (def.crdName) throw new ApiError(500, "", "content is not a list");
    throw new ApiError(
      406,
      "NotAcceptable",
      `you requested PartialObjectMetadataList, but the requested object is not a list (${goType(def, false)})`,
    );
  }
  if (form === "PartialObjectMetadata" && list) {
    throw new ApiError(
      406,
      "NotAcceptable",
      `you requested PartialObjectMetadata, but the requested object is a list (${goType(def, true)})`,
    );
  }
}

/** The form of the answer to `r`, negotiated before it does anything. */
export function formOf(r: ResourceRequest, route: Route, tables = true): ResponseForm {
  return negotiateForm(r.def, r.req.headers.accept, { route, tables });
}

/**
 * Answers one object (a write's result, a review) in the negotiated form, as kube's
 * transformResponseObject does after the request has done its work.
 */
export function sendInForm(
  r: ResourceRequest,
  code: number,
  json: string,
  form: ResponseForm,
  headers?: Record<string, string | string[]>,
): void {
  if (form === "object") {
    sendJson(r.res, code, json, headers);
    return;
  }
  checkFormFits(r.def, form, false);
  const obj = JSON.parse(json) as Obj;
  const meta = (obj.metadata ?? {}) as Obj;
  const stored: StoredObject = {
    obj,
    json,
    rv: Number(meta.resourceVersion ?? 0),
    key: "",
    namespace: String(meta.namespace ?? ""),
    name: String(meta.name ?? ""),
  };
  const body =
    form === "Table"
      ? tableJson(r, [stored], { resourceVersion: String(meta.resourceVersion ?? "") })
      : stringifyJson(metadataObject(r.def, stored));
  sendJson(r.res, code, body, headers);
}
