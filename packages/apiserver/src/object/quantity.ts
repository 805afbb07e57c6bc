// Kubernetes' resource.Quantity as an exact amount: resource.ParseQuantity's grammar, errors and
// rounding (non-zero values rounded away from zero to the nano; BinarySI capped at 2^63-1), and
// the arithmetic the CEL quantity library (cel/quantity.ts) and the pod admission of kinds/ share.
// Apart from CEL so that the built-in kinds, loaded at start, do not load @bufbuild/cel (~70 ms
// of a cold start) with it.

/** A value N × 10^scale, normalized (N carries no trailing zero unless it is 0, then scale 0). */
export interface Amount {
  readonly n: bigint;
  readonly scale: number;
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

const FORMAT_WRONG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

export function normalize(n: bigint, scale: number): Amount {
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

/** The amount as an int64, when it is a whole number in range. */
export function asInt64(a: Amount): bigint | undefined {
  if (a.scale < 0 || (a.n !== 0n && magnitude(a) > 19)) return undefined;
  const v = a.n * 10n ** BigInt(a.scale);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}
