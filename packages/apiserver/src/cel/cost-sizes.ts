// Sizes for the static cost of CRD rules (cost.ts), as kube's size estimator reads them from a
// CRD's schema (DeclType.MaxElements, MinSerializedSize and MaxCardinality in k8s.io/apiserver's
// cel package): what the largest object a request may carry can hold at a node of the schema.
import type { Schema } from "../schema/schema-types.js";
import { escapeProperty, unescapeProperty } from "./escaping.js";

/** kube's MaxRequestSizeBytes: the largest object a request may carry. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** Go's math.MaxUint64, where estimates saturate. */
export const MAX = 2 ** 64;

/** A cost or a size: cel-go's CostEstimate and SizeEstimate. */
export interface Range {
  min: number;
  max: number;
}

const add = (a: number, b: number) => Math.min(MAX, a + b);
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(MAX, a * b));
export const plus = (a: Range, b: Range): Range => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
export const times = (a: Range, b: Range): Range => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });
/** cel-go's MultiplyByCostFactor: each bound times `f`, rounded up. */
export const factor = (a: Range, f: number): Range => ({
  min: Math.min(MAX, Math.ceil(a.min * f)),
  max: Math.min(MAX, Math.ceil(a.max * f)),
});
export const union = (a: Range, b: Range): Range => ({
  min: Math.min(a.min, b.min),
  max: Math.max(a.max, b.max),
});
export const fixed = (n: number): Range => ({ min: n, max: n });
/** cel-go's unknown size: anything up to MaxUint64. */
export const UNKNOWN_SIZE: Range = { min: 0, max: MAX };

/** The serialized size of the smallest value of `s` (kube's DeclType.MinSerializedSize). */
function minSize(root: Schema): number {
  // Post-order with a stack: required fields may nest 10 000 levels.
  const sizes = new Map<Schema, number>();
  const requiredFields = (s: Schema) => {
    const required = new Set(s.required ?? []);
    return Object.entries(s.properties ?? {}).filter(
      ([name, p]) => required.has(name) && p.default === undefined,
    );
  };
  const stack: [Schema, boolean][] = [[root, false]];
  while (stack.length > 0) {
    const [s, expanded] = stack.pop()!;
    const object =
      !s["x-kubernetes-int-or-string"] && s.type === "object" && typeof s.additionalProperties !== "object";
    if (object && !expanded) {
      stack.push([s, true]);
      for (const [, p] of requiredFields(s)) stack.push([p, false]);
      continue;
    }
    let size = ownMinSize(s);
    if (object) for (const [name, p] of requiredFields(s)) size += name.length + sizes.get(p)! + 4;
    sizes.set(s, size);
  }
  return sizes.get(root)!;
}

/** minSize of a node, without its required fields. */
function ownMinSize(s: Schema): number {
  if (s["x-kubernetes-int-or-string"]) return 1;
  switch (s.type) {
    case "string":
      if (s.format === "duration") return 4;
      if (s.format === "date") return 12;
      if (s.format === "date-time") return 22;
      return 2;
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return 4;
    default:
      return 2;
  }
}

/** The largest size of a value of `s`, as kube's DeclType.MaxElements: lengths and counts. */
export function schemaSize(s: Schema): Range {
  const ext = s as Record<string, unknown>;
  if (s["x-kubernetes-int-or-string"]) {
    return typeof ext.maxLength === "number"
      ? { min: 0, max: (ext.maxLength as number) * 4 }
      : { min: 0, max: MAX_REQUEST_BYTES - 2 };
  }
  switch (s.type) {
    case "string": {
      if (s.format === "duration") return { min: 0, max: 32 };
      if (s.format === "date") return { min: 0, max: 12 };
      if (s.format === "date-time") return { min: 0, max: 64 };
      if (typeof s.maxLength === "number")
        return { min: 0, max: s.maxLength * (s.format === "byte" ? 1 : 4) };
      if (Array.isArray(s.enum) && s.enum.length > 0) {
        return { min: 0, max: Math.max(...s.enum.map((v) => (typeof v === "string" ? v.length : 0))) };
      }
      return { min: 0, max: MAX_REQUEST_BYTES - 2 };
    }
    case "array": {
      const items = s.items && !Array.isArray(s.items) ? s.items : {};
      const max =
        typeof s.maxItems === "number"
          ? s.maxItems
          : Math.floor((MAX_REQUEST_BYTES - 2) / (minSize(items) + 1));
      return { min: 0, max };
    }
    case "object": {
      if (typeof s.additionalProperties !== "object") return fixed(0);
      const max =
        typeof s.maxProperties === "number"
          ? s.maxProperties
          : Math.floor((MAX_REQUEST_BYTES - 2) / (minSize(s.additionalProperties) + 6));
      return { min: 0, max };
    }
    default:
      return fixed(0);
  }
}

/** How many nodes of `s` a request can carry when it sits under collections of no bound. */
export function maxCardinality(s: Schema): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSize(s) + 1));
}

/** The schema a select of `field` reaches from `s`. */
export function field(s: Schema | undefined, name: string, root: boolean): Schema | undefined {
  if (!s) return undefined;
  // The rule's own node declares these when it is the schema's root; an embedded resource always.
  root ||= s["x-kubernetes-embedded-resource"] === true;
  if (root && name === "metadata") {
    return { type: "object", properties: { name: { type: "string" }, generateName: { type: "string" } } };
  }
  if (root && (name === "apiVersion" || name === "kind")) return { type: "string" };
  const p = s.properties?.[unescapeProperty(name)];
  // A map's values are reached by index (`m['k']`, path @values), not by select: kube's map type
  // declares no fields.
  return p && escapeProperty(unescapeProperty(name)) === name ? p : undefined;
}

/** The schema of a list's items (path @items) or a map's values (@values), if `s` is one. */
export function elementSchema(s: Schema | undefined): Schema | undefined {
  if (!s) return undefined;
  if (s.type === "array") return s.items && !Array.isArray(s.items) ? s.items : undefined;
  return typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
}

/** A map's keys (path @keys): kube's plain string type, of size 0 (it declares no MaxElements). */
export const MAP_KEY: Schema = { type: "string", maxLength: 0 };
