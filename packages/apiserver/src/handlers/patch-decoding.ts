// What kube answers when a patched object does not decode into its Go type: not the 400 of a
// body that cannot be read, but a 422 on the field `patch` whose value is the patched object
// (JSON and merge patches: the JSON text; strategic merge patches: the patch, as Go's %+v prints
// a map). Strict field validation's refusals of a patch take the same shape.
import { ApiError } from "../status.js";

export function patchInvalid(value: string, detail: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return new ApiError(422, "Invalid", ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: "FieldValueInvalid", message, field: "patch" }],
  });
}

/** Go's fmt %+v of a value decoded from JSON into interface{} (maps print with sorted keys). */
export function goPrint(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goPrint).join(" ")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${k}:${goPrint((value as Record<string, unknown>)[k])}`);
    return `map[${entries.join(" ")}]`;
  }
  if (typeof value === "number") return goFloat(value);
  return String(value);
}

/** %v of a float64, as JSON numbers decode: exponent form from 1e21 up and below 1e-4. */
function goFloat(n: number): string {
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e21 || abs < 1e-4)) {
    const [mant, exp] = n.toExponential().split("e");
    const e = Number(exp);
    return `${mant}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return String(n);
}

/** encoding/json's name for a JSON value's type (UnmarshalTypeError). */
export function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  if (typeof v === "boolean") return "bool";
  return typeof v === "number" ? "number" : "string";
}

const OP_FIELDS = ["op", "path", "from", "value"];

/**
 * kube's strict decoding of a JSON patch into []handlers.jsonPatchOp (fieldValidation Warn or
 * Strict): the first value of the wrong type is a 400 (as `detail`); unknown fields of an
 * operation (matched exactly) are strict problems, as its duplicates are.
 */
export function jsonPatchOpProblems(
  ops: unknown,
  duplicates: readonly string[],
): { typeError?: string; problems: string[] } {
  if (ops === null) return { problems: [] };
  if (!Array.isArray(ops)) {
    return {
      typeError: `json: cannot unmarshal ${jsonTypeName(ops)} into Go value of type []handlers.jsonPatchOp`,
      problems: [],
    };
  }
  const problems: string[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op === null) continue;
    if (typeof op !== "object" || Array.isArray(op)) {
      return {
        typeError: `json: cannot unmarshal ${jsonTypeName(op)} into Go value of type handlers.jsonPatchOp`,
        problems: [],
      };
    }
    for (const [k, v] of Object.entries(op)) {
      if (!OP_FIELDS.includes(k)) problems.push(`unknown field "[${i}].${k}"`);
      else if (k !== "value" && v !== null && typeof v !== "string") {
        return {
          typeError: `json: cannot unmarshal ${jsonTypeName(v)} into Go struct field jsonPatchOp.${k} of type string`,
          problems: [],
        };
      }
    }
  }
  return { problems: [...problems, ...duplicates.map((d) => `duplicate field "${d}"`)] };
}

/** evanphx's pruneAryNulls: nulls leave the objects inside a list, not the list itself. */
export function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(pruneNulls);
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = pruneNulls(x);
  return out;
}
