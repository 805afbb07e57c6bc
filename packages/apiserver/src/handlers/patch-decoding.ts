// What kube answers when a patched object does not decode into its Go type: not the 400 of a
// body that cannot be read, but a 422 on the field `patch` whose value is the patched object
// (JSON and merge patches: the JSON text; strategic merge patches: the patch, as Go's %+v prints
// a map). Strict field validation's refusals of a patch take the same shape.
import { goV } from "../object/go-print.js";
import { ApiError } from "../status.js";

export function patchInvalid(value: string, detail: string): ApiError {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  return new ApiError(422, "Invalid", ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: "FieldValueInvalid", message, field: "patch" }],
  });
}

/** Go's fmt %+v of a value decoded from JSON into interface{} (maps print with sorted keys). */
export function goPrint(value: unknown): string {
  return goV(value);
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

/** evanphx's pruneAryNulls: nulls leave the objects inside a list, not the list itself. Iterative. */
export function pruneNulls(v: unknown): unknown {
  if (v === null || typeof v !== "object") return v;
  const root: unknown = Array.isArray(v) ? [] : {};
  const stack: [unknown, unknown][] = [[v, root]];
  while (stack.length > 0) {
    const [src, out] = stack.pop()!;
    const entries: [string | number, unknown][] = Array.isArray(src)
      ? src.map((x, i) => [i, x])
      : Object.entries(src as object);
    for (const [k, x] of entries) {
      if (x === null && !Array.isArray(src)) continue;
      let value = x;
      if (x !== null && typeof x === "object") {
        value = Array.isArray(x) ? [] : {};
        stack.push([x, value]);
      }
      if (Array.isArray(out)) out.push(value);
      else (out as Record<string, unknown>)[k as string] = value;
    }
  }
  return root;
}
