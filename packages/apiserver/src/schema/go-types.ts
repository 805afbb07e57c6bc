// What Go's JSON decoder refuses in a built-in object: a value of the wrong JSON type for its
// field (a string where DeploymentSpec goes, an object where a string goes). kube-apiserver
// answers 400 before anything else runs; without this check, the per-kind defaulting would meet
// values of types it cannot handle. Walked without changing the object.
import { goTimeError, RFC3339, RFC3339_MICRO } from "./go-time.js";
import type { ResourceDefinition } from "../registry/resource.js";
import type { Schema } from "./schema-types.js";
import { isObject, SchemaResolver, schemaOf } from "./schema-types.js";

type JsonKind = "object" | "array" | "string" | "number" | "bool";

const QUANTITY_FORMAT =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SUFFIXES = new Set([
  "",
  "Ki",
  "Mi",
  "Gi",
  "Ti",
  "Pi",
  "Ei",
  "n",
  "u",
  "m",
  "k",
  "M",
  "G",
  "T",
  "P",
  "E",
]);

/** resource.ParseQuantity's refusal of `s`, in its words; undefined when it parses. */
export function quantityError(s: string): string | undefined {
  let i = s[0] === "+" || s[0] === "-" ? 1 : 0;
  while (i < s.length && s[i] >= "0" && s[i] <= "9") i++;
  if (s[i] === ".") {
    i++;
    while (i < s.length && s[i] >= "0" && s[i] <= "9") i++;
  }
  const suffix = s.slice(i);
  if (s === "" || !/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) return QUANTITY_FORMAT;
  if (!QUANTITY_SUFFIXES.has(suffix) && !/^[eE][-+]?[0-9]+$/.test(suffix))
    return "unable to parse quantity's suffix";
  // Go takes a number without digits ("-", ".", "Ki") as zero.
  return undefined;
}

const BASE64 = /^[A-Za-z0-9+/]$/;

/** Go's base64.StdEncoding.Decode refusal of `s`: the byte offset it reports, or undefined. */
export function base64Error(s: string): number | undefined {
  const src = Buffer.from(s, "utf8");
  const ch = (k: number) => String.fromCharCode(src[k]);
  let si = 0;
  while (si < src.length) {
    // One quantum of four characters, newlines skipped (decodeQuantum).
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = ch(si++);
      if (BASE64.test(c)) continue;
      if (c === "\n" || c === "\r") {
        j--;
        continue;
      }
      if (c !== "=") return si - 1;
      if (j === 0 || j === 1) return si - 1;
      if (j === 2) {
        while (si < src.length && (ch(si) === "\n" || ch(si) === "\r")) si++;
        if (si === src.length) return src.length;
        if (ch(si) !== "=") return si - 1;
        si++;
      }
      while (si < src.length && (ch(si) === "\n" || ch(si) === "\r")) si++;
      return si < src.length ? si : undefined;
    }
  }
  return undefined;
}

/**
 * Fields of Go type []byte (`format: byte` in kube's OpenAPI), by the struct holding them: JSON
 * carries them in base64, which Go's decoder checks.
 */
export const BYTE_FIELDS = new Set([
  "Secret.data",
  "ConfigMap.binaryData",
  "CertificateSigningRequestSpec.request",
  "CertificateSigningRequestStatus.certificate",
  "WebhookClientConfig.caBundle",
  "APIServiceSpec.caBundle",
]);

/**
 * Fields of Go type metav1.MicroTime, by the struct holding them (k8s.io/api's types.go): they
 * decode with six fraction digits exactly; every other date-time field is a metav1.Time.
 */
export const MICRO_TIME_FIELDS = new Set([
  "Event.eventTime",
  "EventSeries.lastObservedTime",
  "LeaseSpec.acquireTime",
  "LeaseSpec.renewTime",
  "LeaseCandidateSpec.pingTime",
  "LeaseCandidateSpec.renewTime",
]);

/** A metav1.Time or MicroTime (kube's OpenAPI names both `v1.Time` here). */
const isTime = (raw: Schema) =>
  raw.$ref !== undefined && (raw.$ref.endsWith(".v1.Time") || raw.$ref.endsWith(".v1.MicroTime"));

/** What Time's or MicroTime's UnmarshalJSON refuses of a string. */
const timeError = (value: string, micro: boolean | undefined) =>
  goTimeError(value, micro ? RFC3339_MICRO : RFC3339);

function jsonKind(value: unknown): JsonKind | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  if (typeof value === "string") return "string";
  if (typeof value === "number") return "number";
  if (typeof value === "boolean") return "bool";
  return undefined;
}

