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
