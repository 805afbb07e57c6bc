// What apimachinery's DefaultUnstructuredConverter refuses when it turns a map into a built-in
// Go type: how kube decodes the result of a strategic merge patch (FromUnstructured), where a
// JSON or merge patch's result goes through Go's JSON decoder instead (go-types.ts). Its words
// differ: `cannot restore map from int64`, `unrecognized type: string`, `cannot convert int64
// to string`. Fields are visited in Go's declaration order, as the converter walks a struct.
import type { ResourceDefinition } from "../registry/resource.js";
import { goFieldTable } from "./go-fields.generated.js";
import { BYTE_FIELDS, base64Error, quantityError } from "./go-types.js";
import type { Schema } from "./schema-types.js";
import { isObject, SchemaResolver, schemaOf } from "./schema-types.js";

const QUANTITY_FORMAT =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** reflect.Kind of a value decoded from JSON into interface{} (integers as int64, as kube decodes). */
function goKind(v: unknown): string {
  if (Array.isArray(v)) return "slice";
  if (typeof v === "object") return "map";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (typeof v === "boolean") return "bool";
  return "string";
}

/** encoding/json's name for a JSON value's type, in its UnmarshalTypeError. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  if (typeof v === "boolean") return "bool";
  return typeof v === "number" ? `number ${JSON.stringify(v)}` : "string";
}

/** The short definition name (`core.v1.PodSpec`) of a `$ref`. */
function shortName(ref: string | undefined): string | undefined {
  if (ref === undefined) return undefined;
  return ref.split(".").slice(-3).join(".");
}

/** A struct's JSON field names in Go's declaration order (its schema's otherwise). */
function fieldOrder(schema: Schema, short: string | undefined): string[] {
  const declared = short !== undefined ? goFieldTable()[short] : undefined;
  const props = Object.keys(schema.properties ?? {});
  if (declared === undefined) return props;
  const order = declared.split(" ").map((f) => f.split(":")[0]);
  // TypeMeta is inlined first; fields the table lacks come last.
  const head = ["kind", "apiVersion"].filter((f) => props.includes(f) && !order.includes(f));
  return [...head, ...order, ...props.filter((p) => !order.includes(p) && !head.includes(p))];
}

/** A scalar into a Go field of `type`, as fromUnstructured's simple-type branch decides. */
function scalarError(value: unknown, type: string | undefined): string | undefined {
  const kind = goKind(value);
  switch (type) {
    case "string":
      if (kind === "string") return undefined;
      // int64 converts to string in Go's reflect (as a rune): the converter names it.
      return kind === "int64" ? "cannot convert int64 to string" : "unrecognized type: string";
    case "integer":
      if (kind === "int64") return undefined;
      if (kind === "float64")
        return (value as number) === Math.trunc(value as number)
          ? undefined
          : "cannot convert float64 to int32";
      return "unrecognized type: int32";
    case "number":
      return kind === "int64" || kind === "float64" ? undefined : "unrecognized type: float64";
    case "boolean":
      return kind === "bool" ? undefined : "unrecognized type: bool";
    default:
      return undefined;
  }
}

/** A value into a type with its own UnmarshalJSON (fed the value's JSON), or undefined for the others. */
function customError(value: unknown, ref: string): string | undefined | null {
  if (ref.endsWith(".Quantity")) {
    if (typeof value === "number") return undefined;
    if (typeof value === "string") return quantityError(value.trim()) ?? undefined;
    return QUANTITY_FORMAT;
  }
  if (ref.endsWith(".IntOrString")) {
    if (typeof value === "string") return undefined;
    if (typeof value === "number" && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) {
      return undefined;
    }
    return `json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`;
  }
  if (ref.endsWith("meta.v1.Time") || ref.endsWith("meta.v1.MicroTime")) {
    if (typeof value === "string") return undefined;
    return `json: cannot unmarshal ${jsonKind(value).split(" ")[0]} into Go value of type string`;
  }
  // RawExtension and the like take any JSON.
  if (ref.endsWith(".RawExtension") || ref.endsWith(".JSON") || ref.endsWith(".FieldsV1")) return undefined;
  return null;
}

