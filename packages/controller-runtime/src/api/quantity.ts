// Resource quantities (`500m`, `1Gi`, `2e3`) as Go's resource.Quantity holds them: an exact value
// and the format it prints in, parsed and printed as k8s.io/apimachinery's quantity.go and
// amount.go do (ported, quirks included: Go keeps the text it was given when its fast path finds
// it canonical, "+1" and "1e0" stay as sent; "8Ei" is capped at 2^63-1; a suffix past E has no
// name and is dropped). The one implementation the project has: the embedded API server stores
// built-in objects' quantities as this text, its CEL quantity library and pod admission compute
// with it, and its ResourceQuota admission and the simulated quota controller add, compare and
// print with it, so that messages ("exceeded quota: q, requested: memory=1Gi, used: memory=0,
// limited: memory=500Mi") and statuses match kube's to the character.

/** How a quantity prints: kube's resource.Format. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** A value n × 10^scale (exact; n has no trailing zero unless it is 0) and its format. */
export interface Quantity {
  readonly n: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
}

function normalized(n: bigint, scale: number, format: QuantityFormat): Quantity {
  if (n === 0n) return { n: 0n, scale: 0, format };
  while (n % 10n === 0n) {
    n /= 10n;
    scale++;
  }
  return { n, scale, format };
}

/** A zero of the given format (Go's `resource.Quantity{Format: f}`). */
export function zeroQuantity(format: QuantityFormat = "DecimalSI"): Quantity {
  return { n: 0n, scale: 0, format };
}

/** An integer count (Go's resource.NewQuantity(n, DecimalSI)). */
export function countQuantity(n: number): Quantity {
  return normalized(BigInt(n), 0, "DecimalSI");
}

/** Go's ParseQuantity errors, in its words (resource.ErrFormatWrong, ErrSuffix, ErrNumeric). */
export const QUANTITY_FORMAT_WRONG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_WRONG = "unable to parse quantity's suffix";
export const QUANTITY_NUMERIC_WRONG = "unable to parse numeric part of quantity";

/**
 * resource.ParseQuantity: the quantity and its String() (the text as sent when Go's fast path
 * found it canonical, else {@link formatQuantity}'s), or Go's error.
 */
export function readQuantity(text: string): { quantity: Quantity; text: string } | { error: string } {
  const r = parseGo(text);
  if ("error" in r) return r;
  const quantity = normalized(r.n, r.scale, r.format);
  return { quantity, text: r.kept ?? formatQuantity(quantity) };
}

/** resource.ParseQuantity: undefined when Go refuses `text` (a number is read as its JS text). */
export function parseQuantity(text: unknown): Quantity | undefined {
  if (typeof text === "number") text = String(text);
  if (typeof text !== "string") return undefined;
  const r = readQuantity(text);
  return "error" in r ? undefined : r.quantity;
}

/** Go's Quantity.String() of ParseQuantity(text): the text kube-apiserver stores and answers. */
export function canonicalQuantityText(text: string): string | undefined {
  const r = readQuantity(text);
  return "error" in r ? undefined : r.text;
}

const INT64_MAX = (1n << 63n) - 1n;
/** maxInt64Factors: the decimal digits an int64 always holds. */
const MAX_INT64_FACTORS = 18;
const NANO = -9;
const DECIMAL_SUFFIX: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  "": 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_NAME = new Map(Object.entries(DECIMAL_SUFFIX).map(([s, e]) => [e, s]));
const BINARY_NAME = new Map([
  [0, ""],
  ...Object.entries(BINARY_SUFFIX).map(([s, e]) => [e, s] as [number, string]),
]);

