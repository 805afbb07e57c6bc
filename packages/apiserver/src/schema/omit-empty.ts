// What a built-in object loses on its way through kube's Go structs: a map field tagged
// `omitempty` (every optional map of the built-in kinds: labels, data, nodeSelector, limits...)
// is dropped when empty, and so are ObjectMeta's empty lists. `data: {}` written is not read back.
// (Optional lists elsewhere are not all `omitempty` in Go, e.g. Role.rules, so they are kept.)
import { dropOmittedZeros, goDefinitionOf } from "../object/go-encoding.js";
import { isObject, type Schema, SchemaResolver, schemaOf } from "./schema-types.js";

const METADATA_LISTS = ["finalizers", "ownerReferences", "managedFields"];

/** The groups whose Go fields mark omitempty scalars (go-fields.generated.ts: CRDs, APIServices). */
const OMITTED_ZERO_GROUPS = new Set(["apiextensions.k8s.io", "apiregistration.k8s.io"]);

/**
 * Removes, in place, the empty optional maps of a built-in object and ObjectMeta's empty lists;
 * of a CRD or an APIService, also the omitempty scalars at their zero value (`nullable: false`).
 */
export function dropEmptyOptionalMaps(
  def: { schema?: unknown; group?: string; version?: string; kind?: string },
  obj: Record<string, unknown>,
): void {
  const root = schemaOf(def as Parameters<typeof schemaOf>[0]);
  if (root === undefined) return;
  if (def.group !== undefined && OMITTED_ZERO_GROUPS.has(def.group)) {
    const short = goDefinitionOf(def.group, def.version ?? "", def.kind ?? "");
    if (short) dropOmittedZeros(short, obj);
  }
  const metadata = obj.metadata;
  if (isObject(metadata)) {
    for (const key of METADATA_LISTS) {
      const v = metadata[key];
      if (Array.isArray(v) && v.length === 0) delete metadata[key];
    }
  }
  walk(obj, root, new SchemaResolver(root), 0);
}

const MAX_DEPTH = 64;

function isMap(schema: Schema): boolean {
  return schema.properties === undefined && typeof schema.additionalProperties === "object";
}

function walk(value: unknown, schema0: Schema, r: SchemaResolver, depth: number): void {
  if (depth > MAX_DEPTH) return;
  const schema = r.resolve(schema0);
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = r.items(schema);
    if (items !== undefined) for (const item of value) walk(item, items, r, depth + 1);
    return;
  }
  if (!isObject(value) || schema.properties === undefined) return;
  const required = schema.required ?? [];
  for (const key of Object.keys(value)) {
    const sub = r.property(schema, key);
    if (sub === undefined) continue;
    const v = value[key];
    if (isObject(v) && Object.keys(v).length === 0 && isMap(sub) && !required.includes(key)) {
      delete value[key];
      continue;
    }
    walk(v, sub, r, depth + 1);
  }
}