/**
 * A list of scalars checked in one pass: the JSON kind of its first value of the wrong type, ""
 * when all are right, undefined when the list holds more than scalars (or quantities, which
 * decode themselves) and must be walked. A CRD's enum of 100 000 values would otherwise put an
 * entry on the walk's stack for each, a fifth of a second the server could not answer anyone.
 */
function scalarListError(
  list: readonly unknown[],
  items: Schema,
  r: SchemaResolver,
  text?: string | null,
): string | undefined {
  if (items.$ref?.endsWith(".Quantity")) return undefined;
  for (const v of list) if (typeof v === "object" && v !== null) return undefined;
  const s = r.resolve(items);
  const want = s === undefined ? undefined : accepted(s);
  if (want === undefined) return "";
  for (const v of list) {
    const problem = valueError(v, s!, want, text);
    if (problem !== undefined) return problem;
  }
  return "";
}

/**
 * The bounds of an integer field's Go type: int32 where kube's OpenAPI says `format: int32`,
 * else int64. JSON.parse rounds int64's largest, 9223372036854775807 (which Go takes), to 2^63,
 * as it rounds 9223372036854775808 (which Go refuses): ±2^63 is decided by the body's text
 * (`literals`), let through when there is none to read.
 */
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_EDGE = 2 ** 63;

/** Whether an integer (as JavaScript holds it) surely fits the Go type of an integer schema. */
const fitsWidth = (n: number, s: Schema): boolean =>
  s.format === "int32" ? n >= INT32_MIN && n <= INT32_MAX : n > -INT64_EDGE && n < INT64_EDGE;

/** A JSON number's text, outside strings or not (a string holding the same digits is rare). */
const NUMBER_LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * The number literals of a body that JSON.parse reads as `n`: Go's error quotes a number's text
 * (`number 1e10`), and only the text tells 9223372036854775807 from 9223372036854775808.
 */
function literalsOf(text: string | undefined, n: number): string[] {
  if (text === undefined) return [];
  const out: string[] = [];
  for (const m of text.matchAll(NUMBER_LITERAL)) if (Number(m[0]) === n) out.push(m[0]);
  return out;
}

/** Whether an integer literal fits int64 (within ±2^63, the doubles' edge). */
const literalFitsInt64 = (literal: string): boolean => {
  if (!/^-?\d+$/.test(literal)) return false;
  const big = BigInt(literal);
  return big >= -(2n ** 63n) && big < 2n ** 63n;
};

/**
 * A number as Go's error quotes its JSON text: the literal in the body, if one reads as `n`;
 * else the digits of an integer (past 2^53 those of the double JSON.parse made of it), else
 * JavaScript's form.
 */
const numberText = (n: number, literal?: string): string =>
  literal ?? (Number.isInteger(n) ? BigInt(n).toString() : String(n));

/**
 * What Go's decoder names a scalar it refuses for a schema: its JSON kind ("string"), or "number
 * 2.5" for a number an integer field cannot hold (ParseInt of its text fails: not whole, or past
 * the field's width); undefined if fine.
 */
function valueError(value: unknown, s: Schema, want: JsonKind[], text?: string | null): string | undefined {
  const kind = jsonKind(value);
  if (kind === undefined) return undefined;
  if (!want.includes(kind)) return kind;
  if (kind !== "number") return undefined;
  // An IntOrString's number is decoded into its int32 (IntOrString.UnmarshalJSON).
  if (s.type === "integer" || s["x-kubernetes-int-or-string"] === true) {
    const n = value as number;
    const fits =
      Number.isInteger(n) && (s.type === "integer" ? fitsWidth(n, s) : n >= INT32_MIN && n <= INT32_MAX);
    if (fits) return undefined;
    // `text` null: the fast check, which leaves every refusal (and ±2^63) to the walk that names it.
    if (text === null) return "number";
    const literals = literalsOf(text, n);
    if (Math.abs(n) === INT64_EDGE && s.type === "integer" && s.format !== "int32") {
      // int64's edge: refused only for a literal past it.
      const past = literals.find((l) => !literalFitsInt64(l));
      return past === undefined ? undefined : `number ${past}`;
    }
    return `number ${numberText(n, literals[0])}`;
  }
  return undefined;
}

/** The JSON kinds a schema accepts; undefined for any. */
function accepted(s: Schema): JsonKind[] | undefined {
  if (s["x-kubernetes-int-or-string"] === true) return ["string", "number"];
  if (s.oneOf !== undefined || s.anyOf !== undefined) return ["string", "number"];
  switch (s.type) {
    case "object":
      return ["object"];
    case "array":
      return ["array"];
    case "string":
      return ["string"];
    case "integer":
    case "number":
      return ["number"];
    case "boolean":
      return ["bool"];
    default:
      return s.properties !== undefined ? ["object"] : undefined;
  }
}

