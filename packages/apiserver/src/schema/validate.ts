// OpenAPI v3 validation of custom resources as apiextensions-apiserver does it (kube-openapi's
// validator, its errors converted to field errors): same checks, same order, same words. The walk
// recurses through a trampoline: kube accepts schemas and objects nested as deep as its JSON
// decoder takes them (10 000 levels), V8's stack gives out near 1 500 levels of this walk.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { trampoline, type Walk } from "../object/trampoline.js";
import type { ResourceDefinition } from "../registry/resource.js";
import type { FieldError } from "./field-error.js";
import { goFloat, toStatusCause } from "./field-error.js";
import { checkFormat } from "./formats.js";
import { PatternCache } from "./patterns.js";
import type { Schema } from "./schema-types.js";
import { isObject, SchemaResolver, schemaOf } from "./schema-types.js";

/**
 * Validates a whole object against its resource's schema; [] when it has none or all is well.
 * On update (`old` given), as kube 1.33+ does (CRDValidationRatcheting, GA): an error in a value
 * left as it was is let through, so that an object stored before its CRD tightened can still be
 * changed elsewhere. "Left as it was" is judged at the erring node if kube can correlate it with
 * its old value (by field; a map list's items by their keys), else at its nearest such ancestor;
 * apiVersion and kind never ratchet. Duplicates in set and map lists are checked only if the old
 * object had none (kube's older rule for them), and embedded objects' apiVersion and kind always.
 */
export function validateObject(
  def: Pick<ResourceDefinition, "schema">,
  obj: unknown,
  patterns: PatternCache = new PatternCache(),
  old?: unknown,
): StatusCause[] {
  const root = schemaOf(def);
  if (root === undefined) return [];
  const v = new Validator(new SchemaResolver(root), patterns);
  trampoline(v.node(obj, root, "", old === undefined ? undefined : { value: old }));
  let errors = v.errors;
  if (old !== undefined && v.listErrors.size > 0) {
    // Looked at only when the new object has duplicates: most updates never validate the old one.
    const before = new Validator(new SchemaResolver(root), patterns);
    trampoline(before.node(old, root, ""));
    if (before.listErrors.size > 0) errors = errors.filter((e) => !v.listErrors.has(e));
  }
  return errors.map(toStatusCause);
}

type Obj = Record<string, unknown>;

/** The old value a node is correlated with, on update (boxed: an old value may be null). */
interface Old {
  value: unknown;
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
  trampoline(v.node(value, schema, path));
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
      return isGoInt(value) ? "integer" : "number";
    default:
      return "object";
  }
}

/**
 * Whether Go decodes this JSON number as an int64 (apimachinery's json tries Int64, then Float64):
 * a whole number within int64's range. (`3.0` is a float64 in Go, 3 here: JSON.parse can't tell.)
 */
const isGoInt = (v: number) => Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 63;

/** Go's `int64(f)` on amd64: truncation, and the "integer indefinite" minimum when out of range. */
const goInt64 = (f: number) => (Math.abs(f) < 2 ** 63 ? Math.trunc(f) : -(2 ** 63));

/** An int64 as Go prints it (exactly, past 2^53). */
const goIntText = (i: number) => BigInt(i).toString();

/**
 * swag's IsFloat64AJSONInteger: within ±(2^53-1) and within a relative 1e-9 of the nearest whole
 * number, itself not 0.
 */
function isJSONInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53 - 1) return false;
  const rounded = goRound(f);
  if (f === rounded) return true;
  return rounded !== 0 && Math.abs(f - rounded) < 1e-9 * Math.abs(rounded);
}

/** Go's math.Round: half away from zero. */
const goRound = (f: number) => Math.sign(f) * Math.round(Math.abs(f));

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);
/** kube-openapi's "<path> in body" prefix of messages. */
const inBody = (path: string) => `${path} in body`;

/** A walk with nothing left to do: what a leaf validated at once stands for. */
const DONE: Walk<void> = (function* () {})();
DONE.next();

const hasCombinators = (s: Schema) =>
  s.anyOf !== undefined || s.oneOf !== undefined || s.allOf !== undefined || s.not !== undefined;

/** An alternative of a combinator tried alone: its errors and how many of its checks passed. */
interface Trial {
  errors: FieldError[];
  matches: number;
}

