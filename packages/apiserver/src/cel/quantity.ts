// Kubernetes' CEL quantity library (k8s.io/apiserver/pkg/cel/library/quantity.go, kube 1.29+):
// quantity(), isQuantity() and a Quantity's sign, comparisons, add/sub and conversions, with
// resource.ParseQuantity's grammar, errors and rounding (non-zero values rounded away from zero
// to the nano; BinarySI capped at 2^63-1). A Quantity is exact: a bigint times a power of ten.
// @bufbuild/cel has no user-defined value types, so a Quantity travels as a one-entry map whose
// key no JSON object carries and whose value is its normalized value: two quantities are `==`
// exactly when their values are, as kube's Quantity.Equal says (`quantity('1Gi') ==
// quantity('1073741824')`).
import { type CelFunc, type CelMap, CelScalar, celError, celFunc, celMethod, mapType } from "@bufbuild/cel";
import { tagged, untag } from "./tagged.js";

/** A value N × 10^scale, normalized (N carries no trailing zero unless it is 0, then scale 0). */
export interface Amount {
  readonly n: bigint;
  readonly scale: number;
}

const KEY = "\u0000k8s.io/quantity";
const MAP = mapType(CelScalar.STRING, CelScalar.STRING); // a tagged value (tagged.ts)
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

const FORMAT_WRONG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

function normalize(n: bigint, scale: number): Amount {
  if (n === 0n) return { n: 0n, scale: 0 };
  while (n % 10n === 0n) {
    n /= 10n;
    scale++;
  }
  return { n, scale };
}

/** resource.ParseQuantity, to an exact amount; throws its errors. */
export function parseQuantity(text: string): Amount {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (!m || text === "") throw new Error(FORMAT_WRONG);
  const [, sign, whole = "", frac = "", suffix = ""] = m;
  if (whole === "" && frac === "") throw new Error(FORMAT_WRONG);
  let n = BigInt(`${whole}${frac}` || "0");
  let scale = frac.length === 0 ? 0 : -frac.length;
  let binary = false;
  if (suffix in DECIMAL) scale += DECIMAL[suffix]!;
  else if (suffix in BINARY) {
    n <<= BigInt(BINARY[suffix]!);
    binary = true;
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    const e = Number(suffix.slice(1));
    if (!Number.isSafeInteger(e) || Math.abs(e) > 2 ** 31 - 1)
      throw new Error("unable to parse quantity's suffix");
    scale += e;
  } else if (/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix))
    throw new Error("unable to parse quantity's suffix");
  else throw new Error(FORMAT_WRONG);
  // Non-zero values round away from zero to the nano (kube: "if you want some resources, you
  // should get some resources").
  if (n !== 0n && scale < -9 && -9 - scale > n.toString().length) {
    // Far below the nano (exponents reach -2^31) the amount rounds up to one: no 10^huge is built.
    n = 1n;
    scale = -9;
  }
  if (n !== 0n && scale < -9) {
    const drop = 10n ** BigInt(-9 - scale);
    n = n % drop === 0n ? n / drop : n / drop + 1n;
    scale = -9;
  }
  if (binary && n > INT64_MAX && scale >= 0) n = INT64_MAX; // BinarySI is capped at 2^63-1
  return normalize(sign === "-" ? -n : n, scale);
}

/**
 * A gap of scales past which two amounts are not put on one scale: exponents reach ±2^31, and
 * 10^(2·10^8) alone takes V8 most of a minute to build (a stalled request). Below it, 10^gap is
 * instant.
 */
const MAX_EXACT_GAP = 4096;

/** Two amounts on one scale (the smaller), for comparing and adding. */
function aligned(a: Amount, b: Amount): [bigint, bigint, number] {
  const scale = Math.min(a.scale, b.scale);
  return [a.n * 10n ** BigInt(a.scale - scale), b.n * 10n ** BigInt(b.scale - scale), scale];
}

/** Decimal digits left of the point, as the place of the amount's first digit: 1 for 1-9. */
function magnitude(a: Amount): number {
  return (a.n < 0n ? -a.n : a.n).toString().length + a.scale;
}