/** `Struct.field` entries by struct: the field names of each, looked up once per object. */
function byStruct(entries: Set<string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of entries) {
    const dot = entry.indexOf(".");
    const struct = entry.slice(0, dot);
    const fields = out.get(struct) ?? new Set<string>();
    fields.add(entry.slice(dot + 1));
    out.set(struct, fields);
  }
  return out;
}

const BYTE_FIELDS_BY_STRUCT = byStruct(BYTE_FIELDS);
const MICRO_TIME_FIELDS_BY_STRUCT = byStruct(MICRO_TIME_FIELDS);

/** Nesting checked by typesFine's recursion; deeper objects are left to goTypeError's walk. */
const FINE_DEPTH = 200;

/**
 * Whether goTypeError's walk would find nothing wrong under `value`: the same checks in any
 * order, without the names its errors need. Undefined when the object nests past FINE_DEPTH.
 * `atRoot`: the value's path is empty (the kind's own fields name the kind as their struct).
 */
function typesFine(
  value: unknown,
  raw: Schema,
  bytes: boolean,
  micro: boolean,
  kindName: string,
  atRoot: boolean,
  r: SchemaResolver,
  depth: number,
): boolean | undefined {
  const kind = jsonKind(value);
  if (raw.$ref?.endsWith(".Quantity") && kind !== undefined && kind !== "number") {
    return kind === "string" && quantityError(value as string) === undefined;
  }
  if (bytes && kind === "string") return base64Error(value as string) === undefined;
  if (kind !== undefined && isTime(raw))
    return kind === "string" && timeError(value as string, micro) === undefined;
  const s = r.resolve(raw);
  if (s === undefined || kind === undefined) return true;
  const want = accepted(s);
  if (want !== undefined && valueError(value, s, want, null) !== undefined) return false;
  if (kind === "array") {
    const items = s.items;
    if (items === undefined || Array.isArray(items)) return true;
    const list = value as unknown[];
    const scalars = scalarListError(list, items, r, null);
    if (scalars !== undefined) return scalars === "";
    if (depth >= FINE_DEPTH) return undefined;
    for (const v of list) {
      const fine = typesFine(v, items, false, false, kindName, atRoot, r, depth + 1);
      if (fine !== true) return fine;
    }
    return true;
  }
  if (kind !== "object" || !isObject(value)) return true;
  if (depth >= FINE_DEPTH) return undefined;
  const isStruct = s.properties !== undefined;
  const holderName = atRoot ? kindName : structName(raw);
  const byteFields = isStruct ? BYTE_FIELDS_BY_STRUCT.get(holderName) : undefined;
  const microFields = isStruct ? MICRO_TIME_FIELDS_BY_STRUCT.get(holderName) : undefined;
  const entry = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
  for (const [k, v] of Object.entries(value)) {
    const field = s.properties?.[k];
    let fine: boolean | undefined = true;
    if (field !== undefined) {
      const isBytes = byteFields?.has(k) ?? false;
      const isMicro = microFields?.has(k) ?? false;
      fine = typesFine(v, field, isBytes, isMicro, kindName, atRoot && k === "", r, depth + 1);
    } else if (entry !== undefined) fine = typesFine(v, entry, bytes, micro, kindName, atRoot, r, depth + 1);
    if (fine !== true) return fine;
  }
  return true;
}

/** The Go type kube would name for a schema (`v1.DeploymentSpec`, `[]v1.Container`, `int32`). */
function goTypeName(raw: Schema, depth = 0): string {
  // IntOrString decodes anything but a string into its int32, which Go's error then names.
  if (raw.$ref?.endsWith(".IntOrString") || raw["x-kubernetes-int-or-string"] === true) return "int32";
  // `#/definitions/io.k8s.api.apps.v1.DeploymentSpec` is Go's `v1.DeploymentSpec`.
  if (raw.$ref !== undefined) return raw.$ref.split(".").slice(-2).join(".");
  if (depth > 8) return "interface {}";
  switch (raw.type) {
    case "array":
      return `[]${raw.items && !Array.isArray(raw.items) ? goTypeName(raw.items, depth + 1) : "interface {}"}`;
    case "object": {
      const ap = raw.additionalProperties;
      return typeof ap === "object" ? `map[string]${goTypeName(ap, depth + 1)}` : "map[string]interface {}";
    }
    case "string":
      return "string";
    case "integer":
      // The generated schemas keep kube's width: int32, else int64.
      return raw.format === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    default:
      return "interface {}";
  }
}

