// The schema definitions behind the OpenAPI documents: built-in kinds by kube's names, CRD
// versions as kube publishes them (`com.example.v1.Widget` with its list), and the
// strategic-merge-patch extensions kubectl reads to compute `apply` patches.
import { builtinPatchMeta, type PatchMeta } from "../../patch/index.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { builtinDefinitionName, builtinDefinitions, OBJECT_META, reachable } from "./builtin-schemas.js";
import type { Schema } from "./schema-types.js";
import { SchemaResolver, schemaOf } from "./schema-types.js";

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

/** The definitions the documents for `defs` need, built fresh. */
export function collectDefinitions(defs: readonly ResourceDefinition[]): DefinitionSet {
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
      own[name] = publishedSchema(schema, def);
      own[`${crdDefinitionName(def.group || "core", def.version, def.listKind)}`] = listSchema(name, def);
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
  const annotated = new Set<string>();
  for (const [def, name] of names) {
    const meta =
      def.patchMeta ?? (def.crdName ? undefined : builtinPatchMeta(def.group, def.version, def.kind));
    if (meta) annotatePatchMeta(definitions, definitions[name], meta, annotated, name);
  }
  return { definitions: sortKeys(definitions), nameOf: (def) => names.get(def) };
}

/** A CRD's schema as kube publishes it: metadata is ObjectMeta, the kind is tagged. */
function publishedSchema(schema: Schema, def: ResourceDefinition): Schema {
  const out = structuredClone(schema);
  delete out.definitions;
  out.type ??= "object";
  out.properties = { ...(out.properties ?? {}), metadata: ref(OBJECT_META) };
  out["x-kubernetes-group-version-kind"] = [{ group: def.group, version: def.version, kind: def.kind }];
  return out;
}

function listSchema(itemName: string, def: ResourceDefinition): Schema {
  return {
    type: "object",
    required: ["items"],
    properties: {
      apiVersion: { type: "string" },
      items: { type: "array", items: ref(itemName) },
      kind: { type: "string" },
      metadata: ref(LIST_META),
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