/** a <=> b, exactly; far-apart scales are compared by magnitude, which decides them. */
export function compareAmounts(a: Amount, b: Amount): number {
  const sa = a.n > 0n ? 1 : a.n < 0n ? -1 : 0;
  const sb = b.n > 0n ? 1 : b.n < 0n ? -1 : 0;
  if (sa !== sb) return sa < sb ? -1 : 1;
  if (sa === 0) return 0;
  const ma = magnitude(a);
  const mb = magnitude(b);
  // Different magnitudes decide; equal ones mean the gap is at most the digits sent.
  if (ma !== mb) return ma < mb ? -sa : sa;
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a + b exactly; throws a RangeError when the exact sum would need scales too far apart. */
export function addAmounts(a: Amount, b: Amount): Amount {
  if (a.n === 0n) return b;
  if (b.n === 0n) return a;
  if (Math.abs(a.scale - b.scale) > MAX_EXACT_GAP)
    throw new RangeError("quantities too far apart in scale to add exactly");
  const [x, y, scale] = aligned(a, b);
  return normalize(x + y, scale);
}

const compare = compareAmounts;

/** The amount as an int64, when it is a whole number in range. */
function asInt64(a: Amount): bigint | undefined {
  if (a.scale < 0 || (a.n !== 0n && magnitude(a) > 19)) return undefined;
  const v = a.n * 10n ** BigInt(a.scale);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}

function toCel(a: Amount): CelMap {
  return tagged(KEY, `${a.n}e${a.scale}`);
}

function fromCel(v: unknown): Amount {
  const text = untag(v, KEY);
  const at = text.indexOf("e");
  return { n: BigInt(text.slice(0, at)), scale: Number(text.slice(at + 1)) };
}

const sum = (a: Amount, b: Amount, sign: 1n | -1n): CelMap => {
  try {
    return toCel(addAmounts(a, sign === 1n ? b : { n: -b.n, scale: b.scale }));
  } catch (e) {
    throw celError(e instanceof Error ? e.message : String(e));
  }
};

export const quantityLibrary: CelFunc[] = [
  celFunc("quantity", [CelScalar.STRING], MAP, (s: string) => {
    try {
      return toCel(parseQuantity(s));
    } catch (e) {
      throw celError((e as Error).message);
    }
  }),
  celFunc("isQuantity", [CelScalar.STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  }),
  // kube declares sign as a global function only: `sign(quantity(x))`, never `quantity(x).sign()`.
  celFunc("sign", [MAP], CelScalar.INT, (q: CelMap) => {
    const n = fromCel(q).n;
    return n > 0n ? 1n : n < 0n ? -1n : 0n;
  }),
  celMethod("isGreaterThan", MAP, [MAP], CelScalar.BOOL, function (this: CelMap, other: CelMap) {
    return compare(fromCel(this), fromCel(other)) === 1;
  }),
  celMethod("isLessThan", MAP, [MAP], CelScalar.BOOL, function (this: CelMap, other: CelMap) {
    return compare(fromCel(this), fromCel(other)) === -1;
  }),
  celMethod("compareTo", MAP, [MAP], CelScalar.INT, function (this: CelMap, other: CelMap) {
    return BigInt(compare(fromCel(this), fromCel(other)));
  }),
  celMethod("asApproximateFloat", MAP, [], CelScalar.DOUBLE, function (this: CelMap) {
    const a = fromCel(this);
    return Number(a.n) * 10 ** a.scale;
  }),
  celMethod("isInteger", MAP, [], CelScalar.BOOL, function (this: CelMap) {
    return asInt64(fromCel(this)) !== undefined;
  }),
  celMethod("asInteger", MAP, [], CelScalar.INT, function (this: CelMap) {
    const v = asInt64(fromCel(this));
    if (v === undefined) throw celError("cannot convert value to integer");
    return v;
  }),
  celMethod("add", MAP, [MAP], MAP, function (this: CelMap, other: CelMap) {
    return sum(fromCel(this), fromCel(other), 1n);
  }),
  celMethod("add", MAP, [CelScalar.INT], MAP, function (this: CelMap, other: bigint) {
    return sum(fromCel(this), normalize(other, 0), 1n);
  }),
  celMethod("sub", MAP, [MAP], MAP, function (this: CelMap, other: CelMap) {
    return sum(fromCel(this), fromCel(other), -1n);
  }),
  celMethod("sub", MAP, [CelScalar.INT], MAP, function (this: CelMap, other: bigint) {
    return sum(fromCel(this), normalize(other, 0), -1n);
  }),
];
