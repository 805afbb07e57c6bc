// Quantities (`resources.limits.cpu`, `storage`, `sizeLimit`) as kube stores them: a Go
// resource.Quantity always serializes as a string in canonical form, so a number in the request
// (`cpu: 1`, `cpu: 0.5`) comes back as "1" or "500m", and a string as Go writes it back ("0.5" →
// "500m", "1.5Gi" → "1536Mi", controller-runtime/api's canonicalQuantityText). Text that is no quantity is left for validation.
import type { ResourceDefinition } from "../registry/index.js";
import { isObject, type Schema, SchemaResolver } from "../schema/index.js";
import type { Obj } from "../storage/index.js";
import { canonicalQuantityText } from "controller-runtime/api";

const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const QUANTITY_REF = `#/definitions/${QUANTITY}`;

/** Decimal SI suffixes by power of ten, as kube's canonical form picks them. */
const SUFFIXES: Record<number, string> = {
  [-9]: "n",
  [-6]: "u",
  [-3]: "m",
  0: "",
  3: "k",
  6: "M",
  9: "G",
  12: "T",
  15: "P",
  18: "E",
};

/** A JSON number as the canonical string of the Quantity it decodes to: 0.5 → "500m", 1000 → "1k". */
export function canonicalQuantity(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n === 0) return "0";
  const sign = n < 0 ? "-" : "";
  // Digits and exponent of |n| = digits × 10^exp, without trailing zeros.
  const [mantissa, expPart] = Math.abs(n).toExponential().split("e");
  let digits = mantissa.replace(".", "");
  let exp = Number(expPart) - (digits.length - 1);
  while (digits.length > 1 && digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    exp++;
  }
  let scale = Math.floor(exp / 3) * 3;
  if (scale > 18) scale = 18;
  if (scale < -9) {
    // Below nano, kube rounds up to the next nano.
    const nanos = Math.ceil(Math.abs(n) * 1e9);
    return `${sign}${nanos}n`;
  }
  const value = BigInt(digits) * 10n ** BigInt(exp - scale);
  return `${sign}${value}${SUFFIXES[scale]}`;
}

/** A Quantity field's value as kube writes it back; other values as they are. */
function canonical(v: unknown): unknown {
  if (typeof v === "number") return canonicalQuantity(v);
  if (typeof v === "string") return canonicalQuantityText(v) ?? v;
  return v;
}

/** Turns the values at Quantity fields of a built-in object into kube's canonical strings. */
export function canonicalizeQuantities(def: ResourceDefinition, obj: Obj): void {
  const root = def.schema as Schema | undefined;
  // Most kinds (ConfigMaps, Secrets, ...) reach no Quantity: nothing to walk.
  if (root?.definitions?.[QUANTITY] === undefined) return;
  walk(obj, root, new SchemaResolver(root));
}

function walk(value: unknown, schema0: Schema, r: SchemaResolver): void {
  const schema = r.resolve(schema0);
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined || Array.isArray(items)) return;
    for (let i = 0; i < value.length; i++) {
      if (items.$ref === QUANTITY_REF) value[i] = canonical(value[i]);
      else walk(value[i], items, r);
    }
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    const raw =
      schema.properties?.[key] ??
      (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (raw === undefined) continue;
    const v = value[key];
    if (raw.$ref === QUANTITY_REF) {
      value[key] = canonical(v);
    } else if (v !== null && typeof v === "object") walk(v, raw, r);
  }
}
