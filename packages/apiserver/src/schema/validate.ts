// OpenAPI v3 validation of custom resources as apiextensions-apiserver does it (kube-openapi's
// validator, its errors converted to field errors): same checks, same order, same words.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { ResourceDefinition } from "../registry/resource.js";
import type { FieldError } from "./field-error.js";
import { toStatusCause } from "./field-error.js";
import { checkFormat } from "./formats.js";
import { PatternCache } from "./patterns.js";
import type { Schema } from "./schema-types.js";
import { isObject, SchemaResolver, schemaOf } from "./schema-types.js";

/** Validates a whole object against its resource's schema; [] when it has none or all is well. */
export function validateObject(
  def: Pick<ResourceDefinition, "schema">,
  obj: unknown,
  patterns: PatternCache = new PatternCache(),
): StatusCause[] {
  const root = schemaOf(def);
  if (root === undefined) return [];
  return validateValue(root, obj, "", root, patterns).map(toStatusCause);
}

/**
 * Validates `value` against `schema` (whose `definitions` resolve `$ref`s); paths start at
 * `path` (`spec.size`). Used for objects and for a CRD's defaults.
 */
export function validateValue(
  schema: Schema,
  value: unknown,
  path = "",
  root: Schema = schema,
  patterns: PatternCache = new PatternCache(),
): FieldError[] {
  const v = new Validator(new SchemaResolver(root), patterns);
  v.node(value, schema, path);
  return v.errors;
}

/** The JSON type of a decoded value, as kube-openapi names it. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  switch (typeof value) {
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "number":
      return Number.isInteger(value) ? "integer" : "number";
    default:
      return "object";
  }
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);
/** kube-openapi's "<path> in body" prefix of messages. */
const inBody = (path: string) => (path ? `${path} in body` : "in body");

/** An alternative of a combinator tried alone: its errors and how many of its checks passed. */
interface Trial {
  errors: FieldError[];
  matches: number;
}

class Validator {
  readonly errors: FieldError[] = [];
  /** Nodes whose type matched: kube-openapi's MatchCount, which picks the closest alternative. */
  matches = 0;
  readonly #r: SchemaResolver;
  readonly #patterns: PatternCache;

  constructor(resolver: SchemaResolver, patterns: PatternCache) {
    this.#r = resolver;
    this.#patterns = patterns;
  }

  node(value: unknown, schema0: Schema | undefined, path: string): void {
    const schema = this.#r.resolve(schema0);
    if (schema === undefined) return;
    const types = schema["x-kubernetes-int-or-string"]
      ? ["integer", "string"]
      : schema.type
        ? [schema.type]
        : [];
    if (value === null || value === undefined) {
      if (!schema.nullable && types.length > 0) this.#typeError(path, types, "null");
      return;
    }
    const actual = jsonType(value);
    if (types.length > 0 && !types.includes(actual) && !(actual === "integer" && types.includes("number"))) {
      this.#typeError(path, types, actual);
      return;
    }
    this.matches++;
    this.#combinators(value, schema, path);
    if (typeof value === "string") this.#string(value, schema, path);
    if (typeof value === "number") this.#number(value, schema, path);
    if (Array.isArray(value)) this.#array(value, schema, path);
    if (schema.enum !== undefined) this.#enum(value, schema.enum, path);
    if (isObject(value)) this.#object(value, schema, path);
  }

