// The answer's form, negotiated from `Accept` as kube-apiserver does it in two steps. go-restful
// first matches a route (built-in kinds only: custom resources are not served through it): one
// entry's bare media type must be `*/*` or one the route produces, compared as written, else 406
// "Available representations". kube's negotiation (../accept.ts) then takes the first clause it
// can serve with its serializers (JSON, YAML, protobuf; a custom resource's own objects in JSON or
// YAML only) and its `as`/`g`/`v` transform (Table only where the resource has a table convertor,
// in JSON or YAML; PartialObjectMetadata in any), else 406 "only the following media types are
// accepted". A watch needs a serializer that streams. Both happen before the request does
// anything. Whether the object or list fits the form is decided when the answer is written.
import {
  type Convert,
  type EndpointRestrictions,
  KUBE_SERIALIZERS,
  mediaTypesOf,
  negotiateMediaTypeOptions,
  PROTOBUF_SERIALIZER,
  type SerializerInfo,
} from "../accept.js";
import {
  answerInMetaVersion,
  answerInProtobuf,
  metaApiVersionOf,
  type ResponseForm,
  SERIALIZERS,
  sendJson,
} from "../http-io.js";
import type { ResourceDefinition } from "../registry/index.js";
import { ApiError } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { answerSource, metadataObject } from "./serialize.js";
import { tableJson } from "./table.js";
import { stringifyJson } from "../object/deep-json.js";

const WATCH_STREAMS = mediaTypesOf(KUBE_SERIALIZERS, true);

/** Which of the server's routes a request took: what it produces depends on it. */
export type Route = "object" | "list" | "write" | "watch";

export function restfulNotAcceptable(produces: readonly string[]): ApiError {
  return new ApiError(
    406,
    "NotAcceptable",
    `406: Not Acceptable\n\nAvailable representations: ${produces.join(", ")}`,
    {},
  );
}

export function notAcceptable(types: readonly string[]): ApiError {
  return new ApiError(
    406,
    "NotAcceptable",
    `only the following media types are accepted: ${types.join(", ")}`,
  );
}

/** go-restful's matchesAccept: each entry's type before any `;`, trimmed of spaces, as written. */
export function routeProduces(accept: string | undefined, produces: readonly string[]): boolean {
  for (const entry of (accept || "*/*").split(",")) {
    const type = entry.split(";")[0].replace(/^ +| +$/g, "");
    if (type === "*/*" || produces.includes(type)) return true;
  }
  return false;
}

const isMetaGroupVersion = (c: Convert) =>
  c.group === "meta.k8s.io" && (c.version === "v1" || c.version === "v1beta1");

/** kube's RequestScope as EndpointRestrictions. */
function scopeRestrictions(def: ResourceDefinition, tables: boolean): EndpointRestrictions {
  return {
    allowsMediaTypeTransform(s: SerializerInfo, convert: Convert | undefined): boolean {
      // A custom resource's own objects have no protobuf form (its StandardSerializers).
      if (convert === undefined) return !def.crdName || s !== PROTOBUF_SERIALIZER;
      if (!isMetaGroupVersion(convert)) return false;
      if (convert.kind === "Table")
        return tables && s.type === "application" && (s.subType === "json" || s.subType === "yaml");
      return convert.kind === "PartialObjectMetadata" || convert.kind === "PartialObjectMetadataList";
    },
    allowsServerVersion: (version) => version === "v1",
    allowsStreamSchema: (schema) => schema === "watch",
  };
}

export interface Negotiation {
  route: Route;
  /** Whether the resource converts to Table (review and token endpoints do not). */
  tables: boolean;
}

/** What kube's negotiation settled: the answer's form, its serializer, the meta version asked. */
export interface Negotiated {
  form: ResponseForm;
  /** Whether the answer is written in protobuf. */
  protobuf: boolean;
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`: the apiVersion of a Table or PartialObjectMetadata. */
  metaApiVersion: string;
}

/** The form of the answer to a request with `accept`; throws kube's 406 when none can be given. */
export function negotiate(def: ResourceDefinition, accept: string | undefined, n: Negotiation): Negotiated {
  if (!def.crdName) {
    const produces =
      n.route === "object" || n.route === "write" ? SERIALIZERS : [...SERIALIZERS, ...WATCH_STREAMS];
    if (!routeProduces(accept, produces)) throw restfulNotAcceptable(produces);
  }
  const options = negotiateMediaTypeOptions(accept, KUBE_SERIALIZERS, scopeRestrictions(def, n.tables));
  if (!options) throw notAcceptable(SERIALIZERS);
  if (n.route === "watch" && !options.accepted.stream) throw notAcceptable(WATCH_STREAMS);
  const convert = options.convert;
  return {
    form: convert === undefined ? "object" : (convert.kind as ResponseForm),
    protobuf: options.accepted === PROTOBUF_SERIALIZER,
    metaApiVersion: `meta.k8s.io/${convert?.version ?? "v1"}`,
  };
}

/**
 * Settled negotiations by what decides them (custom or built-in, route, tables, Accept): clients
 * send the same few Accept headers on every request, and negotiating one costs a create several
 * µs. Bounded, emptied when full; refusals are not kept (each gets its own error).
 */
const settled = new Map<string, Negotiated>();
const MAX_SETTLED = 512;

function negotiateCached(def: ResourceDefinition, accept: string | undefined, n: Negotiation): Negotiated {
  const key = `${def.crdName ? "c" : "b"}${n.tables ? "t" : "-"}${n.route}:${accept ?? ""}`;
  let found = settled.get(key);
  if (found === undefined) {
    found = Object.freeze(negotiate(def, accept, n));
    if (settled.size >= MAX_SETTLED) settled.clear();
    settled.set(key, found);
  }
  return found;
}

/** kube's negotiation for a request the server is about to serve: records how its answer is written. */
export function negotiateFor(r: ResourceRequest, route: Route, tables = true): Negotiated {
  const n = negotiateCached(r.def, r.req.headers.accept, { route, tables });
  if (n.protobuf) answerInProtobuf(r.res);
  answerInMetaVersion(r.res, n.metaApiVersion);
  return n;
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
  return negotiateFor(r, route, tables).form;
}

/**
 * Answers one object (a write's result, a review) in the negotiated form, as kube's
 * transformResponseObject does after the request has done its work. `source` is the object
 * `json` was written from, when the caller holds it (protobuf is encoded from it).
 */
export function sendInForm(
  r: ResourceRequest,
  code: number,
  json: string,
  form: ResponseForm,
  headers?: Record<string, string | string[]>,
  source?: Readonly<Obj>,
): void {
  if (form === "object") {
    sendJson(r.res, code, json, headers, answerSource(r.def, source));
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
      : stringifyJson(metadataObject(r.def, stored, metaApiVersionOf(r.res)));
  sendJson(r.res, code, body, headers);
}
