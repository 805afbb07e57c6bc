// Field errors as apimachinery's `field.Error`: a type, a path, the bad value and a detail. They
// become `StatusCause`s and the message of a 422 `Invalid` Status worded exactly as kube words it.
import type { StatusCause } from "kubernetes-types/meta/v1.js";

/** apimachinery's field.ErrorType, as the `reason` of a cause. */
export type FieldErrorType =
  | "FieldValueNotFound"
  | "FieldValueRequired"
  | "FieldValueDuplicate"
  | "FieldValueInvalid"
  | "FieldValueNotSupported"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooShort"
  | "FieldValueTooMany"
  | "FieldValueTooFew"
  | "InternalError"
  | "FieldValueTypeInvalid";

const TYPE_WORDS: Record<FieldErrorType, string> = {
  FieldValueNotFound: "Not found",
  FieldValueRequired: "Required value",
  FieldValueDuplicate: "Duplicate value",
  FieldValueInvalid: "Invalid value",
  FieldValueNotSupported: "Unsupported value",
  FieldValueForbidden: "Forbidden",
  FieldValueTooLong: "Too long",
  FieldValueTooShort: "Too short",
  FieldValueTooMany: "Too many",
  FieldValueTooFew: "Too few",
  InternalError: "Internal error",
  FieldValueTypeInvalid: "Invalid value",
};

export interface FieldError {
  type: FieldErrorType;
  /** `spec.replicas`, `spec.containers[0].image`. */
  field: string;
  /**
   * The offending value; not printed for Required, Forbidden, TooLong, TooShort and InternalError,
   * nor when it is `OMIT_VALUE` (kube's `field.OmitValueType{}`).
   */
  value?: unknown;
  detail?: string;
}

/** A value left out of the message (`Invalid value: <detail>`), as kube's `field.OmitValueType{}`. */
export const OMIT_VALUE: unique symbol = Symbol("omit value");

/** The body of an error without its field, as `field.Error.ErrorBody()`. */
export function errorBody(err: FieldError): string {
  let s: string;
  switch (err.type) {
    case "FieldValueRequired":
    case "FieldValueForbidden":
    case "FieldValueTooLong":
    case "FieldValueTooShort":
    case "InternalError":
      s = TYPE_WORDS[err.type];
      break;
    default:
      s = err.value === OMIT_VALUE ? TYPE_WORDS[err.type] : `${TYPE_WORDS[err.type]}: ${goValue(err.value)}`;
  }
  return err.detail ? `${s}: ${err.detail}` : s;
}

/** A field error as a Status cause: `{reason, message, field}`. */
export function toStatusCause(err: FieldError): StatusCause {
  return { reason: err.type, message: errorBody(err), field: err.field };
}

/**
 * The message of a 422: `Widget.example.com "w2" is invalid: [a: ..., b: ...]`. One cause is
 * printed bare, several in brackets; identical messages are printed once, as apimachinery does.
 */
export function invalidMessage(
  groupKind: { group: string; kind: string },
  name: string,
  causes: readonly StatusCause[],
): string {
  const qualified = groupKind.group ? `${groupKind.kind}.${groupKind.group}` : groupKind.kind;
  const head = `${qualified} ${JSON.stringify(name)} is invalid`;
  const seen = new Set<string>();
  for (const c of causes) seen.add(`${c.field ?? ""}: ${c.message ?? ""}`);
  const msgs = [...seen];
  if (msgs.length === 0) return head;
  return msgs.length === 1 ? `${head}: ${msgs[0]}` : `${head}: [${msgs.join(", ")}]`;
}

/** A value already in Go's `%#v` (a struct kube prints in a cause), printed as it is. */
export class GoSyntax {
  constructor(readonly text: string) {}
}

/**
 * Prints a JSON value as kube's `ErrorBody` does after decoding: scalars with Go's `%v` (strings
 * quoted), maps and slices as `json.Marshal` writes them (map keys sorted). Kube ≤ 1.32 printed
 * maps and slices with `%#v` (`map[string]interface {}{...}`); 1.37 writes JSON.
 */
export function goValue(value: unknown): string {
  if (value instanceof GoSyntax) return value.text;
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      // Go decodes a whole JSON number within int64 as an int64, any other as a float64.
      return Number.isInteger(value) && Math.abs(value) < 2 ** 63 ? String(value) : goFloat(value);
    case "boolean":
      return String(value);
    default:
      return goJSON(value);
  }
}

/**
 * A float64 as Go's `%v` prints it: the shortest digits, in exponent form (two exponent digits at
 * least) when the exponent is below -4 or 6 and above (`1e+06`, `2.5e-05`).
 */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mantissa, exponent] = f.toExponential().split("e");
  const exp = Number(exponent);
  if (exp >= -4 && exp < 6) return String(f);
  return `${mantissa}e${exponent[0]}${exponent.slice(1).padStart(2, "0")}`;
}

/** `json.Marshal` of a decoded value: map keys sorted, as Go's encoder writes a map. */
function goJSON(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(goJSON).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJSON((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}