  #typeError(path: string, types: string[], actual: string): void {
    this.errors.push({
      type: "FieldValueTypeInvalid",
      field: path,
      value: actual,
      detail: `${inBody(path)} must be of type ${types.join(",")}: ${JSON.stringify(actual)}`,
    });
  }

  #invalid(path: string, value: unknown, detail: string): void {
    this.errors.push({ type: "FieldValueInvalid", field: path, value, detail });
  }

  // kube-openapi's schemaPropsValidator: anyOf, oneOf, allOf, then not. A failed combinator is a
  // composite error with no field (kube prints `<nil>: Invalid value: ""`), followed by the errors
  // of the alternative that came closest (the one that passed the most checks, first on a tie).
  #combinators(value: unknown, schema: Schema, path: string): void {
    const quoted = JSON.stringify(path);
    if (schema.anyOf !== undefined && schema.anyOf.length > 0) {
      let best: Trial | undefined;
      for (const s of schema.anyOf) {
        const t = this.#trial(value, s, path);
        if (t.errors.length === 0) {
          this.matches += t.matches;
          best = undefined;
          break;
        }
        if (best === undefined || t.matches > best.matches) best = t;
      }
      if (best !== undefined) {
        this.#composite(`${quoted} must validate at least one schema (anyOf)`);
        this.#merge(best);
      }
    }
    if (schema.oneOf !== undefined && schema.oneOf.length > 0) {
      let best: Trial | undefined;
      let passed = 0;
      for (const s of schema.oneOf) {
        const t = this.#trial(value, s, path);
        if (t.errors.length === 0) {
          if (passed++ === 0) this.matches += t.matches;
        } else if (passed === 0 && (best === undefined || t.matches > best.matches)) best = t;
      }
      if (passed !== 1) {
        const found = passed === 0 ? "Found none valid" : `Found ${passed} valid alternatives`;
        this.#composite(`${quoted} must validate one and only one schema (oneOf). ${found}`);
        if (best !== undefined) this.#merge(best);
      }
    }
    if (schema.allOf !== undefined && schema.allOf.length > 0) {
      let passed = 0;
      for (const s of schema.allOf) {
        const t = this.#trial(value, s, path);
        if (t.errors.length === 0) passed++;
        this.#merge(t);
      }
      if (passed === 0) this.#composite(`${quoted} must validate all the schemas (allOf). None validated`);
      else if (passed < schema.allOf.length)
        this.#composite(`${quoted} must validate all the schemas (allOf)`);
    }
    if (schema.not !== undefined && this.#trial(value, schema.not, path).errors.length === 0) {
      this.#composite(`${quoted} must not validate the schema (not)`);
    }
  }

  /** A kube-openapi error with no field name: apiextensions makes it `field.Invalid(nil, "", msg)`. */
  #composite(detail: string): void {
    this.errors.push({ type: "FieldValueInvalid", field: "<nil>", value: "", detail });
  }

  #merge(t: Trial): void {
    this.errors.push(...t.errors);
    this.matches += t.matches;
  }

  #trial(value: unknown, schema: Schema, path: string): Trial {
    const v = new Validator(this.#r, this.#patterns);
    v.node(value, schema, path);
    return { errors: v.errors, matches: v.matches };
  }

  #string(value: string, schema: Schema, path: string): void {
    // Lengths count characters (runes), not UTF-16 units.
    const length = schema.maxLength !== undefined || schema.minLength !== undefined ? [...value].length : 0;
    if (schema.maxLength !== undefined && length > schema.maxLength) {
      this.errors.push({
        type: "FieldValueTooLong",
        field: path,
        value,
        detail: `may not be longer than ${schema.maxLength}`,
      });
    }
    if (schema.minLength !== undefined && length < schema.minLength) {
      this.#invalid(path, value, `${inBody(path)} should be at least ${schema.minLength} chars long`);
    }
    if (
      schema.pattern !== undefined &&
      !this.#patterns.of(schema as Schema & { pattern: string })?.test(value)
    ) {
      this.#invalid(path, value, `${inBody(path)} should match '${schema.pattern}'`);
    }
    if (schema.format !== undefined && !checkFormat(schema.format, value)) {
      this.errors.push({
        type: "FieldValueTypeInvalid",
        field: path,
        value,
        detail: `${inBody(path)} must be of type ${schema.format}: ${JSON.stringify(value)}`,
      });
    }
  }

  #number(value: number, schema: Schema, path: string): void {
    if (schema.multipleOf !== undefined && schema.multipleOf > 0) {
      const q = value / schema.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) {
        this.#invalid(path, value, `${inBody(path)} should be a multiple of ${schema.multipleOf}`);
      }
    }
    const { maximum, minimum } = schema;
    if (maximum !== undefined && (schema.exclusiveMaximum ? value >= maximum : value > maximum)) {
      const words = schema.exclusiveMaximum ? "less than" : "less than or equal to";
      this.#invalid(path, value, `${inBody(path)} should be ${words} ${maximum}`);
    }
    if (minimum !== undefined && (schema.exclusiveMinimum ? value <= minimum : value < minimum)) {
      const words = schema.exclusiveMinimum ? "greater than" : "greater than or equal to";
      this.#invalid(path, value, `${inBody(path)} should be ${words} ${minimum}`);
    }
  }

  #array(value: unknown[], schema: Schema, path: string): void {
    const items = Array.isArray(schema.items) ? undefined : schema.items;
    if (items !== undefined)
      for (let i = 0; i < value.length; i++) this.node(value[i], items, `${path}[${i}]`);
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      this.#invalid(path, value, `${inBody(path)} should have at least ${schema.minItems} items`);
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      this.errors.push({
        type: "FieldValueTooMany",
        field: path,
        value: value.length,
        detail: `must have at most ${schema.maxItems} items`,
      });
    }
    if (schema.uniqueItems && new Set(value.map(canonical)).size !== value.length) {
      this.#invalid(path, "", `${inBody(path)} shouldn't contain duplicates`);
    }
    this.#listType(value, schema, path);
  }

  /** `x-kubernetes-list-type: set|map`: duplicates are reported per index, after the rest. */
  #listType(value: unknown[], schema: Schema, path: string): void {
    const listType = schema["x-kubernetes-list-type"];
    if (listType !== "set" && listType !== "map") return;
    const keys = schema["x-kubernetes-list-map-keys"] ?? [];
    const seen = new Set<string>();
    value.forEach((item, i) => {
      let id: unknown = item;
      if (listType === "map" && isObject(item)) {
        id = Object.fromEntries(keys.filter((k) => item[k] !== undefined).map((k) => [k, item[k]]));
      }
      const key = canonical(id);
      if (seen.has(key)) this.errors.push({ type: "FieldValueDuplicate", field: `${path}[${i}]`, value: id });
      seen.add(key);
    });
  }

  #enum(value: unknown, allowed: unknown[], path: string): void {
    const index = enumIndex(allowed);
    if (isComposite(value) ? index.composites.has(canonical(value)) : index.scalars.has(value)) return;
    index.detail ??=
      allowed.length > 0
        ? `supported values: ${allowed.map((a) => JSON.stringify(typeof a === "string" ? a : JSON.stringify(a))).join(", ")}`
        : "";
    this.errors.push({
      type: "FieldValueNotSupported",
      field: path,
      value,
      detail: index.detail || undefined,
    });
  }

  #object(value: Record<string, unknown>, schema: Schema, path: string): void {
    const count = Object.keys(value).length;
    if (schema.maxProperties !== undefined && count > schema.maxProperties) {
      this.errors.push({
        type: "FieldValueTooMany",
        field: path,
        value: count,
        detail: `must have at most ${schema.maxProperties} items`,
      });
    }
    if (schema.minProperties !== undefined && count < schema.minProperties) {
      this.#invalid(path, value, `${inBody(path)} should have at least ${schema.minProperties} properties`);
    }
    for (const key of schema.required ?? []) {
      if (!(key in value)) this.errors.push({ type: "FieldValueRequired", field: child(path, key) });
    }
    if (schema["x-kubernetes-embedded-resource"]) this.#embedded(value, path);
    const props = schema.properties ?? {};
    for (const key of Object.keys(props).sort()) {
      if (key in value) this.node(value[key], props[key], child(path, key));
    }
    const ap = schema.additionalProperties;
    if (typeof ap === "object") {
      for (const key of Object.keys(value).sort()) {
        if (!(key in props)) this.node(value[key], ap, child(path, key));
      }
    }
  }

  /** An embedded object must name its apiVersion and kind (its metadata is optional). */
  #embedded(value: Record<string, unknown>, path: string): void {
    for (const key of ["apiVersion", "kind"]) {
      const v = value[key];
      if (v === undefined) {
        this.errors.push({
          type: "FieldValueRequired",
          field: child(path, key),
          detail: "must not be empty",
        });
      } else if (typeof v !== "string") {
        this.#invalid(child(path, key), v, "must be a string");
      } else if (v === "") {
        this.#invalid(child(path, key), v, "must not be empty");
      }
    }
  }
}

/** A stable text for deep equality: keys sorted, so `{a,b}` equals `{b,a}`. */
/**
 * An enum's values: scalars as they are (JSON's scalars compare as JavaScript's do), lists and
 * objects by canonical JSON; its "supported values" detail once one was refused.
 */
interface EnumIndex {
  scalars: Set<unknown>;
  composites: Set<string>;
  detail?: string;
}

const isComposite = (v: unknown) => typeof v === "object" && v !== null;

/**
 * Indexes by enum array: schemas are frozen per served CRD, and an enum may hold 100 000 values
 * (each object would otherwise canonicalize them all, with the server waiting).
 */
const enumIndexes = new WeakMap<readonly unknown[], EnumIndex>();

function enumIndex(allowed: readonly unknown[]): EnumIndex {
  let index = enumIndexes.get(allowed);
  if (!index) {
    index = { scalars: new Set(), composites: new Set() };
    for (const a of allowed) {
      if (isComposite(a)) index.composites.add(canonical(a));
      else index.scalars.add(a);
    }
    enumIndexes.set(allowed, index);
  }
  return index;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
