// Built-in objects as Go's encoder writes kube's structs: keys in declaration order, map keys
// sorted, and the fields Go writes even when unset (a struct value is never omitted: a
// Deployment always has `status: {}`; a field without omitempty is written as its zero value:
// an Event's `reportingComponent: ""`, a Time's `null`). The facts come from k8s.io/api's
// types.go, apiextensions' and kube-aggregator's (go-fields.generated.ts); the property types
// from the built-in schemas.
import { builtinCompactDefinitions } from "../schema/builtin-schemas.generated.js";
import { goFieldTable } from "../schema/go-fields.generated.js";
import { MICRO_TIME_FIELDS } from "../schema/go-types.js";
import { canonicalGoTime } from "../schema/go-time.js";
import type { Obj } from "../storage/index.js";

interface GoField {
  name: string;
  /** What Go writes when the field is unset (see gen-go-fields.ts), "" for nothing. */
  cls: string;
  /** The schema's type code of the field (`@core.v1.PodSpec`, `[]string`, `{}string`, ...). */
  code: string;
  /** Its place in the struct. */
  index: number;
  /**
   * What Go's decoding and encoding drops of it: 1 at its zero value (an omitempty scalar), 2 an
   * empty list, 3 an empty map (omitempty collections); 0 nothing.
   */
  drop: 0 | 1 | 2 | 3;
  /** What lies below a value of it, for dropOmittedZeros; null for nothing to walk. */
  shape: Shape | null;
  /** For a list or map of scalars, what a null element of it decodes as (see zeroNullItems). */
  itemZero: unknown;
}

/**
 * A type code compiled for dropOmittedZeros' walk: a struct (resolved on first use), a list or
 * a map of a shape, or `|` (a schema or a list of schemas). Compiled once per code, so that the
 * walk slices no strings and looks up no struct by name per value.
 */
type Shape =
  | { k: "struct"; short: string; struct?: GoStruct | null }
  | { k: "list" | "map" | "either"; item: Shape };

const shapes = new Map<string, Shape | null>();

function shapeOf(code: string): Shape | null {
  let shape = shapes.get(code);
  if (shape !== undefined) return shape;
  if (code.startsWith("@")) shape = { k: "struct", short: code.slice(1) };
  else {
    const k = code.startsWith("[]")
      ? "list"
      : code.startsWith("{}")
        ? "map"
        : code.startsWith("|")
          ? "either"
          : "";
    const item = k === "" ? null : shapeOf(code.slice(k === "either" ? 1 : 2));
    // JSON values (`json`) and scalars hold nothing Go drops.
    shape = k === "" || item === null ? null : { k, item };
  }
  shapes.set(code, shape);
  return shape;
}

function dropOf(cls: string, code: string): GoField["drop"] {
  if (cls === "o") return 1;
  if (cls !== "") return 0;
  return code.startsWith("[]") ? 2 : code.startsWith("{}") ? 3 : 0;
}

interface GoStruct {
  fields: GoField[];
  byName: Map<string, GoField>;
  /** The fields Go writes even when unset. */
  always: GoField[];
  /** Whether it embeds metav1.TypeMeta: `kind` and `apiVersion` come first (a StatefulSet's claim templates). */
  typeMeta: boolean;
}

const parsed = new Map<string, GoStruct | null>();

/** The Go fields of a definition (short name: `apps.v1.DeploymentSpec`), if known. */
function goStruct(short: string): GoStruct | undefined {
  let struct = parsed.get(short);
  if (struct === undefined) {
    const spec = goFieldTable()[short];
    const props = (builtinCompactDefinitions()[short]?.properties ?? {}) as Record<string, string>;
    if (spec === undefined) struct = null;
    else {
      const fields = spec
        .split(" ")
        .filter((entry) => entry !== "")
        .map((entry, index): GoField => {
          // `name:class:code`: a code of its own where Go's type writes itself (see the generator).
          const [name, cls = "", own] = entry.split(":");
          const code = own ?? props[name] ?? "";
          const itemZero = code.startsWith("[]") || code.startsWith("{}") ? scalarZero(code.slice(2)) : null;
          return { name, cls, code, index, drop: dropOf(cls, code), shape: shapeOf(code), itemZero };
        });
      struct = {
        fields,
        byName: new Map(fields.map((f) => [f.name, f])),
        always: fields.filter(writtenUnset),
        typeMeta: builtinCompactDefinitions()[short]?.gvk !== undefined,
      };
    }
    parsed.set(short, struct);
  }
  return struct ?? undefined;
}

