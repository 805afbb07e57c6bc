// Go's fmt %v of decoded JSON, for error messages that quote kube-apiserver's.
import { kindOf } from "./json.js";

export function goTypeName(v: unknown): string {
  const k = kindOf(v);
  return k === "boolean" ? "bool" : k === "null" ? "null" : k;
}

/** Go's %v of a decoded JSON value, for messages that quote kube's. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goFormat).join(" ")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort()
      .map((k) => `${k}:${goFormat(o[k])}`)
      .join(" ")}]`;
  }
  return String(v);
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
