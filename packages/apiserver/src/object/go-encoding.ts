// Built-in objects as Go's encoder writes kube's structs: keys in declaration order, map keys
// sorted, and the fields Go writes even when unset (a struct value is never omitted: a
// Deployment always has `status: {}`; a field without omitempty is written as its zero value:
// an Event's `reportingComponent: ""`, a Time's `null`). The facts come from k8s.io/api's
// types.go (go-fields.generated.ts); the property types from the built-in schemas.
import { builtinCompactDefinitions } from "../schema/builtin-schemas.generated.js";
import { goFieldTable } from "../schema/go-fields.generated.js";
import type { Obj } from "../storage/index.js";

interface GoField {
  name: string;
  /** What Go writes when the field is unset (see gen-go-fields.ts), "" for nothing. */
  cls: string;
  /** The schema's type code of the field (`@core.v1.PodSpec`, `[]string`, `{}string`, ...). */
  code: string;
}

const parsed = new Map<string, GoField[] | null>();

/** The Go fields of a definition (short name: `apps.v1.DeploymentSpec`), if known. */
function goFields(short: string): GoField[] | undefined {
  let fields = parsed.get(short);
  if (fields === undefined) {
    const spec = goFieldTable()[short];
    const props = (builtinCompactDefinitions()[short]?.properties ?? {}) as Record<string, string>;
    fields =
      spec === undefined
        ? null
        : spec.split(" ").map((entry) => {
            const [name, cls = ""] = entry.split(":");
            return { name, cls, code: props[name] ?? "" };
          });
    parsed.set(short, fields);
  }
  return fields ?? undefined;
}

/** Sets a key as JSON.parse does: a map's `__proto__` is a key like any other, not the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Only `__proto__` is an accessor on Object.prototype: any other key is assigned as it is
  // (defineProperty costs every map key of every write several times an assignment).
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const isPlainObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

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
      return f.code === "integer" || f.code === "number" ? 0 : f.code === "boolean" ? false : "";
    default:
      return null; // n, t, r
  }
}

/** An unset struct as Go writes it: only the fields it always writes. */
export function zeroStruct(short: string): Obj {
  const out: Obj = {};
  for (const f of goFields(short) ?? []) if (f.cls) out[f.name] = zeroOf(f);
  return out;
}

function encodeValue(v: unknown, code: string): unknown {
  if (code.startsWith("@"))
    return isPlainObject(v) && goFields(code.slice(1)) ? encodeStruct(code.slice(1), v) : v;
  if (code.startsWith("[]")) return Array.isArray(v) ? v.map((x) => encodeValue(x, code.slice(2))) : v;
  if (code.startsWith("{}") && isPlainObject(v)) {
    // Go writes map keys sorted.
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) setOwn(out, k, encodeValue(v[k], code.slice(2)));
    return out;
  }
  return v;
}

function isEmptyCollection(v: unknown, code: string): boolean {
  if (code.startsWith("[]")) return Array.isArray(v) && v.length === 0;
  if (code.startsWith("{}")) return isPlainObject(v) && Object.keys(v).length === 0;
  return false;
}

/** `value` (an object of the definition `short`) in Go's order, with what Go always writes. */
export function encodeStruct(short: string, value: Obj): Obj {
  const fields = goFields(short);
  if (!fields) return value;
  const out: Obj = {};
  for (const f of fields) {
    const v = value[f.name];
    if (isEmptyCollection(v, f.code)) {
      // etcd keeps objects as protobuf, where an empty list or map is no list or map: Go reads
      // it back nil, written null without omitempty and left out with it.
      if (f.cls === "n") out[f.name] = null;
      continue;
    }
    if (v === undefined || (v === null && f.cls === "s")) {
      if (f.cls) out[f.name] = zeroOf(f);
    } else out[f.name] = encodeValue(v, f.code);
  }
  for (const k in value)
    if (Object.hasOwn(value, k) && !Object.hasOwn(out, k) && value[k] !== undefined) setOwn(out, k, value[k]);
  return out;
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