/**
 * The converter's refusal of the first value of `obj` that does not fit its built-in kind, or
 * undefined. Walked with an explicit stack: objects may nest as deep as the body limit allows.
 * As the converter (reflect's SetInt), it truncates in place an int32 field's integer past the
 * width to its low 32 bits: a strategic patch's `replicas: 2147483648` is -2147483648, which
 * validation then refuses, where a merge patch's is refused by Go's JSON decoder.
 */
export function unstructuredConversionError(
  def: Pick<ResourceDefinition, "schema" | "kind" | "group" | "version">,
  obj: unknown,
  rootShort: string | undefined,
): string | undefined {
  const root = schemaOf(def);
  if (root === undefined) return undefined;
  const r = new SchemaResolver(root);
  type Entry = { value: unknown; raw: Schema; short: string | undefined; bytes?: boolean };
  /** Where the value sits, for the truncation: its container and key. */
  type At = { parent?: Record<string, unknown> | unknown[]; key?: string | number };
  const stack: (Entry & At)[] = [{ value: obj, raw: root, short: rootShort }];
  while (stack.length > 0) {
    const { value, raw, short, bytes, parent, key } = stack.pop()!;
    if (value === null || value === undefined) continue;
    if (raw.$ref !== undefined) {
      const custom = customError(value, raw.$ref);
      if (custom !== null) {
        if (custom !== undefined) return custom;
        continue;
      }
    }
    const s = r.resolve(raw);
    if (s === undefined) continue;
    if (s["x-kubernetes-int-or-string"] === true) {
      const e = customError(value, ".IntOrString");
      if (e) return e;
      continue;
    }
    if (s.properties !== undefined) {
      if (!isObject(value)) return `cannot restore struct from: ${goKind(value)}`;
      const own = shortName(raw.$ref) ?? short;
      const order = fieldOrder(s, own);
      const struct = own?.split(".").pop() ?? def.kind;
      // Pushed last first: the first field is checked first.
      for (let i = order.length - 1; i >= 0; i--) {
        const k = order[i];
        if (!Object.hasOwn(value, k)) continue;
        const field = s.properties[k];
        if (field === undefined) continue;
        stack.push({
          value: value[k],
          raw: field,
          short: undefined,
          bytes: BYTE_FIELDS.has(`${struct}.${k}`),
          parent: value,
          key: k,
        });
      }
      continue;
    }
    if (s.type === "object") {
      if (!isObject(value)) return `cannot restore map from ${goKind(value)}`;
      const entry = s.additionalProperties;
      if (typeof entry !== "object") continue;
      // A map of []byte (Secret.data) holds base64 strings.
      for (const [k, v] of Object.entries(value).reverse())
        stack.push({ value: v, raw: entry, short: undefined, bytes, parent: value, key: k });
      continue;
    }
    if (bytes) {
      // []byte: a base64 string, or a list of numbers.
      if (typeof value === "string") {
        const at = base64Error(value);
        if (at !== undefined) return `illegal base64 data at input byte ${at}`;
        continue;
      }
      if (!Array.isArray(value)) return `cannot restore slice from ${goKind(value)}`;
      continue;
    }
    if (s.type === "array") {
      if (!Array.isArray(value)) return `cannot restore slice from ${goKind(value)}`;
      const items = s.items;
      if (items === undefined || Array.isArray(items)) continue;
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], raw: items, short: undefined, parent: value, key: i });
      continue;
    }
    const e = scalarError(value, s.type);
    if (e) return e;
    if (s.format === "int32" && typeof value === "number" && (value | 0) !== value && parent !== undefined)
      (parent as Record<string | number, unknown>)[key!] = value | 0;
  }
  return undefined;
}
