// Kubernetes' resource.Quantity as an exact amount, for the CEL quantity library (cel/quantity.ts)
// and the pod admission of kinds/: the library's port of Go's ParseQuantity and arithmetic
// (controller-runtime/api's quantity.ts, the project's one implementation), with the two things
// these callers need besides: parse errors thrown in Go's words, and an exact sum that refuses
// scales too far apart rather than drop the smaller term.
import { addQuantities, compareQuantities, type QuantityValue, readQuantity } from "controller-runtime/api";

/** A value N × 10^scale, normalized (N carries no trailing zero unless it is 0, then scale 0). */
export type Amount = QuantityValue;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** `n` × 10^`scale`, normalized. */
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
  const r = readQuantity(text);
  if ("error" in r) throw new Error(r.error);
  return { n: r.quantity.n, scale: r.quantity.scale };
}

/** a <=> b, exactly; far-apart scales are compared by magnitude, which decides them. */
export const compareAmounts: (a: Amount, b: Amount) => number = compareQuantities;

/**
 * A gap of scales past which two amounts are not put on one scale: exponents reach ±2^31, and
 * 10^(2·10^8) alone takes V8 most of a minute to build (a stalled request).
 */
const MAX_EXACT_GAP = 4096;

/** a + b exactly; throws a RangeError when the exact sum would need scales too far apart. */
export function addAmounts(a: Amount, b: Amount): Amount {
  if (a.n === 0n) return b;
  if (b.n === 0n) return a;
  if (Math.abs(a.scale - b.scale) > MAX_EXACT_GAP)
    throw new RangeError("quantities too far apart in scale to add exactly");
  const sum = addQuantities({ ...a, format: "DecimalSI" }, { ...b, format: "DecimalSI" });
  return { n: sum.n, scale: sum.scale };
}

/** The amount as an int64, when it is a whole number in range. */
export function asInt64(a: Amount): bigint | undefined {
  if (a.scale < 0) return undefined;
  if (a.n !== 0n && (a.n < 0n ? -a.n : a.n).toString().length + a.scale > 19) return undefined;
  const v = a.n * 10n ** BigInt(a.scale);
  return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
}
