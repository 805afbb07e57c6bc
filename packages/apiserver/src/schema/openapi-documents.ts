// The OpenAPI documents kubectl reads: `/openapi/v2` (swagger 2.0; kubectl 1.20 validates and
// computes `apply` patches with it) and `/openapi/v3` (an index of group-versions, then one
// document each; kubectl ≥ 1.27 checks there that PATCH accepts `fieldValidation`, so the
// server validates fields, and reads schemas for `apply` and `explain`).
import { createHash } from "node:crypto";
import { stringifyJson } from "../object/deep-json.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { KUBERNETES_VERSION } from "../server-version.js";
import { INT_OR_STRING, QUANTITY } from "./builtin-schemas.js";
import type { DefinitionSet } from "./openapi-definitions.js";
import { collectDefinitions } from "./openapi-definitions.js";
import { type Schema, withoutCombinators } from "./schema-types.js";

/**
 * Reported in `info.version`: the Kubernetes version the server speaks, as kube-apiserver
 * reports its own (the gitVersion of /version without its suffix).
 */
const INFO = { title: "Kubernetes", version: KUBERNETES_VERSION };
const V3_REF = "#/components/schemas/";

type Json = Record<string, unknown>;

/** The swagger 2.0 document of every resource. */
export function openAPIV2(defs: readonly ResourceDefinition[]): Json {
  const set = collectDefinitions(defs, "v2");
  const paths: Record<string, Json> = {};
  for (const def of defs) Object.assign(paths, resourcePaths(def, set, "v2"));
  const definitions: Record<string, Schema> = {};
  for (const [name, s] of Object.entries(set.definitions)) definitions[name] = toV2(s);
  definitions[INT_OR_STRING] = { type: "string", format: "int-or-string" };
  definitions[QUANTITY] = { type: "string" };
  return {
    swagger: "2.0",
    info: INFO,
    paths: sortKeys(paths),
    definitions,
    securityDefinitions: { BearerToken: { type: "apiKey", name: "authorization", in: "header" } },
    security: [{ BearerToken: [] }],
  };
}

/** `api/v1` or `apis/apps/v1`: the key of a group-version in the v3 index. */
export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** The v3 document of one group-version; undefined when nothing is served there. */
export function openAPIV3GroupVersion(
  defs: readonly ResourceDefinition[],
  group: string,
  version: string,
): Json | undefined {
  const mine = defs.filter((d) => d.group === group && d.version === version);
  if (mine.length === 0) return undefined;
  const set = collectDefinitions(mine);
  const paths: Record<string, Json> = {};
  for (const def of mine) Object.assign(paths, resourcePaths(def, set, "v3"));
  const schemas: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(set.definitions)) schemas[name] = rewriteRefs(s);
  return {
    openapi: "3.0.0",
    info: INFO,
    paths: sortKeys(paths),
    components: {
      schemas,
      securitySchemes: {
        BearerToken: {
          type: "apiKey",
          description: "Bearer Token authentication",
          name: "authorization",
          in: "header",
        },
      },
    },
  };
}

/**
 * The `/openapi/v3` index: every served group-version with the URL of its document, whose
 * `hash` changes when the document does (clients cache by it).
 */