class Validator {
  readonly errors: FieldError[] = [];
  /** Duplicates in set and map lists: kube checks them apart from the schema, never ratcheted. */
  readonly listErrors = new Set<FieldError>();
  /** Embedded objects' apiVersion and kind: kube checks them apart too (schemaobjectmeta). */
  readonly #unratcheted = new Set<FieldError>();
  /** New values found equal to the old value they correlate with (ratcheting's comparisons). */
  readonly #equal = new WeakMap<object, unknown>();
  /** Whether a node visited since the current one began was found changed. */
  #changedBelow = false;
  /** Nodes whose type matched: kube-openapi's MatchCount, which picks the closest alternative. */
  matches = 0;
  readonly #r: SchemaResolver;
  readonly #patterns: PatternCache;

  constructor(resolver: SchemaResolver, patterns: PatternCache) {
    this.#r = resolver;
    this.#patterns = patterns;
  }

  /** Validates `value`; with `old`, its errors are dropped if the value is as it was (ratcheting). */
  node(value: unknown, schema0: Schema | undefined, path: string, old?: Old): Walk<void> {
    if (old !== undefined) return this.#ratcheted(value, schema0, path, old);
    return this.#leaf(value, schema0, path) ? DONE : this.#node(value, schema0, path, undefined);
  }

