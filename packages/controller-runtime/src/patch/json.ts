// Small helpers over plain JSON values, written for speed: the server runs them on every PATCH.

export type JSONValue = null | boolean | number | string | JSONValue[] | JSONObject;
export interface JSONObject {
  [key: string]: JSONValue;
}

export function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A deep copy of a JSON value (undefined members are dropped, as JSON does). */
export function cloneJSON<T>(v: T): T {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(cloneJSON) as T;
  const out: JSONObject = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) setOwn(out, k, cloneJSON(x) as JSONValue);
  }
  return out as T;
}

/** Deep equality of JSON values; key order is ignored. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !jsonEqual((a as JSONObject)[k], (b as JSONObject)[k])) return false;
  }
  return true;
}

/** An own member, never one inherited from Object.prototype (`__proto__`, `constructor`). */
export function getOwn(o: JSONObject, k: string): JSONValue | undefined {
  return Object.hasOwn(o, k) ? o[k] : undefined;
}

/** Sets an own member; `__proto__` from untrusted input becomes data, not a prototype. */
export function setOwn(o: JSONObject, k: string, v: JSONValue): void {
  if (k === "__proto__")
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** The JSON type name of a value, as Go's reflect kinds distinguish them. */
export function kindOf(v: unknown): "object" | "array" | "string" | "number" | "boolean" | "null" {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v as "object" | "string" | "number" | "boolean";
}