/** parseQuantityString: sign, value (the text before the suffix), numerator, denominator, suffix. */
function split(str: string) {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === "-") {
    positive = false;
    pos++;
  } else if (str[0] === "+") pos++;
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  const digit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
  let i = pos;
  while (i < end && digit(str[i])) i++;
  const num = str.slice(pos, i) || "0";
  if (i >= end) return { positive, value: str, num, denom: "", suffix: "" };
  pos = i;
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    i = pos;
    while (i < end && digit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: "" };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && "eEinumkKMGTP".includes(str[pos]!)) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && digit(str[pos])) pos++;
  if (pos < end) return undefined; // a character no suffix has
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** quantitySuffixer.interpret. */
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: QuantityFormat } | undefined {
  if (suffix in DECIMAL_SUFFIX) return { base: 10, exponent: DECIMAL_SUFFIX[suffix]!, format: "DecimalSI" };
  if (suffix in BINARY_SUFFIX) return { base: 2, exponent: BINARY_SUFFIX[suffix]!, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const e = BigInt(rest);
    if (e > INT64_MAX || e < -INT64_MAX - 1n) return undefined;
    // Go keeps the exponent in an int32: larger ones wrap, as there.
    return { base: 10, exponent: Number(BigInt.asIntN(32, e)), format: "DecimalExponent" };
  }
  return undefined;
}

/** ParseQuantity as quantity.go does it: its int64 fast path, else inf.Dec's exact one. */
function parseGo(
  str: string,
): { n: bigint; scale: number; format: QuantityFormat; kept?: string } | { error: string } {
  if (str === "") return { error: QUANTITY_FORMAT_WRONG };
  if (str === "0") return { n: 0n, scale: 0, format: "DecimalSI", kept: "0" };
  const parts = split(str);
  if (parts === undefined) return { error: QUANTITY_FORMAT_WRONG };
  const { positive, value, num, denom } = parts;
  const suffix = interpret(parts.suffix);
  if (suffix === undefined) return { error: QUANTITY_SUFFIX_WRONG };
  const { base, exponent, format } = suffix;

  // The int64 fast path, which alone may keep the text as the quantity's string.
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (base === 10) {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  } else if (exponent >= 0 && denom.length === 0) {
    mantissa = 1n << BigInt(exponent);
    precision = 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1;
  } else precision = -1;
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      if (v > INT64_MAX) return { error: QUANTITY_NUMERIC_WRONG };
      const product = v * mantissa;
      if (product <= INT64_MAX) {
        const n = positive ? product : -product;
        const canonical =
          format === "BinarySI"
            ? exponent % 10 === 0 && (v & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        return { n, scale: base === 2 ? 0 : scale, format, kept: canonical ? str : undefined };
      }
    }
  }

  // The inf.Dec path: exact, rounded away from zero to the nano ("if you want some resources,
  // you should get some resources"), binary capped at 2^63-1.
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (m === null || `${m[2]}${m[3] ?? ""}` === "") return { error: QUANTITY_NUMERIC_WRONG };
  const negative = m[1] === "-";
  let n = BigInt(`${m[2]}${m[3] ?? ""}`);
  let s = -(m[3] ?? "").length;
  if (base === 10) s += exponent;
  else n <<= BigInt(exponent);
  // Far below the nano (hostile exponents reach -2^31), the amount is a nano: no 10^huge is built.
  if (n !== 0n && s < NANO && NANO - s > n.toString().length) {
    n = 1n;
    s = NANO;
  }
  if (n !== 0n && s < NANO) {
    const drop = 10n ** BigInt(NANO - s);
    n = n % drop === 0n ? n / drop : n / drop + 1n;
    s = NANO;
  }
  let f = format;
  if (f === "BinarySI") {
    if (compareWithInt(n, s, INT64_MAX) > 0) {
      n = INT64_MAX;
      s = 0;
    }
    if (n > 0n && compareWithInt(n, s, 1n) < 0) f = "DecimalSI";
  }
  return { n: negative ? -n : n, scale: s, format: f };
}

