// A Quantity's text as kube-apiserver writes it back: Go's resource.ParseQuantity followed by
// Quantity.String() (k8s.io/apimachinery/pkg/api/resource, quantity.go and amount.go). A built-in
// object's quantities are decoded into that type and encoded from it, so "0.5" is stored and
// answered as "500m", "1000" as "1k", "1.5Gi" as "1536Mi". Go keeps the text it was given when
// its fast path finds it canonical already ("+1", "01", "1e0", "1.000000001" stay as sent), and
// drops a suffix it has no name for ("1000E" reads back "1"): both are ported as they are, since
// clients see exactly that. Amounts are exact (bigint), as Go's int64 and inf.Dec paths agree.

type Format = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** value = n × 10^scale (decimal) — binary amounts are converted to that too. */
interface Parsed {
  readonly n: bigint;
  readonly scale: number;
  readonly format: Format;
  /** The text Go keeps as the quantity's string, when its fast path found it canonical. */
  readonly kept?: string;
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

/** Go's Quantity.String() of ParseQuantity(text), or undefined where Go refuses the text. */
export function canonicalQuantityText(text: string): string | undefined {
  const q = parse(text);
  return q === undefined ? undefined : (q.kept ?? format(q));
}

/** parseQuantityString: sign, numerator (leading zeros stripped), denominator, suffix. */
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
function interpret(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  if (suffix in DECIMAL_SUFFIX) return { base: 10, exponent: DECIMAL_SUFFIX[suffix]!, format: "DecimalSI" };
  if (suffix in BINARY_SUFFIX) return { base: 2, exponent: BINARY_SUFFIX[suffix]!, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const e = BigInt(rest);
    if (e > INT64_MAX || e < -INT64_MAX - 1n) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, e)), format: "DecimalExponent" };
  }
  return undefined;
}

function parse(str: string): Parsed | undefined {
  if (str === "") return undefined;
  if (str === "0") return { n: 0n, scale: 0, format: "DecimalSI", kept: "0" };
  const parts = split(str);
  if (parts === undefined) return undefined;
  const { positive, value, num, denom } = parts;
  const suffix = interpret(parts.suffix);
  if (suffix === undefined) return undefined;
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
      if (v > INT64_MAX) return undefined; // ErrNumeric
      const product = v * mantissa;
      if (product <= INT64_MAX) {
        const n = positive ? product : -product;
        const canonical =
          format === "BinarySI"
            ? exponent % 10 === 0 && (v & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        return base === 2
          ? { n, scale: 0, format, kept: canonical ? str : undefined }
          : { n, scale, format, kept: canonical ? str : undefined };
      }
    }
  }

  // The inf.Dec path: exact, rounded up to the nano, binary capped at 2^63-1.
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (m === null || `${m[2]}${m[3] ?? ""}` === "") return undefined;
  const negative = m[1] === "-";
  let n = BigInt(`${m[2]}${m[3] ?? ""}`);
  let s = -(m[3] ?? "").length;
  if (base === 10) s += exponent;
  else n <<= BigInt(exponent);
  if (n !== 0n && s < NANO) {
    // Far below the nano (hostile exponents reach -2^31), the amount is a nano: no 10^huge is built.
    if (NANO - s > n.toString().length) {
      n = 1n;
      s = NANO;
    }
  }
  if (n !== 0n && s < NANO) {
    const drop = 10n ** BigInt(NANO - s);
    n = n % drop === 0n ? n / drop : n / drop + 1n;
    s = NANO;
  }
  let f = format;
  if (f === "BinarySI") {
    if (compare(n, s, INT64_MAX) > 0) {
      n = INT64_MAX;
      s = 0;
    }
    if (n > 0n && compare(n, s, 1n) < 0) f = "DecimalSI";
  }
  return { n: negative ? -n : n, scale: s, format: f };
}

/** n × 10^scale against an integer. */
function compare(n: bigint, scale: number, y: bigint): number {
  // No int64 bound needs more than 20 digits: a larger power decides alone (no 10^huge is built).
  if (scale > 20 && n !== 0n) return n > 0n ? 1 : -1;
  const [a, b] = scale >= 0 ? [n * 10n ** BigInt(scale), y] : [n, y * 10n ** BigInt(-scale)];
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Quantity.CanonicalizeBytes: digits and suffix. */
function format(q: Parsed): string {
  if (q.n === 0n) return "0";
  let f = q.format;
  let whole: bigint | undefined;
  if (f === "BinarySI") {
    if (compare(q.n, q.scale, -1024n) > 0 && compare(q.n, q.scale, 1024n) < 0) f = "DecimalSI";
    else if (q.scale >= 0) whole = q.n * 10n ** BigInt(q.scale);
    else {
      const d = 10n ** BigInt(-q.scale);
      if (q.n % d === 0n) whole = q.n / d;
      else f = "DecimalSI"; // not whole: Go shows it in decimal rather than round it
    }
  }
  if (f === "BinarySI" && whole !== undefined) {
    const [v, times] = removeFactors(whole, 1024n);
    // Past Ei Go has no name for the power and writes the digits alone.
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
