// TypeBox schema (JSON Schema) → the structural OpenAPI v3 schema kube-apiserver takes for a CRD.
// The two dialects differ: JSON Schema spells a map as patternProperties, a literal as const, a
// nullable field as a union with null, an exclusive bound as a number; kube wants
// additionalProperties, enum, nullable and OpenAPI 3.0's boolean exclusive bounds, a type on every
// node, and refuses unions, intersections and references. What has no structural spelling is an
// error naming its path, never silently dropped.
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";

/** A definition that cannot become a CRD, with the path of the schema node at fault. */
export class CRDDefinitionError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`defineCRD: ${path}: ${message}`);
    this.name = "CRDDefinitionError";
  }
}

type Node = Record<string, unknown>;

// Keywords copied as they are: OpenAPI 3.0 value validations and kube's extensions.
const COPIED = new Set([
  "description",
  "title",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "default",
  "example",
  "nullable",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-int-or-string",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-list-type",
  "x-kubernetes-map-type",
  "x-kubernetes-preserve-unknown-fields",
  "x-kubernetes-validations",
]);
// Handled below, each in its own way.
const HANDLED = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "uniqueItems",
]);

/** The structural schema of `schema`; `path` names it in errors (`spec.replicas`). */
export function toStructural(schema: unknown, path: string): JSONSchemaProps {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new CRDDefinitionError(path, `a schema is an object, got ${JSON.stringify(schema)}`);
  }
  const node = schema as Node;
  if (node.anyOf !== undefined && node["x-kubernetes-int-or-string"] !== true) return fromUnion(node, path);
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (COPIED.has(key)) out[key] = structuredClone(value);
    else if (!HANDLED.has(key)) throw new CRDDefinitionError(path, unsupported(key));
  }
  if (node.type !== undefined) {
    if (typeof node.type !== "string") {
      throw new CRDDefinitionError(
        path,
        "a type list is not structural; use one type (nullable: true for null)",
      );
    }
    if (node.type === "null")
      throw new CRDDefinitionError(path, "a field of type null holds nothing; use nullable()");
    out.type = node.type;
  }
  if (node["x-kubernetes-int-or-string"] === true) {
    out.anyOf = [{ type: "integer" }, { type: "string" }];
  }
  if (node.const !== undefined) {
    out.type ??= scalarType(node.const, path);
    out.enum = [node.const];
  }
  if (node.enum !== undefined) {
    const values = node.enum as unknown[];
    out.type ??= commonType(values, path);
    out.enum = structuredClone(values);
  }
  for (const bound of ["exclusiveMinimum", "exclusiveMaximum"] as const) {
    const value = node[bound];
    if (value === undefined) continue;
    if (typeof value === "number") {
      // JSON Schema's number form; OpenAPI 3.0 pairs a boolean with minimum/maximum.
      out[bound === "exclusiveMinimum" ? "minimum" : "maximum"] = value;
      out[bound] = true;
    } else out[bound] = value;
  }
  if (node.uniqueItems === true) {
    throw new CRDDefinitionError(
      path,
      "uniqueItems is refused by kube-apiserver (quadratic); use listSet() or listMap()",
    );
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items))
      throw new CRDDefinitionError(path, "tuples are not structural; use one item schema");
    out.items = toStructural(node.items, `${path}[*]`);
  }
  if (node.properties !== undefined) {
    const props: Record<string, JSONSchemaProps> = {};
    for (const [name, sub] of Object.entries(node.properties as Node)) {
      props[name] = toStructural(sub, path ? `${path}.${name}` : name);
    }
    out.properties = props;
    const required = node.required as string[] | undefined;
    if (required && required.length > 0) out.required = [...required];
  }
  mapValues(node, out, path);
  if (out.type === undefined) {
    if (Object.keys(node).length === 0 || Object.keys(out).every((k) => k === "description")) {
      // Type.Unknown()/Type.Any(): any JSON, kept as sent.
      out["x-kubernetes-preserve-unknown-fields"] = true;
    } else if (out.properties || out.additionalProperties) out.type = "object";
    else if (out.items) out.type = "array";
    else if (
      out["x-kubernetes-int-or-string"] !== true &&
      out["x-kubernetes-preserve-unknown-fields"] !== true
    ) {
      throw new CRDDefinitionError(path, "every schema needs a type (or intOrString(), anyJSON())");
    }
  }
  return out as JSONSchemaProps;
}

