// The schema definitions behind the OpenAPI documents: built-in kinds by kube's names, CRD
// versions as kube publishes them (`com.example.v1.Widget` with its list), and the
// strategic-merge-patch extensions kubectl reads to compute `apply` patches.
import { builtinPatchMeta, type PatchMeta } from "controller-runtime/patch";
import { cloneJson } from "../object/deep-json.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { builtinDefinitionName, builtinDefinitions, OBJECT_META, reachable } from "./builtin-schemas.js";
import { META_DESCRIPTIONS } from "./meta-descriptions.generated.js";
import type { Schema } from "./schema-types.js";
import { SchemaResolver, schemaOf, withoutCombinators } from "./schema-types.js";

const LIST_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta";
/** Definitions every document carries: the Status of errors and DeleteOptions of deletes. */
const COMMON = [
  "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
  "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
];

export interface DefinitionSet {
  /** Definitions by name, `$ref`s as `#/definitions/<name>`. */
  definitions: Record<string, Schema>;
  /** The definition name of each resource's kind (absent when it has none). */
  nameOf(def: ResourceDefinition): string | undefined;
}

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });

/** `example.com` + `v1` + `Widget` → `com.example.v1.Widget`, kube's name for CRD kinds. */
export function crdDefinitionName(group: string, version: string, kind: string): string {
  return [...group.split(".").reverse(), version, kind].join(".");
}

/** The definitions the documents for `defs` need, built fresh, for the v2 or the v3 document. */
export function collectDefinitions(
  defs: readonly ResourceDefinition[],
  flavour: Flavour = "v3",
): DefinitionSet {
  const builtins = builtinDefinitions();
  const own: Record<string, Schema> = {};
  const names = new Map<ResourceDefinition, string>();
  const roots: string[] = [...COMMON];
  for (const def of defs) {
    let name: string | undefined;
    if (def.crdName !== undefined || builtinDefinitionName(def.group, def.version, def.kind) === undefined) {
      const schema = schemaOf(def);
      if (schema === undefined) continue;
      name = crdDefinitionName(def.group || "core", def.version, def.kind);
      own[name] = publishedSchema(schema, def, flavour);
      own[`${crdDefinitionName(def.group || "core", def.version, def.listKind)}`] = listSchema(
        name,
        def,
        flavour,
      );
      roots.push(`${crdDefinitionName(def.group || "core", def.version, def.listKind)}`);
    } else {
      name = builtinDefinitionName(def.group, def.version, def.kind)!;
      const list = builtinDefinitionName(def.group, def.version, def.listKind);
      if (list) roots.push(list);
    }
    names.set(def, name);
    roots.push(name);
  }
  const lookup = (n: string) => own[n] ?? builtins[n];
  const definitions: Record<string, Schema> = {};
  for (const root of roots) Object.assign(definitions, reachable(root, lookup));
  for (const name of Object.keys(META_DESCRIPTIONS)) {
    if (definitions[name]) definitions[name] = described(name, definitions[name], flavour);
  }
  const annotated = new Set<string>();
  for (const [def, name] of names) {
    const meta =
      def.patchMeta ?? (def.crdName ? undefined : builtinPatchMeta(def.group, def.version, def.kind));
    if (meta) annotatePatchMeta(definitions, definitions[name], meta, annotated, name);
  }
  return { definitions: sortKeys(definitions), nameOf: (def) => names.get(def) };
}

export type Flavour = "v2" | "v3";

// The descriptions kube's CRD OpenAPI builder gives the properties it adds (from TypeMeta's and
// PartialObjectMetadata's swagger docs).
const API_VERSION_DOC =
  "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const KIND_DOC =
  "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const METADATA_DOC =
  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DOC =
  "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";
const EMBEDDED_API_VERSION_DOC =
  "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const EMBEDDED_KIND_DOC =
  "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/**
 * A meta/v1 definition (ObjectMeta, ...) with kube's descriptions of it and its fields, which
 * `kubectl explain <resource>.metadata` shows; the other built-in schemas carry none.
 */
function described(name: string, s: Schema, flavour: Flavour): Schema {
  const docs = META_DESCRIPTIONS[name]!;
  const properties: Record<string, Schema> = {};
  for (const [field, p] of Object.entries(s.properties ?? {})) {
    const description = docs.properties[field];
    if (description === undefined) properties[field] = p;
    else if (typeof p.$ref === "string" && Object.keys(p).length === 1) {
      properties[field] = describedRef(p.$ref.slice("#/definitions/".length), description, flavour);
    } else properties[field] = { description, ...p };
  }
  return { description: docs.description, ...s, properties };
}

/** A `$ref` with a description: beside it in v2, wrapped in allOf in v3 (as kube-openapi writes it). */
function describedRef(name: string, description: string, flavour: Flavour): Schema {
  return flavour === "v2" ? { description, ...ref(name) } : { description, allOf: [ref(name)] };
}

const preserves = (s: Schema) => s["x-kubernetes-preserve-unknown-fields"] === true;

/**
 * apiextensions' ToStructuralOpenAPIV2: what swagger 2.0 (and kubectl's client-side validation
 * reading it) cannot say is dropped: combinators, nullable and preserved objects' fields.
 */
function toStructuralV2(root: Schema): Schema {
  // Top-down with a stack: a schema may nest 10 000 levels.
  const result = structuralV2Node(root);
  const stack = [result];
  while (stack.length > 0) {
    const out = stack.pop()!;
    const below = (v: Schema) => {
      const c = structuralV2Node(v);
      stack.push(c);
      return c;
    };
    if (out.properties) {
      out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, below(v)]));
    }
    if (out.items && !Array.isArray(out.items)) out.items = below(out.items);
    if (typeof out.additionalProperties === "object")
      out.additionalProperties = below(out.additionalProperties);
  }
  return result;
}