const goFields = (short: string): GoField[] | undefined => goStruct(short)?.fields;

/** Sets a key as JSON.parse does: a map's `__proto__` is a key like any other, not the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Only `__proto__` is an accessor on Object.prototype: any other key is assigned as it is
  // (defineProperty costs every map key of every write several times an assignment).
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const isPlainObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether Go writes the field when unset: `o` (omitempty) and "" fields it leaves out. */
const writtenUnset = (f: GoField) => f.cls !== "" && f.cls !== "o";

function zeroOf(f: GoField): unknown {
  switch (f.cls) {
    case "s":
      return f.code.startsWith("@") ? zeroStruct(f.code.slice(1)) : {};
    case "q":
      return "0";
    case "i":
      return 0;
    case "d":
      return "0s";
    case "z":
      return f.code === "integer" || f.code === "int32" || f.code === "number"
        ? 0
        : f.code === "boolean"
          ? false
          : "";
    default:
      return null; // n, t, r
  }
}

/** An unset struct as Go writes it: only the fields it always writes. */
export function zeroStruct(short: string): Obj {
  const out: Obj = {};
  for (const f of goFields(short) ?? []) if (writtenUnset(f)) out[f.name] = zeroOf(f);
  return out;
}

/** An omitempty scalar at its zero value, which Go's encoder leaves out. */
const isOmittedZero = (f: GoField, v: unknown) => f.cls === "o" && (v === false || v === 0 || v === "");

/** Whether values of the type code need encoding (structs, collections of them, JSON values). */
const needsWork = (code: string) =>
  code.startsWith("@") ||
  code.startsWith("[]") ||
  code.startsWith("{}") ||
  code.startsWith("|") ||
  code === "json";

/** A value still to encode: `parent[key]` holds it (as given) until the walk replaces it. */
type Task = [parent: Obj | unknown[], key: string | number, code: string];

function isEmptyCollection(v: unknown, code: string): boolean {
  if (code.startsWith("[]")) return Array.isArray(v) && v.length === 0;
  if (code.startsWith("{}")) return isPlainObject(v) && Object.keys(v).length === 0;
  return false;
}

/** One struct's fields in Go's order; its values needing work are left to `tasks`. */
function encodeFields(struct: GoStruct, value: Obj, tasks: Task[], decoded: boolean): Obj {
  let fields = struct.fields;
  // A sparse struct (a schema node sets a few of JSONSchemaProps' 46 fields): the fields it has
  // and those always written, rather than a look-up of every field. Small structs are walked whole.
  const keys = fields.length >= 16 ? Object.keys(value) : undefined;
  if (keys !== undefined && keys.length * 4 < fields.length) {
    fields = struct.always.slice();
    for (const k of keys) {
      const f = struct.byName.get(k);
      if (f !== undefined && !writtenUnset(f)) fields.push(f);
    }
    fields.sort((a, b) => a.index - b.index);
  }
  const out: Obj = {};
  if (struct.typeMeta) {
    // TypeMeta's fields, omitempty, before the struct's own.
    if (value.kind !== undefined && value.kind !== "") out.kind = value.kind;
    if (value.apiVersion !== undefined && value.apiVersion !== "") out.apiVersion = value.apiVersion;
  }
  for (const f of fields) {
    const v = value[f.name];
    if (isEmptyCollection(v, f.code)) {
      // etcd keeps objects as protobuf, where an empty list or map is no list or map: Go reads
      // it back nil, written null without omitempty and left out with it. As decoded from a
      // request it is still the empty value it was sent as.
      if (f.cls === "n") out[f.name] = decoded ? v : null;
      continue;
    }
    if (v === undefined || (v === null && f.cls === "s")) {
      if (writtenUnset(f)) out[f.name] = zeroOf(f);
    } else if (!isOmittedZero(f, v)) {
      out[f.name] = v;
      if (v !== null && typeof v === "object" && needsWork(f.code)) tasks.push([out, f.name, f.code]);
    }
  }
  for (const k in value)
    if (Object.hasOwn(value, k) && !Object.hasOwn(out, k) && value[k] !== undefined) setOwn(out, k, value[k]);
  return out;
}