/** A definition's Go struct name without its package (`DeploymentSpec`). */
function structName(raw: Schema): string {
  const ref = raw.$ref ?? "";
  return ref.slice(ref.lastIndexOf(".") + 1) || "struct";
}

/**
 * Go's `json: cannot unmarshal string into Go struct field Deployment.spec of type
 * v1.DeploymentSpec` for the first value of the wrong type in a built-in object, or undefined.
 */
export function goTypeError(
  def: Pick<ResourceDefinition, "schema" | "kind">,
  obj: unknown,
  text?: () => string | undefined,
): string | undefined {
  const root = schemaOf(def);
  if (root === undefined) return undefined;
  const r = new SchemaResolver(root);
  // Nearly every object is right: it is checked first without naming paths (no strings per
  // field); the walk below, which names the first bad value in Go's words, runs only when that
  // check finds one (or the object nests too deep for it).
  if (typesFine(obj, root, false, false, def.kind, true, r, 0) === true) return undefined;
  // The JSON text the object was read from, if the caller has it: a refused number is quoted from it.
  const source = text?.();
  // An explicit stack: the object may nest as deep as the body limit allows.
  // `struct`: the Go struct holding the field, as Go's error names it (DeploymentSpec for
  // spec.replicas; the kind itself for top-level fields).
  const stack: {
    value: unknown;
    raw: Schema;
    path: string;
    struct: string;
    bytes?: boolean;
    micro?: boolean;
  }[] = [{ value: obj, raw: root, path: "", struct: def.kind }];
  while (stack.length > 0) {
    const { value, raw, path, struct, bytes, micro } = stack.pop()!;
    const kind = jsonKind(value);
    // resource.Quantity decodes itself: anything but a number or a quantity string is refused.
    if (raw.$ref?.endsWith(".Quantity") && kind !== undefined && kind !== "number") {
      const problem = kind === "string" ? quantityError(value as string) : QUANTITY_FORMAT;
      if (problem) return problem;
      continue;
    }
    if (bytes && kind === "string") {
      const at = base64Error(value as string);
      if (at !== undefined) return `illegal base64 data at input byte ${at}`;
      continue;
    }
    // Time's UnmarshalJSON reads a JSON string (Go's error names that), then parses it.
    if (kind !== undefined && isTime(raw)) {
      if (kind !== "string") {
        return `json: cannot unmarshal ${kind} into Go struct field ${path ? `${struct}.${path}` : struct} of type string`;
      }
      const problem = timeError(value as string, micro);
      if (problem !== undefined) return problem;
      continue;
    }
    const s = r.resolve(raw);
    if (s === undefined || kind === undefined) continue;
    const want = accepted(s);
    const problem = want === undefined ? undefined : valueError(value, s, want, source);
    if (problem !== undefined) {
      const field = path ? `${struct}.${path}` : struct;
      return `json: cannot unmarshal ${problem} into Go struct field ${field} of type ${goTypeName(raw)}`;
    }
    if (kind === "array") {
      const items = s.items;
      if (items !== undefined && !Array.isArray(items)) {
        const list = value as unknown[];
        const scalars = scalarListError(list, items, r, source);
        if (scalars !== undefined) {
          if (scalars === "") continue;
          return `json: cannot unmarshal ${scalars} into Go struct field ${path ? `${struct}.${path}` : struct} of type ${goTypeName(items)}`;
        }
        // Pushed last first, so that the first bad value in the document is found first.
        for (let i = list.length - 1; i >= 0; i--) stack.push({ value: list[i], raw: items, path, struct });
      }
    } else if (kind === "object" && isObject(value)) {
      // A struct's fields are held by it; a map's values by the struct that holds the map.
      const isStruct = s.properties !== undefined;
      const holder = !isStruct ? struct : path === "" ? def.kind : structName(raw);
      for (const [k, v] of Object.entries(value).reverse()) {
        const field = s.properties?.[k];
        const entry = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
        // Go names a map's value by the map's field: `ConfigMap.data`, never `data.a`.
        if (field !== undefined) {
          const fieldOf = `${isStruct && path === "" ? def.kind : structName(raw)}.${k}`;
          stack.push({
            value: v,
            raw: field,
            path: path ? `${path}.${k}` : k,
            struct: holder,
            bytes: BYTE_FIELDS.has(fieldOf),
            micro: isStruct && MICRO_TIME_FIELDS.has(fieldOf),
          });
        } else if (entry !== undefined)
          stack.push({ value: v, raw: entry, path, struct: holder, bytes, micro });
      }
    }
  }
  return undefined;
}
