// CEL's conversions from strings, and of doubles to strings, as cel-go (kube 1.37.2's v0.29.2,
// common/types/string.go and double.go) does them, in place of @bufbuild/cel's: int(), uint(),
// double() and bool() of a string parse with Go's strconv, so int(" 42"), int(""), int("0x10") and
// uint("+1") are errors there (JavaScript's BigInt takes each), double("inf") is +Inf and
// double("1e400") an error (Number gives NaN and Infinity), bool("T") is true, duration() is Go's time.ParseDuration ("" is none); a failed parse, an
// out-of-range one included, is "type conversion error from 'string' to 'int'". string() of a
// double is Go's %g: 1e+06, 1e-05, +Inf, -0 (JavaScript writes 1000000, 0.00001, Infinity, 0).
import { type CelFunc, CelScalar, celError, celFunc, celUint, objectType } from "@bufbuild/cel";
import { create } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import { parseGoDuration } from "controller-runtime/api";

const { BOOL, DOUBLE, INT, STRING, UINT } = CelScalar;

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;
const MAX_UINT = 18446744073709551615n;

function conversionError(to: string): Error {
  return celError(`type conversion error from 'string' to '${to}'`);
}

/** strconv.ParseInt(s, 10, 64): an optional sign and decimal digits, nothing else. */
export function parseGoInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= MIN_INT && n <= MAX_INT ? n : undefined;
}

/** strconv.ParseUint(s, 10, 64): decimal digits only (no sign). */
export function parseGoUint(s: string): bigint | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n <= MAX_UINT ? n : undefined;
}

/** strconv's underscoreOK: each underscore between two digits (a base prefix counts as one). */
function underscoresOK(s: string): boolean {
  let body = s.replace(/^[+-]/, "");
  let hex = false;
  let saw = "^";
  if (/^0[box]/i.test(body)) {
    hex = body[1]!.toLowerCase() === "x";
    body = body.slice(2);
    saw = "0";
  }
  for (const c of body) {
    if ((c >= "0" && c <= "9") || (hex && /[a-f]/i.test(c))) saw = "0";
    else if (c === "_") {
      if (saw !== "0") return false;
      saw = "_";
    } else {
      if (saw === "_") return false;
      saw = "!";
    }
  }
  return saw !== "_";
}

const DECIMAL_FLOAT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))[pP]([+-]?[0-9]+)$/;
const SPECIAL = /^(?:([+-]?)(?:inf|infinity)|nan)$/i;

/**
 * strconv.ParseFloat(s, 64): decimal or hexadecimal (with its p exponent) notation, underscores
 * between digits, inf/infinity/nan in any case; undefined for anything else and for a finite
 * number out of float64's range (Go's ErrRange).
 */
export function parseGoFloat(s: string): number | undefined {
  const special = SPECIAL.exec(s);
  if (special)
    return s.toLowerCase().endsWith("nan") ? Number.NaN : special[1] === "-" ? -Infinity : Infinity;
  if (s.includes("_")) {
    if (!underscoresOK(s)) return undefined;
    s = s.replaceAll("_", "");
  }
  let value: number;
  if (DECIMAL_FLOAT.test(s)) value = Number(s);
  else {
    const hex = HEX_FLOAT.exec(s);
    if (!hex) return undefined;
    const [, sign, mantissa, exp] = hex;
    const dot = mantissa!.indexOf(".");
    const digits = mantissa!.replace(".", "");
    const fraction = dot < 0 ? 0 : mantissa!.length - dot - 1;
    // Exact while the mantissa fits 53 bits (every hex float a person writes); scaling by a
    // power of two is exact short of overflow and subnormals.
    value = Number(BigInt(`0x${digits}`)) * 2 ** (Number(exp) - 4 * fraction);
    if (Number.isNaN(value)) value = 0; // 0 * Infinity: a zero mantissa with a huge exponent
    if (sign === "-") value = -value;
  }
  return Number.isFinite(value) ? value : undefined;
}

/** strconv.ParseBool. */
function parseGoBool(s: string): boolean | undefined {
  switch (s) {
    case "1":
    case "t":
    case "T":
    case "TRUE":
    case "true":
    case "True":
      return true;
    case "0":
    case "f":
    case "F":
    case "FALSE":
    case "false":
    case "False":
      return false;
  }
  return undefined;
}

/** fmt.Sprintf("%g", x): the shortest digits, in exponent form below 1e-4 and from 1e+06. */
export function formatGoDouble(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "+Inf";
  if (x === -Infinity) return "-Inf";
  if (x === 0) return Object.is(x, -0) ? "-0" : "0";
  // toExponential() without digits gives the shortest that reads back as x, as Go's 'g' -1.
  const [mantissa, e] = x.toExponential().split("e") as [string, string];
  const exp = Number(e);
  // Between these, JavaScript's own notation is Go's: plain digits, no exponent.
  if (exp >= -4 && exp < 6) return String(x);
  const sign = exp < 0 ? "-" : "+";
  const digits = String(Math.abs(exp)).padStart(2, "0");
  return `${mantissa}e${sign}${digits}`;
}

export const conversionLibrary: CelFunc[] = [
  celFunc("int", [STRING], INT, (s: string) => parseGoInt(s) ?? throwError(conversionError("int"))),
  celFunc("uint", [STRING], UINT, (s: string) => {
    const n = parseGoUint(s);
    if (n === undefined) throw conversionError("uint");
    return celUint(n);
  }),
  celFunc(
    "double",
    [STRING],
    DOUBLE,
    (s: string) => parseGoFloat(s) ?? throwError(conversionError("double")),
  ),
  celFunc("bool", [STRING], BOOL, (s: string) => parseGoBool(s) ?? throwError(conversionError("bool"))),
  celFunc("string", [DOUBLE], STRING, formatGoDouble),
  // Go's time.ParseDuration: "" and "5" are errors (@bufbuild/cel reads "" as 0s).
  celFunc("duration", [STRING], objectType(DurationSchema), (s: string) => {
    const ms = parseGoDuration(s);
    if (ms === undefined) throw conversionError("google.protobuf.Duration");
    const seconds = Math.trunc(ms / 1000);
    return create(DurationSchema, {
      seconds: BigInt(seconds),
      nanos: Math.round((ms - seconds * 1000) * 1e6),
    });
  }),
];

function throwError(e: Error): never {
  throw e;
}
