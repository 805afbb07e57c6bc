// The types of cel-go's checker, as far as the checker of CRD rules (checker.ts) follows them,
// and the type kube declares for each node of a structural schema (SchemaDeclType in
// k8s.io/apiserver/pkg/cel/common/schemas.go): an object with properties is a message type of
// its declared fields only (x-kubernetes-preserve-unknown-fields adds none), additionalProperties
// a map of string keys, items a list, int-or-string dyn, a string of format date or date-time a
// timestamp, duration a duration, byte bytes; nullable changes nothing. A node kube does not
// declare (no type, or a list without items) is left out of its parent, as kube leaves it.
//
// One type is ours: `unknown`, where this checker cannot follow cel-go (a library it does not
// model, a literal whose element types differ). It matches everything and is never reported, so
// the checker can only miss an error of cel-go's, never report one cel-go would not.
import type { Schema } from "../schema/schema-types.js";
import { escapeProperty } from "./escaping.js";

export type CelType =
  | { kind: "unknown" }
  | { kind: "dyn" }
  | { kind: "free" }
  | { kind: "prim"; name: string }
  | { kind: "list"; elem: CelType }
  | { kind: "map"; key: CelType; value: CelType }
  | { kind: "object"; name: string; fields: () => ReadonlyMap<string, CelType> }
  | { kind: "opaque"; name: string; params: CelType[] }
  | { kind: "param"; name: string };

export const UNKNOWN: CelType = { kind: "unknown" };
export const DYN: CelType = { kind: "dyn" };
/** cel-go's free type variable: the element type of `[]` or `{}` until something binds it; printed dyn. */
export const FREE: CelType = { kind: "free" };
const prim = (name: string): CelType => ({ kind: "prim", name });
export const BOOL = prim("bool");
export const INT = prim("int");
export const UINT = prim("uint");
export const DOUBLE = prim("double");
export const STRING = prim("string");
export const BYTES = prim("bytes");
export const NULL = prim("null_type");
export const TIMESTAMP = prim("google.protobuf.Timestamp");
export const DURATION = prim("google.protobuf.Duration");
export const listOf = (elem: CelType): CelType => ({ kind: "list", elem });
export const mapOf = (key: CelType, value: CelType): CelType => ({ kind: "map", key, value });
export const optionalOf = (t: CelType): CelType => ({ kind: "opaque", name: "optional_type", params: [t] });
export const typeOf = (t: CelType): CelType => ({ kind: "opaque", name: "type", params: [t] });

/** A type as cel-go's FormatCELType prints it in the checker's errors. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case "unknown":
    case "dyn":
    case "free":
      return "dyn";
    case "prim":
      return t === TIMESTAMP ? "timestamp" : t === DURATION ? "duration" : t === NULL ? "null" : t.name;
    case "object":
      return t.name;
    case "param":
      return t.name;
    case "list":
      return `list(${formatType(t.elem)})`;
    case "map":
      return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case "opaque":
      return t.params.length === 0 ? t.name : `${t.name}(${t.params.map(formatType).join(", ")})`;
  }
}

/** A type as cel-go's Type.String() prints it (kube's "must evaluate to bool but got dyn"). */
export function typeString(t: CelType): string {
  switch (t.kind) {
    case "prim":
    case "object":
      return t.name;
    case "list":
      return `list(${typeString(t.elem)})`;
    case "map":
      return `map(${typeString(t.key)}, ${typeString(t.value)})`;
    case "opaque":
      return t.params.length === 0 ? t.name : `${t.name}(${t.params.map(typeString).join(", ")})`;
    case "param":
      return `<${t.name}>`;
    default:
      return "dyn";
  }
}

/** Whether `t` holds a free type variable (`[]`'s elements) anywhere. */
export function hasFree(t: CelType): boolean {
  switch (t.kind) {
    case "free":
      return true;
    case "list":
      return hasFree(t.elem);
    case "map":
      return hasFree(t.key) || hasFree(t.value);
    case "opaque":
      return t.params.some(hasFree);
    default:
      return false;
  }
}

/** Whether null may stand where `t` is declared (cel-go's legacy nullability): objects, opaque types, timestamps, durations. */
export function isNullable(t: CelType): boolean {
  return t.kind === "object" || t.kind === "opaque" || t === TIMESTAMP || t === DURATION || t === NULL;
}

/** Whether `t` holds our `unknown` anywhere: nothing about it may be reported. */
export function isUncertain(t: CelType): boolean {
  switch (t.kind) {
    case "unknown":
      return true;
    case "list":
      return isUncertain(t.elem);
    case "map":
      return isUncertain(t.key) || isUncertain(t.value);
    case "opaque":
      return t.params.some(isUncertain);
    default:
      return false;
  }
}

