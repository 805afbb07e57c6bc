// ValidateImmutableField, as kube's ValidateXUpdate functions apply it: a field that differs from
// the stored object's is "field is immutable", its new value shown.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";

/** Whether `v` is what Go decodes an absent field to: nil, "", 0, false, or an empty list or map. */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === "" || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  return (
    typeof v === "object" && Object.keys(v).every((k) => (v as Record<string, unknown>)[k] === undefined)
  );
}

/**
 * apiequality.Semantic.DeepEqual over JSON: an absent field equals its zero value (Go decodes
 * both the same), nil and empty lists and maps are equal.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isZero(a) && isZero(b)) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => semanticEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)]))
    if (!semanticEqual(ao[k], bo[k])) return false;
  return true;
}

/** ValidateImmutableField: nothing, or `path`'s "field is immutable" showing `shown` (the new value). */
export function immutableField(
  path: string,
  now: unknown,
  was: unknown,
  shown: unknown = now,
): StatusCause[] {
  return semanticEqual(now, was) ? [] : [cause.invalid(path, shown ?? null, "field is immutable")];
}

/** The same for a field kube compares as bytes (a RawExtension): every difference counts. */
export function immutableRaw(path: string, now: unknown, was: unknown): StatusCause[] {
  return JSON.stringify(now ?? null) === JSON.stringify(was ?? null)
    ? []
    : [cause.invalid(path, now ?? null, "field is immutable")];
}