// Maps: JSON Schema's patternProperties "^.*$" (Type.Record) or additionalProperties.
function mapValues(node: Node, out: Node, path: string): void {
  const pattern = node.patternProperties as Node | undefined;
  if (pattern !== undefined) {
    const keys = Object.keys(pattern);
    if (keys.length !== 1 || !["^.*$", "^(.*)$", "^[\\s\\S]*$"].includes(keys[0] ?? "")) {
      throw new CRDDefinitionError(
        path,
        `patternProperties ${JSON.stringify(keys)} are not structural; a map takes any string key (map())`,
      );
    }
    if (node.properties !== undefined) {
      throw new CRDDefinitionError(path, "an object has either properties or map values, not both");
    }
    out.additionalProperties = toStructural(pattern[keys[0] as string], `${path}[*]`);
    out.type ??= "object";
  }
  const additional = node.additionalProperties;
  if (additional === undefined || additional === false) return; // kube prunes unknown fields anyway
  if (additional === true) {
    out["x-kubernetes-preserve-unknown-fields"] = true;
    return;
  }
  if (node.properties !== undefined || pattern !== undefined) {
    throw new CRDDefinitionError(path, "an object has either properties or map values, not both");
  }
  out.additionalProperties = toStructural(additional, `${path}[*]`);
  out.type ??= "object";
}

// Unions: literals (an enum), one schema or null (nullable), integer or string (int-or-string).
function fromUnion(node: Node, path: string): JSONSchemaProps {
  const branches = node.anyOf as Node[];
  const rest: Node = { ...node };
  delete rest.anyOf;
  const literals = branches.filter((b) => b.const !== undefined);
  if (literals.length === branches.length) {
    return toStructural({ ...rest, enum: literals.map((b) => b.const) }, path);
  }
  const nonNull = branches.filter((b) => b.type !== "null");
  if (nonNull.length === 1 && branches.length === 2) {
    return toStructural({ ...(nonNull[0] as Node), ...rest, nullable: true }, path);
  }
  const types = branches.map((b) => b.type).sort();
  if (types.length === 2 && types[0] === "integer" && types[1] === "string") {
    return toStructural({ ...rest, "x-kubernetes-int-or-string": true }, path);
  }
  throw new CRDDefinitionError(
    path,
    "a union is not structural: kube takes literal unions (an enum), one schema or null (nullable()), and integer or string (intOrString())",
  );
}

function unsupported(key: string): string {
  switch (key) {
    case "allOf":
      return "an intersection is not structural; spread the objects' properties into one Type.Object";
    case "oneOf":
    case "not":
      return `${key} is not structural in this builder; use a CEL rule (withRules()) to constrain values`;
    case "$ref":
    case "$id":
    case "$defs":
    case "definitions":
      return `${key}: references are not allowed in a CRD schema; inline the schema`;
    default:
      return `${JSON.stringify(key)} has no place in a CRD schema`;
  }
}

function scalarType(value: unknown, path: string): string {
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  throw new CRDDefinitionError(
    path,
    `an enum value must be a string, number or boolean, got ${JSON.stringify(value)}`,
  );
}

function commonType(values: unknown[], path: string): string {
  const types = new Set(values.map((v) => scalarType(v, path)));
  if (types.size === 2 && types.has("integer") && types.has("number")) return "number";
  if (types.size !== 1) throw new CRDDefinitionError(path, "an enum's values must share one type");
  return [...types][0] as string;
}
