// Small helpers over plain JSON values, written for speed: the server runs them on every PATCH.

export type JSONValue = null | boolean | number | string | JSONValue[] | JSONObject;
export interface JSONObject {
  [key: string]: JSONValue;
}

export function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A deep copy of a JSON value (undefined members are dropped, as JSON does). Iterative: values
 * may nest as deep as kube accepts (10 000 levels).
 */
export function cloneJSON<T>(v: T): T {
  if (typeof v !== "object" || v === null) return v;
  const root: JSONValue = Array.isArray(v) ? [] : {};
  const stack: [unknown, JSONValue][] = [[v, root]];
  while (stack.length > 0) {
    const [src, out] = stack.pop()!;
    if (Array.isArray(src)) {
      const list = out as JSONValue[];
      for (let i = 0; i < src.length; i++) {
        const x = src[i];
        if (typeof x !== "object" || x === null) list.push(x);
        else {
          const copy: JSONValue = Array.isArray(x) ? [] : {};
          list.push(copy);
          stack.push([x, copy]);
        }
      }
      continue;
    }
    const obj = out as JSONObject;
    for (const k of Object.keys(src as object)) {
      const x = (src as Record<string, unknown>)[k];
      if (x === undefined) continue;
      if (typeof x !== "object" || x === null) setOwn(obj, k, x as JSONValue);
      else {
        const copy: JSONValue = Array.isArray(x) ? [] : {};
        setOwn(obj, k, copy);
        stack.push([x, copy]);
      }
    }
  }
  return root as T;
}

/** Deep equality of JSON values; key order is ignored. Iterative, as cloneJSON. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const kx = Object.keys(x);
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as JSONObject)[k], (y as JSONObject)[k]]);
    }
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