/** `v` encoded one level as `code` says; what lies below is pushed on `tasks`. */
function encodeLevel(v: unknown, code: string, tasks: Task[], decoded: boolean): unknown {
  if (code.startsWith("@")) {
    const struct = isPlainObject(v) ? goStruct(code.slice(1)) : undefined;
    return struct ? encodeFields(struct, v as Obj, tasks, decoded) : v;
  }
  if (code.startsWith("|")) {
    // A schema, or a list of schemas (JSONSchemaPropsOrArray), or a bool or a string list.
    if (!Array.isArray(v)) return encodeLevel(v, code.slice(1), tasks, decoded);
    code = `[]${code.slice(1)}`;
  }
  const json = code === "json";
  if (Array.isArray(v) && (json || code.startsWith("[]"))) {
    const item = json ? code : code.slice(2);
    const out = v.slice();
    for (let i = 0; i < out.length; i++)
      if (out[i] !== null && typeof out[i] === "object") tasks.push([out, i, item]);
    return out;
  }
  if (isPlainObject(v) && (json || code.startsWith("{}"))) {
    // Go writes map keys sorted.
    const item = json ? code : code.slice(2);
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) {
      setOwn(out, k, v[k]);
      if (v[k] !== null && typeof v[k] === "object" && needsWork(item)) tasks.push([out, k, item]);
    }
    return out;
  }
  return v;
}

/**
 * `value` (an object of the definition `short`) in Go's order, with what Go always writes and
 * without what it leaves out. Walked with a stack of its own: a CRD's schema nests thousands of
 * levels deep, past the call stack. `decoded`: as Go decodes a request and writes it back (an
 * empty list sent stays empty), rather than as read back from storage (it is null).
 */
export function encodeStruct(short: string, value: Obj, decoded = false): Obj {
  const struct = goStruct(short);
  if (!struct) return value;
  const tasks: Task[] = [];
  const out = encodeFields(struct, value, tasks, decoded);
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    const [parent, key, code] = task;
    const encoded = encodeLevel((parent as Obj)[key], code, tasks, decoded);
    if (typeof key === "number") (parent as unknown[])[key] = encoded;
    else setOwn(parent as Obj, key, encoded);
  }
  return out;
}

/**
 * Removes, in place, what Go's decoder and encoder would not give back of an object of `short`:
 * omitempty scalars at their zero value (a container's `stdin: false`, a CRD schema's
 * `nullable: false`) and omitempty lists and maps left empty (a webhook's `rules: []`), at every
 * depth, without recursion. Before managedFields are computed, as kube computes them on the
 * decoded object. A struct the table does not describe (meta.v1.LabelSelector) is handed to
 * `other` with its definition's short name.
 */
export function dropOmittedZeros(
  short: string,
  value: Obj,
  other?: (value: Obj, short: string) => void,
): void {
  const stack: [unknown, Shape][] = [[value, shapeOf(`@${short}`)!]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const v = top[0];
    let shape = top[1];
    if (shape.k === "either") shape = Array.isArray(v) ? { k: "list", item: shape.item } : shape.item;
    if (shape.k === "struct") {
      if (!isPlainObject(v)) continue;
      if (shape.struct === undefined) shape.struct = goStruct(shape.short) ?? null;
      const struct = shape.struct;
      if (struct === null) {
        other?.(v, shape.short);
        continue;
      }
      for (const k of Object.keys(v)) {
        const f = struct.byName.get(k);
        if (f === undefined) continue;
        const x = v[k];
        if (x === null) {
          const zero = nullField(f);
          if (zero === DROP) delete v[k];
          else if (zero !== null) v[k] = zero;
          continue;
        }
        if (f.itemZero !== null && typeof x === "object") zeroNullItems(x as unknown[] | Obj, f.itemZero);
        if (f.drop !== 0) {
          const dropped =
            f.drop === 1
              ? x === false || x === 0 || x === ""
              : f.drop === 2
                ? Array.isArray(x) && x.length === 0
                : isPlainObject(x) && isEmptyObject(x);
          if (dropped) {
            delete v[k];
            continue;
          }
        }
        if (f.code === "date-time" && typeof x === "string") {
          // Time and MicroTime are written back in UTC, to the second or the microsecond.
          const short = shape.short;
          const t = canonicalGoTime(
            x,
            MICRO_TIME_FIELDS.has(`${short.slice(short.lastIndexOf(".") + 1)}.${k}`),
          );
          if (t !== x) v[k] = t;
          continue;
        }
        if (f.shape !== null && x !== null && typeof x === "object") stack.push([x, f.shape]);
      }
    } else if (shape.k === "list") {
      if (!Array.isArray(v)) continue;
      const structs = shape.item.k === "struct";
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        // A null element of a list of structs decodes as the zero struct.
        if (x === null && structs) v[i] = {};
        else if (x !== null && typeof x === "object") stack.push([x, shape.item]);
      }
    } else if (isPlainObject(v)) {
      const structs = shape.item.k === "struct";
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const x = v[k];
        if (x === null && structs) v[k] = {};
        else if (x !== null && typeof x === "object") stack.push([x, shape.item]);
      }
    }
  }
}

