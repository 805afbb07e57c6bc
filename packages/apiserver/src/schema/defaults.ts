// Schema defaulting as apiextensions-apiserver does it. Kube applies defaults when it decodes a
// request body (create, update, patch: after pruning, before validation and admission) and when
// it reads an object back from storage, so a default added to a CRD later shows up on reads of
// old objects. Defaults fill absent fields and `null`s of non-nullable fields; other `null`s
// of non-nullable fields without a default are then dropped.
import type { ResourceDefinition } from "../registry/resource.js";
import type { Schema } from "./schema-types.js";
import { isObject, SchemaResolver, schemaOf } from "./schema-types.js";
import { cloneJson } from "../object/deep-json.js";
import { trampoline, type Walk } from "../object/trampoline.js";

/** Applies schema defaults to `obj` in place; returns it. */
export function applyDefaults<T>(def: Pick<ResourceDefinition, "schema">, obj: T): T {
  const root = schemaOf(def);
  if (root === undefined) return obj;
  const r = new SchemaResolver(root);
  trampoline(defaultNode(obj, root, r));
  return obj;
}

const isNonNullableNull = (v: unknown, s: Schema | undefined) => v === null && s !== undefined && !s.nullable;

// Recursion through a trampoline: kube takes schemas and objects 10 000 levels deep. Scalars have
// nothing to default and are not walked.
function* defaultNode(value: unknown, schema0: Schema, r: SchemaResolver): Walk<void> {
  const schema = r.resolve(schema0);
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = r.items(schema);
    if (items === undefined) return;
    for (let i = 0; i < value.length; i++) {
      if (isNonNullableNull(value[i], items) && items.default !== undefined)
        value[i] = cloneJson(items.default);
      const item = value[i];
      if (typeof item === "object" && item !== null) yield defaultNode(item, items, r);
    }
    return;
  }
  if (!isObject(value)) return;
  for (const [key, prop0] of Object.entries(schema.properties ?? {})) {
    const prop = r.resolve(prop0);
    if (prop?.default === undefined) continue;
    if (!(key in value) || isNonNullableNull(value[key], prop)) value[key] = cloneJson(prop.default);
  }
  for (const key of Object.keys(value)) {
    const sub = r.property(schema, key);
    if (sub === undefined) continue;
    let v = value[key];
    if (isNonNullableNull(v, sub) && sub.default !== undefined) {
      v = cloneJson(sub.default);
      value[key] = v;
    }
    if (isNonNullableNull(v, sub)) {
      delete value[key];
      continue;
    }
    if (typeof v === "object" && v !== null) yield defaultNode(v, sub, r);
  }
}