/** toStructuralV2 of one node, its children left as they are. */
function structuralV2Node(s: Schema): Schema {
  const out = withoutCombinators(s);
  if (out.nullable) {
    delete out.type;
    delete out.nullable;
    delete out.items;
    delete out.properties;
  }
  if (preserves(out)) {
    delete out.items;
    delete out.properties;
  }
  if (out.items === undefined && out.type === "array") delete out.type;
  if (preserves(out) && out.type === "object") delete out.type;
  if (out.properties && out.required) {
    const nullable = new Set(Object.keys(out.properties).filter((k) => out.properties?.[k].nullable));
    const required = out.required.filter((k) => !nullable.has(k));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (typeof out.additionalProperties === "object" && out.additionalProperties.nullable) delete out.required;
  return out;
}

/** kube's addEmbeddedProperties: an embedded resource lists apiVersion, kind and metadata. */
function addEmbeddedProperties(root: Schema, flavour: Flavour): void {
  // With a stack (a schema may nest 10 000 levels); each node changes only itself.
  const stack = [root];
  while (stack.length > 0) {
    const s = stack.pop()!;
    stack.push(...Object.values(s.properties ?? {}));
    if (s.items && !Array.isArray(s.items)) stack.push(s.items);
    if (typeof s.additionalProperties === "object") stack.push(s.additionalProperties);
    addOwnEmbeddedProperties(s, flavour);
  }
}

function addOwnEmbeddedProperties(s: Schema, flavour: Flavour): void {
  // In v2 a preserved object lists no fields: kubectl would refuse any other.
  if (flavour === "v2" && preserves(s)) return;
  if (s["x-kubernetes-embedded-resource"] !== true) return;
  s.properties = {
    ...(s.properties ?? {}),
    apiVersion: { description: EMBEDDED_API_VERSION_DOC, type: "string" },
    kind: { description: EMBEDDED_KIND_DOC, type: "string" },
    metadata: describedRef(OBJECT_META, METADATA_DOC, flavour),
  };
  const required = s.required ?? [];
  for (const k of ["kind", "apiVersion"]) if (!required.includes(k)) required.push(k);
  s.required = required;
}

/**
 * A CRD's schema as kube's CRD OpenAPI builder publishes it (buildKubeNative): in v2 a schema
 * that preserves unknown fields at its root is only `type: object`, others are made structural
 * v2; both list apiVersion, kind and metadata with kube's descriptions, and tag the kind.
 */
function publishedSchema(schema: Schema, def: ResourceDefinition, flavour: Flavour): Schema {
  const gvk = [{ group: def.group, version: def.version, kind: def.kind }];
  if (flavour === "v2" && preserves(schema))
    return { type: "object", "x-kubernetes-group-version-kind": gvk };
  // cloneJson: structuredClone gives out near 2 000 levels, and a schema may nest 10 000.
  const clone = cloneJson(schema) as Schema;
  delete clone.definitions;
  const out = flavour === "v2" ? toStructuralV2(clone) : clone;
  out.type ??= "object";
  out.properties = {
    ...(out.properties ?? {}),
    metadata: describedRef(OBJECT_META, METADATA_DOC, flavour),
    apiVersion: { description: API_VERSION_DOC, type: "string" },
    kind: { description: KIND_DOC, type: "string" },
  };
  addEmbeddedProperties(out, flavour);
  out["x-kubernetes-group-version-kind"] = gvk;
  return out;
}

/** kube's buildListSchema. */
function listSchema(itemName: string, def: ResourceDefinition, flavour: Flavour): Schema {
  return {
    description: `${def.listKind} is a list of ${def.kind}`,
    required: ["items"],
    properties: {
      apiVersion: { description: API_VERSION_DOC, type: "string" },
      items: {
        description: `List of ${def.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        type: "array",
        items: ref(itemName),
      },
      kind: { description: KIND_DOC, type: "string" },
      metadata: describedRef(LIST_META, LIST_METADATA_DOC, flavour),
    },
    "x-kubernetes-group-version-kind": [{ group: def.group, version: def.version, kind: def.listKind }],
  };
}

/**
 * Sets `x-kubernetes-patch-merge-key` / `-strategy` on the properties the patch metadata
 * names, following `$ref`s into the shared definitions (shared, so annotated once).
 */
function annotatePatchMeta(
  definitions: Record<string, Schema>,
  schema: Schema | undefined,
  meta: PatchMeta,
  seen: Set<string>,
  key: string,
): void {
  if (schema === undefined || seen.has(key)) return;
  seen.add(key);
  const r = new SchemaResolver({ definitions });
  const target = r.resolve(schema);
  if (target === undefined) return;
  for (const [field, fieldMeta] of Object.entries(meta.fields ?? {})) {
    const prop = target.properties?.[field];
    if (prop === undefined) continue;
    if (fieldMeta.mergeKey) prop["x-kubernetes-patch-merge-key"] = fieldMeta.mergeKey;
    if (fieldMeta.strategy) prop["x-kubernetes-patch-strategy"] = fieldMeta.strategy;
    const refName = (s: Schema | undefined) => s?.$ref?.replace("#/definitions/", "");
    if (fieldMeta.fields)
      annotatePatchMeta(definitions, prop, fieldMeta, seen, `${refName(prop) ?? `${key}.${field}`}`);
    const items = fieldMeta.items;
    const inner =
      prop.items && !Array.isArray(prop.items)
        ? prop.items
        : typeof prop.additionalProperties === "object"
          ? prop.additionalProperties
          : undefined;
    if (items && inner)
      annotatePatchMeta(definitions, inner, items, seen, `${refName(inner) ?? `${key}.${field}[]`}`);
  }
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}