/** nullField's answer for a field Go leaves out once it has decoded `null` into it. */
const DROP = Symbol("drop");

/**
 * What Go's decoder makes of a field sent as `null`: a pointer, slice or map is nil and a scalar
 * or struct keeps its zero value. So a field Go leaves out when unset (omitempty, a pointer, a
 * struct, which the encoder writes in full anyway) is dropped as if not sent; a scalar without
 * omitempty takes its zero (a port's `0`, a name's `""`), which validation then judges as kube
 * does; a Quantity is "0" and an IntOrString 0; what Go writes as null stays null.
 */
function nullField(f: GoField): unknown {
  switch (f.cls) {
    case "":
    case "o":
    case "s":
      return DROP;
    case "z":
      return scalarZero(f.code);
    case "q":
      return "0";
    case "i":
      return 0;
    default:
      return null; // n, t, r, d
  }
}

/** The zero value of a scalar type code, or null where Go's zero is written null (or is no scalar). */
function scalarZero(code: string): unknown {
  switch (code) {
    case "string":
      return "";
    case "int32":
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    case "quantity":
      return "0";
    case "int-or-string":
      return 0;
    default:
      return null;
  }
}

/**
 * A list's or map's null elements of a scalar type, as Go decodes them: its zero (`args: [null]`
 * is `[""]`, a label's null value `""`, a limit's null "0"). Elements of structs are zeroed by the
 * walk, which knows their shape; any other element (JSON, a list) stays null.
 */
function zeroNullItems(x: unknown[] | Obj, zero: unknown): void {
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) if (x[i] === null) x[i] = zero;
  } else {
    for (const k in x) if (x[k] === null && Object.hasOwn(x, k)) x[k] = zero;
  }
}

function isEmptyObject(o: Obj): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return false;
  return true;
}

const adds = new Map<string, boolean>();
const OBJECT_META = "@meta.v1.ObjectMeta";

/**
 * Whether Go's encoding can add a field to a value of `short` that it was sent without: a field
 * written when unset, in the struct or in one it holds. A ConfigMap's cannot (encoding it for
 * managedFields would change nothing); a Deployment's can (`strategy: {}`, a condition's null times).
 */
export function goEncodingAdds(short: string): boolean {
  let known = adds.get(short);
  if (known !== undefined) return known;
  // ObjectMeta's own fields are all omitted unset, and what Go writes of an owner reference
  // (apiVersion, kind, name, uid) validation requires; its managedFields are nobody's.
  if (short === "meta.v1.ObjectMeta") return false;
  // In progress: a struct that holds itself (JSONSchemaProps) adds what its other fields add.
  adds.set(short, false);
  const struct = goStruct(short);
  // An object always has its metadata: the struct value Go writes is there already.
  known =
    struct !== undefined &&
    (struct.always.some((f) => f.code !== OBJECT_META) || struct.fields.some((f) => shapeAdds(f.shape)));
  adds.set(short, known);
  return known;
}

function shapeAdds(shape: Shape | null): boolean {
  if (shape === null) return false;
  if (shape.k === "struct") return goEncodingAdds(shape.short);
  return shapeAdds(shape.item);
}

/** Built-in definitions by kind (`apps/v1/Deployment`), built on first use: the table is parsed then. */
let shortByKind: Map<string, string> | undefined;

function shortOfKind(key: string): string | undefined {
  if (shortByKind === undefined) {
    shortByKind = new Map();
    for (const [short, def] of Object.entries(builtinCompactDefinitions())) {
      if (def.gvk) shortByKind.set(def.gvk.join("/"), short);
    }
  }
  return shortByKind.get(key);
}

/** The definition of a built-in kind (`apps.v1.Deployment`), if the server describes it. */
export function goDefinitionOf(group: string, version: string, kind: string): string | undefined {
  const short = shortOfKind(`${group}/${version}/${kind}`);
  return short !== undefined && goFields(short) ? short : undefined;
}
