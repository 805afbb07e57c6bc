// What a built-in object loses on its way through kube's Go structs: a map field tagged
// `omitempty` (every optional map of the built-in kinds: labels, data, nodeSelector, limits...)
// is dropped when empty, and so is an `omitempty` list (a webhook's `rules: []`, ObjectMeta's
// finalizers). `data: {}` written is not read back. A list without `omitempty` (Role.rules) is
// kept. A scalar tagged `omitempty` at its zero value is dropped too (a container's `stdin: false`,
// `workingDir: ""`, a Deployment's `paused: false`): kube decodes the body into its Go struct
// before admission, defaulting and managedFields, so none of them sees it.
import { dropOmittedZeros, goDefinitionOf } from "../object/go-encoding.js";
import { fullDefinitionName } from "./builtin-schemas.js";
import { isObject, type Schema, SchemaResolver, schemaOf } from "./schema-types.js";

const METADATA_LISTS = ["finalizers", "ownerReferences", "managedFields"];

/**
 * Removes, in place, the empty optional maps of a built-in object, ObjectMeta's empty lists and
 * the omitempty scalars at their zero value (go-fields.generated.ts marks them `o`). Runs after
 * the type check: a zero of the wrong type (`stdin: 0`) is Go's decoding error, not dropped.
 */
export function dropEmptyOptionalMaps(
  def: { schema?: unknown; group?: string; version?: string; kind?: string },
  obj: Record<string, unknown>,
): void {
  const root = schemaOf(def as Parameters<typeof schemaOf>[0]);
  if (root === undefined) return;
  const short = goDefinitionOf(def.group ?? "", def.version ?? "", def.kind ?? "");
  if (short) {
    // Go's fields say what is dropped (ObjectMeta's lists too); the schema, for the few structs
    // they do not describe (a LabelSelector's empty matchLabels).
    let r: SchemaResolver | undefined;
    dropOmittedZeros(short, obj, (value, other) => {
      r ??= new SchemaResolver(root);
      walk(value, { $ref: `#/definitions/${fullDefinitionName(other)}` }, r, 0);
    });
    return;
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
    // The structs walked here (a LabelSelector and its requirements) have only pointers, lists and
    // omitempty fields besides the required ones: a null decodes as unset, as if not sent.
    if (v === null && !required.includes(key)) {
      delete value[key];
      continue;
    }
    if (isObject(v) && Object.keys(v).length === 0 && isMap(sub) && !required.includes(key)) {
      delete value[key];
      continue;
    }
    walk(v, sub, r, depth + 1);
  }
}