  *#ratcheted(value: unknown, schema0: Schema | undefined, path: string, old: Old): Walk<void> {
    const start = this.errors.length;
    const outer = this.#changedBelow;
    this.#changedBelow = false;
    yield this.#node(value, schema0, path, old);
    // kube compares only once a node has errors; a node with a changed child has changed.
    let changed = this.#changedBelow;
    if (this.errors.length > start && !changed) {
      changed = !(yield this.#same(value, old.value));
      if (!changed) {
        const kept = this.errors
          .splice(start)
          .filter((e) => this.listErrors.has(e) || this.#unratcheted.has(e));
        this.errors.push(...kept);
      }
    }
    this.#changedBelow = outer || changed;
  }

  /**
   * Deep equality of a new value and its correlated old one, remembering what it found equal:
   * an ancestor compared next skips those subtrees, so that a deep object with errors at every
   * level is compared once in all, not once per level (kube's CachedDeepEqual).
   */
  *#same(a: unknown, b: unknown): Walk<boolean> {
    if (a === b) return true;
    if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return false;
    if (this.#equal.get(a) === b) return true;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (!(yield this.#same(a[i], b[i]))) return false;
    } else {
      if (Array.isArray(b)) return false;
      const ka = Object.keys(a);
      if (ka.length !== Object.keys(b).length) return false;
      for (const k of ka) {
        if (!Object.hasOwn(b, k) || !(yield this.#same((a as Obj)[k], (b as Obj)[k]))) return false;
      }
    }
    this.#equal.set(a, b);
    return true;
  }

  *#node(value: unknown, schema0: Schema | undefined, path: string, old: Old | undefined): Walk<void> {
    const schema = this.#r.resolve(schema0);
    if (schema === undefined || !this.#typeChecks(value, schema, path)) return;
    if (hasCombinators(schema)) yield this.#combinators(value, schema, path);
    if (typeof value === "string") this.#string(value, schema, path);
    if (typeof value === "number") this.#number(value, schema, path);
    if (Array.isArray(value)) yield this.#array(value, schema, path, old);
    if (schema.enum !== undefined) this.#enum(value, schema.enum, path);
    if (isObject(value)) yield this.#object(value, schema, path, old);
  }

  /**
   * A scalar under a schema without combinators, validated at once (no walk to build: most
   * values of an object are such leaves). False when it needs the walk.
   */
  #leaf(value: unknown, schema0: Schema | undefined, path: string): boolean {
    if (typeof value === "object" && value !== null) return false;
    const schema = this.#r.resolve(schema0);
    if (schema === undefined) return true;
    if (hasCombinators(schema)) return false;
    if (!this.#typeChecks(value, schema, path)) return true;
    if (typeof value === "string") this.#string(value, schema, path);
    if (typeof value === "number") this.#number(value, schema, path);
    if (schema.enum !== undefined) this.#enum(value, schema.enum, path);
    return true;
  }

  /**
   * The checks of a value's type (and what kube-openapi still runs after a wrong one); false
   * when they end its validation.
   */
  #typeChecks(value: unknown, schema: Schema, path: string): boolean {
    const types = schema["x-kubernetes-int-or-string"]
      ? ["integer", "string"]
      : schema.type
        ? [schema.type]
        : [];
    if (value === null || value === undefined) {
      if (!schema.nullable && types.length > 0) this.#typeError(path, types, "null");
      return false;
    }
    const actual = jsonType(value);
    // After a failed type check kube-openapi still runs the validators that apply to the value's
    // kind; of those, the number validator and enum can speak.
    let typeFailed =
      typeof value === "number" && schema.type !== undefined && this.#numberFormatError(value, schema, path);
    if (
      !typeFailed &&
      types.length > 0 &&
      !types.includes(actual) &&
      !(actual === "integer" && types.includes("number")) &&
      !(actual === "number" && types.includes("integer") && isJSONInteger(value as number))
    ) {
      this.#typeError(path, types, actual);
      typeFailed = true;
    }
    if (typeFailed) {
      if (typeof value === "number") this.#number(value, schema, path);
      if (schema.enum !== undefined) this.#enum(value, schema.enum, path);
      return false;
    }
    this.matches++;
    return true;
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
  *#combinators(value: unknown, schema: Schema, path: string): Walk<void> {
    const quoted = JSON.stringify(path);
    if (schema.anyOf !== undefined && schema.anyOf.length > 0) {
      let best: Trial | undefined;
      for (const s of schema.anyOf) {
        const t: Trial = yield this.#trial(value, s, path);
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
        const t: Trial = yield this.#trial(value, s, path);
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
        const t: Trial = yield this.#trial(value, s, path);
        if (t.errors.length === 0) passed++;
        this.#merge(t);
      }
      if (passed === 0) this.#composite(`${quoted} must validate all the schemas (allOf). None validated`);
      else if (passed < schema.allOf.length)
        this.#composite(`${quoted} must validate all the schemas (allOf)`);
    }
    if (
      schema.not !== undefined &&
      ((yield this.#trial(value, schema.not, path)) as Trial).errors.length === 0
    ) {
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

  *#trial(value: unknown, schema: Schema, path: string): Walk<Trial> {
    const v = new Validator(this.#r, this.#patterns);
    yield v.node(value, schema, path);
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
        // apimachinery's field.TooLong words (1.37), whatever the schema counts (characters).
        detail: `may not be more than ${schema.maxLength} ${schema.maxLength === 1 ? "byte" : "bytes"}`,
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

  /**
   * kube-openapi's typeValidator on a number under a schema with a format: a format that neither
   * the type nor Go's own format of the value (int64, float64) accounts for refuses it, naming
   * both formats (`must be of type int32: "float64"`). True when it did.
   */
  #numberFormatError(value: number, schema: Schema, path: string): boolean {
    const format = schema.format;
    if (!format) return false;
    const [ownType, ownFormat] = isGoInt(value) ? ["integer", "int64"] : ["number", "float64"];
    const type = schema.type ?? "";
    // A float within 1e-9 of a whole number passes for an integer (swag's IsFloat64AJSONInteger).
    const floatInt = ownType === "number" && type === "integer" && isJSONInteger(value);
    if (type === ownType || ownFormat === format || floatInt || (ownType === "integer" && type === "number"))
      return false;
    this.errors.push({
      type: "FieldValueTypeInvalid",
      field: path,
      value: ownFormat,
      detail: `${inBody(path)} must be of type ${format}: ${JSON.stringify(ownFormat)}`,
    });
    return true;
  }

  /**
   * kube-openapi's numberValidator. Each keyword (and the value itself) must first fit the type
   * and format (integer: whole and within int32/int64; number with format float: within float32),
   * else kube refuses with an error of no field and checks the keyword as a plain float. A keyword
   * that fits is checked natively: against a Go int64 value the factor and bounds are cast to
   * int64 (truncated), so `multipleOf: 0.5` on an int is "factor ... must be positive: 0".
   * Errors come checked value first, then multipleOf, minimum, maximum.
   */
  #number(value: number, schema: Schema, path: string): void {
    const kind = schema.type === "integer" ? "integer" : schema.type === "number" ? "number" : "";
    const format =
      (kind === "integer" && (schema.format === "int32" || schema.format === "int64")) ||
      (kind === "number" && (schema.format === "float" || schema.format === "double"))
        ? (schema.format as string)
        : "";
    const native = isGoInt(value);
    this.#fits(value, "Checked", kind, format, path);
    const { multipleOf, maximum, minimum } = schema;
    if (multipleOf !== undefined) {
      const asInt = this.#fits(multipleOf, "MultipleOf", kind, format, path) && native;
      const factor = asInt ? goInt64(multipleOf) : multipleOf;
      if (factor <= 0) {
        const shown = asInt ? goIntText(factor) : goFloat(factor);
        this.#invalid(path, factor, `factor MultipleOf declared for ${path} must be positive: ${shown}`);
      } else if (
        asInt ? value % factor !== 0 : !isJSONInteger(factor < 1 ? (1 / factor) * value : value / factor)
      ) {
        const shown = asInt ? goIntText(factor) : goFloat(factor);
        this.#invalid(path, value, `${inBody(path)} should be a multiple of ${shown}`);
      }
    }
    if (minimum !== undefined) {
      const exclusive = schema.exclusiveMinimum === true;
      const asInt = this.#fits(minimum, "Minimum boundary", kind, format, path) && native;
      const bound = asInt ? goInt64(minimum) : minimum;
      if (exclusive ? value <= bound : value < bound) {
        const words = exclusive ? "greater than" : "greater than or equal to";
        this.#invalid(
          path,
          value,
          `${inBody(path)} should be ${words} ${asInt ? goIntText(bound) : goFloat(bound)}`,
        );
      }
    }
    if (maximum !== undefined) {
      const exclusive = schema.exclusiveMaximum === true;
      const asInt = this.#fits(maximum, "Maximum boundary", kind, format, path) && native;
      const bound = asInt ? goInt64(maximum) : maximum;
      if (exclusive ? value >= bound : value > bound) {
        const words = exclusive ? "less than" : "less than or equal to";
        this.#invalid(
          path,
          value,
          `${inBody(path)} should be ${words} ${asInt ? goIntText(bound) : goFloat(bound)}`,
        );
      }
    }
  }

  /**
   * Whether `x` fits the number's type and format, else a composite error. A method, not a closure
   * made per number: tsx (the tests' and benches' loader) names each closure bound to a name with
   * a defineProperty call, ~230 ns; the shipped bundle does not.
   */
  #fits(x: number, prefix: string, kind: string, format: string, path: string): boolean {
    let ok = true;
    if (kind === "integer") {
      const bound = format === "int32" ? 2 ** 31 : 2 ** 63;
      ok = Number.isInteger(x) && x >= -bound && x < bound;
    } else if (format === "float") {
      ok = Number.isFinite(Math.fround(x)) || !Number.isFinite(x);
    }
    if (!ok) {
      const described = format ? `${kind} with format ${format}` : `${kind} (default format)`;
      this.#composite(`${prefix} value must be of type ${described} in ${path}`);
    }
    return ok;
  }

  *#array(value: unknown[], schema: Schema, path: string, old: Old | undefined): Walk<void> {
    const items = Array.isArray(schema.items) ? undefined : schema.items;
    if (items !== undefined) {
      const oldItem = correlateItems(schema, old);
      for (let i = 0; i < value.length; i++)
        yield this.node(value[i], items, `${path}[${i}]`, oldItem(value[i]));
    }
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
      if (seen.has(key)) {
        const error: FieldError = { type: "FieldValueDuplicate", field: `${path}[${i}]`, value: id };
        this.errors.push(error);
        this.listErrors.add(error);
      }
      seen.add(key);
    });
  }

  #enum(value: unknown, allowed: unknown[], path: string): void {
    const index = enumIndex(allowed);
    if (isComposite(value) ? index.composites.has(canonical(value)) : index.scalars.has(value)) return;
    if (typeof value === "number" && allowed.some((a) => goConvertedEqual(value, a))) return;
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

  *#object(value: Record<string, unknown>, schema: Schema, path: string, old: Old | undefined): Walk<void> {
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
      // kube-openapi's TooFewProperties carries the count as its value.
      this.#invalid(path, count, `${inBody(path)} should have at least ${schema.minProperties} properties`);
    }
    for (const key of schema.required ?? []) {
      if (!(key in value)) this.errors.push({ type: "FieldValueRequired", field: child(path, key) });
    }
    if (schema["x-kubernetes-embedded-resource"]) {
      const start = this.errors.length;
      this.#embedded(value, path);
      for (let i = start; i < this.errors.length; i++) this.#unratcheted.add(this.errors[i]!);
    }
    // A field correlates with its old value when both objects have it; at the root, apiVersion
    // and kind never do (kube reads both objects as one version, so their change is invisible).
    const oldMap = old !== undefined && isObject(old.value) ? old.value : undefined;
    const props = schema.properties ?? {};
    for (const key of Object.keys(props).sort()) {
      if (key in value)
        yield this.node(value[key], props[key], child(path, key), oldField(oldMap, key, path));
    }
    const ap = schema.additionalProperties;
    if (typeof ap === "object") {
      for (const key of Object.keys(value).sort()) {
        if (!(key in props)) yield this.node(value[key], ap, child(path, key), oldField(oldMap, key, path));
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

/**
 * The old value of field `key` of an object at `path`, when the old object has it. A function,
 * not a closure made per object: tsx names each closure bound to a name (see #fits).
 */
function oldField(oldMap: Record<string, unknown> | undefined, key: string, path: string): Old | undefined {
  return oldMap !== undefined &&
    Object.hasOwn(oldMap, key) &&
    !(path === "" && (key === "apiVersion" || key === "kind"))
    ? { value: oldMap[key] }
    : undefined;
}

/**
 * The old item each item of a list correlates with, for ratcheting: only a map list's items do,
 * by their keys (kube's CorrelatedObject.Index; sets and atomic lists answer for the whole list).
 */
function correlateItems(list: Schema, old: Old | undefined): (item: unknown) => Old | undefined {
  const keys = list["x-kubernetes-list-map-keys"];
  if (old === undefined || !Array.isArray(old.value) || list["x-kubernetes-list-type"] !== "map" || !keys)
    return () => undefined;
  const keyOf = (o: unknown) => (isObject(o) ? canonical(keys.map((k) => o[k] ?? null)) : undefined);
  const byKey = new Map<string, unknown>();
  for (const o of old.value) {
    const k = keyOf(o);
    if (k !== undefined && !byKey.has(k)) byKey.set(k, o);
  }
  return (item) => {
    const k = keyOf(item);
    return k !== undefined && byKey.has(k) ? { value: byKey.get(k) } : undefined;
  };
}

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

/**
 * kube-openapi compares a value with an allowed one after reflect's Convert to the allowed one's
 * Go type: a float against an int64 is truncated (1.5 matches 1), an int64 against a float64 is
 * widened, an int64 against a string becomes the character of that code point (97 matches "a").
 */
function goConvertedEqual(v: number, allowed: unknown): boolean {
  if (typeof allowed === "number") {
    if (!isGoInt(allowed)) return v === allowed;
    return (isGoInt(v) ? v : goInt64(v)) === allowed;
  }
  if (typeof allowed === "string" && isGoInt(v)) {
    const rune =
      v >= 0 && v <= 0x10ffff && !(v >= 0xd800 && v <= 0xdfff) ? String.fromCodePoint(v) : "\ufffd";
    return rune === allowed;
  }
  return false;
}

/** Literal text among the values canonical's stack still has to write. */
class Literal {
  constructor(readonly text: string) {}
}
const COMMA = new Literal(",");
const CLOSE_LIST = new Literal("]");
const CLOSE_MAP = new Literal("}");

/**
 * A stable text for deep equality: keys sorted, so `{a,b}` equals `{b,a}`. Written with a stack,
 * not recursion: a set's items may nest thousands of levels.
 */
function canonical(value: unknown): string {
  if (typeof value !== "object" || value === null) return JSON.stringify(value) ?? "null";
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Literal) out.push(x.text);
    else if (Array.isArray(x)) {
      out.push("[");
      stack.push(CLOSE_LIST);
      for (let i = x.length - 1; i >= 0; i--) {
        stack.push(x[i]);
        if (i > 0) stack.push(COMMA);
      }
    } else if (isObject(x)) {
      const keys = Object.keys(x).sort();
      out.push("{");
      stack.push(CLOSE_MAP);
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(x[keys[i]], new Literal(`${i > 0 ? "," : ""}${JSON.stringify(keys[i])}:`));
      }
    } else out.push(JSON.stringify(x) ?? "null");
  }
  return out.join("");
}
