// Go's fmt %v of decoded JSON, for error messages that quote kube-apiserver's.
import { kindOf } from "./json.js";

export function goTypeName(v: unknown): string {
  const k = kindOf(v);
  return k === "boolean" ? "bool" : k === "null" ? "null" : k;
}

/** Literal text among the values goFormat's stack still has to print. */
class Text {
  constructor(readonly text: string) {}
}

/** Go's %v of a decoded JSON value, for messages that quote kube's. Iterative: values may nest deep. */
export function goFormat(v: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Text) out.push(x.text);
    else if (x === null || x === undefined) out.push("<nil>");
    else if (Array.isArray(x)) {
      out.push("[");
      stack.push(new Text("]"));
      for (let i = x.length - 1; i >= 0; i--) {
        stack.push(x[i]);
        if (i > 0) stack.push(new Text(" "));
      }
    } else if (typeof x === "object") {
      const o = x as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      out.push("map[");
      stack.push(new Text("]"));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(o[keys[i]], new Text(`${keys[i]}:`));
        if (i > 0) stack.push(new Text(" "));
      }
    } else out.push(String(x));
  }
  return out.join("");
}

/** Go's reflect type of a value decoded from JSON into interface{} (integers kept as int64, as kube decodes). */
export function goReflectType(v: unknown): string {
  if (v === null || v === undefined) return "%!s(<nil>)";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  if (typeof v === "boolean") return "bool";
  return "string";
}