/** n × 10^scale against an integer. */
function compareWithInt(n: bigint, scale: number, y: bigint): number {
  // No int64 bound needs more than 20 digits: a larger power decides alone (no 10^huge is built).
  if (scale > 20 && n !== 0n) return n > 0n ? 1 : -1;
  const [a, b] = scale >= 0 ? [n * 10n ** BigInt(scale), y] : [n, y * 10n ** BigInt(-scale)];
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Scales further apart than this are not aligned: exponents reach ±2^31, and building 10^(2·10^8)
 * takes V8 most of a minute (a request an attacker could stall the server with). Below, instant.
 */
const MAX_EXACT_GAP = 4096;

/** A quantity's value alone: n × 10^scale. */
export type QuantityValue = Pick<Quantity, "n" | "scale">;

function aligned(a: QuantityValue, b: QuantityValue): [bigint, bigint, number] {
  const scale = Math.min(a.scale, b.scale);
  return [a.n * 10n ** BigInt(a.scale - scale), b.n * 10n ** BigInt(b.scale - scale), scale];
}

/** The place of the first digit: 1 for 1–9, 0 for 0.1–0.9. */
const magnitude = (q: QuantityValue) => (q.n < 0n ? -q.n : q.n).toString().length + q.scale;

/** -1, 0 or 1 as a is less than, equal to or more than b. */
export function compareQuantities(a: QuantityValue, b: QuantityValue): number {
  const sa = a.n > 0n ? 1 : a.n < 0n ? -1 : 0;
  const sb = b.n > 0n ? 1 : b.n < 0n ? -1 : 0;
  if (sa !== sb || sa === 0) return sa < sb ? -1 : sa > sb ? 1 : 0;
  // Magnitudes decide far-apart scales; equal ones mean a gap no larger than the digits sent.
  const ma = magnitude(a);
  const mb = magnitude(b);
  if (ma !== mb) return ma < mb ? -sa : sa;
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** a + sign·b; past MAX_EXACT_GAP the smaller is below the larger's last digit and dropped. */
function sum(a: Quantity, b: Quantity, sign: 1n | -1n): Quantity {
  const format = a.n === 0n ? b.format : a.format;
  if (b.n !== 0n && a.n !== 0n && Math.abs(a.scale - b.scale) > MAX_EXACT_GAP) {
    return magnitude(a) > magnitude(b) ? { ...a, format } : normalized(sign * b.n, b.scale, format);
  }
  const [x, y, scale] = aligned(a, b);
  return normalized(x + sign * y, scale, format);
}

/** a + b in a's format, or b's when a is zero (Quantity.Add). */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return sum(a, b, 1n);
}

/** a − b in a's format, or b's when a is zero (Quantity.Sub). */
export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  return sum(a, b, -1n);
}

/** The quantity rounded up to a whole number (Quantity.RoundUp(0)). */
export function roundUpQuantity(q: Quantity): Quantity {
  if (q.scale >= 0) return q;
  const d = 10n ** BigInt(-q.scale);
  const n = q.n > 0n ? (q.n + d - 1n) / d : q.n / d;
  return normalized(n, 0, q.format);
}

/**
 * Quantity.CanonicalizeBytes: kube's canonical text of a value (`500m`, `1k`, `1536`, `500Mi`,
 * `1e3`). A BinarySI value that is small, or not whole, prints in DecimalSI (Go would rather not
 * round it); a decimal exponent is a multiple of 3; past E a suffix has no name and Go writes the
 * digits alone.
 */
export function formatQuantity(q: Quantity): string {
  if (q.n === 0n) return "0";
  let f = q.format;
  let whole: bigint | undefined;
  if (f === "BinarySI") {
    // Hostile scales (to ±2^31) are never built out: such a value is no binary amount Go holds.
    if (Math.abs(q.scale) > MAX_EXACT_GAP) f = "DecimalSI";
    else if (compareWithInt(q.n, q.scale, -1024n) > 0 && compareWithInt(q.n, q.scale, 1024n) < 0)
      f = "DecimalSI";
    else if (q.scale >= 0) whole = q.n * 10n ** BigInt(q.scale);
    else {
      const d = 10n ** BigInt(-q.scale);
      if (q.n % d === 0n) whole = q.n / d;
      else f = "DecimalSI";
    }
  }
  if (f === "BinarySI" && whole !== undefined) {
    const [v, times] = removeFactors(whole, 1024n);
    return `${v}${BINARY_NAME.get(times * 10) ?? ""}`;
  }
  let [v, times] = removeFactors(q.n, 10n);
  let e = q.scale + times;
  while (e % 3 !== 0) {
    v *= 10n;
    e--;
  }
  if (f === "DecimalExponent") return e === 0 ? `${v}` : `${v}e${e}`;
  return `${v}${DECIMAL_NAME.get(e) ?? ""}`;
}

function removeFactors(value: bigint, base: bigint): [bigint, number] {
  let v = value;
  let times = 0;
  while (v !== 0n && v % base === 0n) {
    v /= base;
    times++;
  }
  return [v, times];
}