/** The same type, as cel-go's IsExactType compares them (object types by name). */
export function sameType(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "prim":
    case "object":
    case "param":
      return a.name === (b as { name: string }).name;
    case "list":
      return sameType(a.elem, (b as { elem: CelType }).elem);
    case "map": {
      const m = b as { key: CelType; value: CelType };
      return sameType(a.key, m.key) && sameType(a.value, m.value);
    }
    case "opaque": {
      const o = b as { name: string; params: CelType[] };
      return (
        a.name === o.name &&
        a.params.length === o.params.length &&
        a.params.every((p, i) => sameType(p, o.params[i]!))
      );
    }
    default:
      return true;
  }
}

/** kube's metadata at a resource's root: only its name and generateName are declared. */
const ROOT_METADATA: Schema = {
  type: "object",
  properties: { name: { type: "string" }, generateName: { type: "string" } },
};

/**
 * The type kube declares for schema node `s` (SchemaDeclType), named `name` when it is an object
 * (kube names the rule's node `selfType<n>` and each field below it by its path); undefined when
 * kube declares none. `root`: the root of a resource or an embedded resource, where apiVersion,
 * kind and metadata's name and generateName are declared whatever the schema says.
 */
export function schemaType(s: Schema, name: string, root: boolean): CelType | undefined {
  // Lists and maps are built from their innermost element out, without recursion: a schema may
  // nest 10 000 levels of them. (An object's fields are declared when first selected.)
  const wrappers: ("list" | "map")[] = [];
  for (;;) {
    if (s["x-kubernetes-int-or-string"] === true) break;
    const next =
      s.type === "array"
        ? s.items
        : s.type === "object" && typeof s.additionalProperties === "object"
          ? s.additionalProperties
          : undefined;
    if (s.type === "array" && (!next || Array.isArray(next))) return undefined;
    if (next === undefined || next === null || Array.isArray(next)) break;
    wrappers.push(s.type === "array" ? "list" : "map");
    name = `${name}.${s.type === "array" ? "@idx" : "@elem"}`;
    root = next["x-kubernetes-embedded-resource"] === true;
    s = next;
  }
  let t = elementType(s, name, root);
  // kube declares no list or map when its elements have no type.
  if (t === undefined) return undefined;
  for (let i = wrappers.length - 1; i >= 0; i--) t = wrappers[i] === "list" ? listOf(t) : mapOf(STRING, t);
  return t;
}

/** schemaType of a node that is no list and no map. */
function elementType(s: Schema, name: string, root: boolean): CelType | undefined {
  if (s["x-kubernetes-int-or-string"] === true) return DYN;
  switch (s.type) {
    case "object": {
      let fields: Map<string, CelType> | undefined;
      return {
        kind: "object",
        name,
        // Built when first selected: a schema may be large and a rule read little of it.
        fields: () => {
          if (fields) return fields;
          fields = new Map();
          const properties: Record<string, Schema> = { ...(s.properties ?? {}) };
          if (root) {
            properties.apiVersion = { type: "string" };
            properties.kind = { type: "string" };
            properties.metadata = ROOT_METADATA;
          }
          for (const [property, p] of Object.entries(properties)) {
            const field = escapeProperty(property);
            if (field === undefined) continue;
            const t = schemaType(p, `${name}.${field}`, p["x-kubernetes-embedded-resource"] === true);
            if (t !== undefined) fields.set(field, t);
          }
          return fields;
        },
      };
    }
    case "string":
      switch (s.format) {
        case "byte":
          return BYTES;
        case "duration":
          return DURATION;
        case "date":
        case "date-time":
          return TIMESTAMP;
        default:
          return STRING;
      }
    case "boolean":
      return BOOL;
    case "number":
      return DOUBLE;
    case "integer":
      return INT;
    default:
      return undefined;
  }
}

/** Fields of a type that takes any field, each dyn (kube's dynamic `Object` types). */
class AnyField extends Map<string, CelType> {
  override get(): CelType {
    return DYN;
  }
}
const ANY_FIELD: ReadonlyMap<string, CelType> = new AnyField();
const JSON_PATCH_FIELDS: ReadonlyMap<string, CelType> = new Map([
  ["op", STRING],
  ["path", STRING],
  ["from", STRING],
  ["value", DYN],
]);

/** kube's `JSONPatch`, the element of a JSONPatch mutation's list. */
export const JSON_PATCH: CelType = { kind: "object", name: "JSONPatch", fields: () => JSON_PATCH_FIELDS };

/**
 * The type a mutation's initialiser names (kube's DynamicTypeResolver): `JSONPatch`, or `Object`
 * and `Object.<path>`, which take any field; undefined for any other name.
 */
export function mutationType(name: string): CelType | undefined {
  if (name === "JSONPatch") return JSON_PATCH;
  if (name === "Object" || name.startsWith("Object."))
    return { kind: "object", name, fields: () => ANY_FIELD };
  return undefined;
}