export function openAPIV3Paths(
  defs: readonly ResourceDefinition[],
  hashOf: (group: string, version: string) => string = (g, v) =>
    documentHash(openAPIV3GroupVersion(defs, g, v)),
): { paths: Record<string, { serverRelativeURL: string }> } {
  const gvs = new Map<string, [string, string]>();
  for (const d of defs) gvs.set(groupVersionPath(d.group, d.version), [d.group, d.version]);
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const key of [...gvs.keys()].sort()) {
    const [g, v] = gvs.get(key)!;
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hashOf(g, v)}` };
  }
  return { paths };
}

/** kube's hash of a document: SHA-512 of its JSON, upper-case hex. */
export function documentHash(doc: unknown): string {
  return createHash("sha512")
    .update(stringifyJson(doc ?? null))
    .digest("hex")
    .toUpperCase();
}

/**
 * A schema in swagger 2.0 terms: no anyOf/oneOf/nullable; free-form where v2 cannot say it.
 * Top-down with a stack: a CRD's schema may nest 10 000 levels.
 */
function toV2(root: Schema): Schema {
  const result = toV2Node(root);
  const stack = [result];
  while (stack.length > 0) {
    const out = stack.pop()!;
    const below = (v: Schema) => {
      const c = toV2Node(v);
      stack.push(c);
      return c;
    };
    if (out.properties)
      out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, below(v)]));
    if (out.items && !Array.isArray(out.items)) out.items = below(out.items);
    if (typeof out.additionalProperties === "object")
      out.additionalProperties = below(out.additionalProperties);
  }
  return result;
}

/** toV2 of one node, its children left as they are. */
function toV2Node(s: Schema): Schema {
  const out = withoutCombinators(s);
  delete out.nullable;
  if (s.nullable || s["x-kubernetes-int-or-string"]) delete out.type;
  // kubectl 1.20 rejects fields v2 does not list: a preserve-unknown object lists none.
  if (s["x-kubernetes-preserve-unknown-fields"]) delete out.properties;
  return out;
}

/** A copy of `root` with its `$ref`s pointing at v3's components, made with a stack (it may nest 10 000 levels). */
function rewriteRefs(root: unknown): unknown {
  const copy = (v: unknown): unknown =>
    Array.isArray(v) ? [...v] : v !== null && typeof v === "object" ? { ...v } : v;
  const result = copy(root);
  const stack: unknown[] = [result];
  while (stack.length > 0) {
    const x = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        const c = copy(x[i]);
        x[i] = c;
        if (c !== null && typeof c === "object") stack.push(c);
      }
      continue;
    }
    for (const [k, v] of Object.entries(x)) {
      if (k === "$ref" && typeof v === "string") x[k] = v.replace("#/definitions/", V3_REF);
      else {
        const c = copy(v);
        x[k] = c;
        if (c !== null && typeof c === "object") stack.push(c);
      }
    }
  }
  return result;
}

/** The operations of one resource, enough for kubectl: actions, GVKs and query parameters. */
function resourcePaths(
  def: ResourceDefinition,
  set: DefinitionSet,
  flavour: "v2" | "v3",
): Record<string, Json> {
  const name = set.nameOf(def);
  if (name === undefined) return {};
  const refPrefix = flavour === "v2" ? "#/definitions/" : V3_REF;
  const kindRef = { $ref: `${refPrefix}${name}` };
  const gvk = { group: def.group, version: def.version, kind: def.kind };
  const base = def.group === "" ? `/api/${def.version}` : `/apis/${def.group}/${def.version}`;
  const collection = def.namespaced
    ? `${base}/namespaces/{namespace}/${def.plural}`
    : `${base}/${def.plural}`;
  const pathParam = (n: string) =>
    flavour === "v2"
      ? { name: n, in: "path", required: true, type: "string", uniqueItems: true }
      : { name: n, in: "path", required: true, schema: { type: "string", uniqueItems: true } };
  const query = (n: string) =>
    flavour === "v2"
      ? { name: n, in: "query", type: "string", uniqueItems: true }
      : { name: n, in: "query", schema: { type: "string", uniqueItems: true } };
  const writeParams = [query("dryRun"), query("fieldManager"), query("fieldValidation")];
  const body = (schema: Json) =>
    flavour === "v2"
      ? { parameters: [{ name: "body", in: "body", required: true, schema }] }
      : { requestBody: { content: { "*/*": { schema } } } };
  const ok = (schema: Json) =>
    flavour === "v2"
      ? { responses: { "200": { description: "OK", schema } } }
      : { responses: { "200": { description: "OK", content: { "application/json": { schema } } } } };
  const op = (action: string, id: string, extra: Json, params: Json[] = []) => {
    const merged = { ...extra } as Json & { parameters?: Json[] };
    merged.parameters = [...(merged.parameters ?? []), ...params];
    return {
      operationId: `${action}${def.kind}`,
      ...merged,
      ...ok(kindRef),
      "x-kubernetes-action": id,
      "x-kubernetes-group-version-kind": gvk,
    };
  };
  const patchBody = body({ type: "object" });
  const scope = def.namespaced ? [pathParam("namespace")] : [];
  const item = {
    get: op("read", "get", {}),
    put: op("replace", "put", body(kindRef), writeParams),
    patch: op("patch", "patch", patchBody, [...writeParams, query("force")]),
    delete: op("delete", "delete", {}, [query("dryRun")]),
    parameters: [...scope, pathParam("name")],
  };
  const out: Record<string, Json> = {
    [collection]: {
      get: op("list", "list", {}),
      post: op("create", "post", body(kindRef), writeParams),
      delete: op("deletecollection", "deletecollection", {}),
      parameters: scope,
    },
    [`${collection}/{name}`]: item,
  };
  if (def.statusSubresource) {
    out[`${collection}/{name}/status`] = {
      get: op("read", "get", {}),
      put: op("replace", "put", body(kindRef), writeParams),
      patch: op("patch", "patch", patchBody, [...writeParams, query("force")]),
      parameters: [...scope, pathParam("name")],
    };
  }
  return out;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}
