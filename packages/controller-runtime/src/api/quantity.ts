// Resource quantities (`500m`, `1Gi`, `2e3`) as Go's resource.Quantity holds them: an exact value
// and the format it prints in. The ResourceQuota admission of the embedded API server and the
// simulated quota controller add, compare and print them as kube does, so that the messages
// ("exceeded quota: q, requested: memory=1Gi, used: memory=0, limited: memory=500Mi") and the
// status they write match kube-apiserver's and kube-controller-manager's to the character.

/** How a quantity prints: kube's resource.Format. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** A value n × 10^scale (exact; n has no trailing zero unless it is 0) and its format. */
export interface Quantity {
  readonly n: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
}

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX: Record<number, string> = {
  [-9]: "n",
  [-6]: "u",
  [-3]: "m",
  0: "",
  3: "k",
  6: "M",
  9: "G",
  12: "T",
  15: "P",
  18: "E",
};
const BINARY_SUFFIX = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

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

/**
 * resource.ParseQuantity: undefined when `text` is not a quantity. Values finer than a nano are
 * rounded up to it, as kube does.
 */
export function parseQuantity(text: unknown): Quantity | undefined {
  if (typeof text === "number") text = String(text);
  if (typeof text !== "string") return undefined;
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([a-zA-Z]*|[eE][-+]?[0-9]+)$/.exec(text);
  if (!m) return undefined;
  const [, sign, whole = "", frac = "", suffix = ""] = m;
  if (whole === "" && frac === "") return undefined;
  let n = BigInt(`${whole}${frac}` || "0");
  let scale = -frac.length;
  let format: QuantityFormat = "DecimalSI";
  if (suffix in DECIMAL) scale += DECIMAL[suffix]!;
  else if (suffix in BINARY) {
    n <<= BigInt(BINARY[suffix]!);
    format = "BinarySI";
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    scale += Number(suffix.slice(1));
    format = "DecimalExponent";
  } else return undefined;
  if (n !== 0n && scale < -9 && -9 - scale > n.toString().length) {
    // Far below the nano (exponents reach -2^31) the value rounds up to one: no 10^huge is built.
    n = 1n;
    scale = -9;
  }
  if (n !== 0n && scale < -9) {
    const d = 10n ** BigInt(-9 - scale);
    n = (n + d - 1n) / d;
    scale = -9;
  }
  return normalized(sign === "-" ? -n : n, scale, format);
}

/**
 * Scales further apart than this are not aligned: exponents reach ±2^31, and building 10^(2·10^8)
 * takes V8 most of a minute (a request an attacker could stall the server with). Below, instant.
 */
const MAX_EXACT_GAP = 4096;

function aligned(a: Quantity, b: Quantity): [bigint, bigint, number] {
  const scale = Math.min(a.scale, b.scale);
  return [a.n * 10n ** BigInt(a.scale - scale), b.n * 10n ** BigInt(b.scale - scale), scale];
}

/** The place of the first digit: 1 for 1–9, 0 for 0.1–0.9. */
const magnitude = (q: Quantity) => (q.n < 0n ? -q.n : q.n).toString().length + q.scale;

/** -1, 0 or 1 as a is less than, equal to or more than b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
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

/** Quantity.String(): kube's canonical text (`500m`, `1k`, `1536`, `500Mi`, `1e3`). */
export function formatQuantity(q: Quantity): string {
  if (q.n === 0n) return "0";
  const sign = q.n < 0n ? "-" : "";
  const abs = q.n < 0n ? -q.n : q.n;
  let format = q.format;
  // Hostile exponents (to ±2^31) print as an exponent rather than be built out.
  if (Math.abs(q.scale) > MAX_EXACT_GAP) return `${sign}${abs}e${q.scale}`;
  if (format === "BinarySI") {
    // Small or fractional values print as DecimalSI (kube avoids rounding them).
    if (q.scale < 0 || abs * 10n ** BigInt(q.scale) < 1024n) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    let value = abs * 10n ** BigInt(q.scale);
    let exp = 0;
    while (exp < 6 && value % 1024n === 0n) {
      value /= 1024n;
      exp++;
    }
    return `${sign}${value}${BINARY_SUFFIX[exp]}`;
  }
  // The largest exponent, a multiple of 3, that leaves an integer mantissa.
  let exp = Math.floor(q.scale / 3) * 3;
  if (format === "DecimalSI") exp = Math.max(-9, Math.min(18, exp));
  const mantissa = abs * 10n ** BigInt(q.scale - exp);
  const suffix = format === "DecimalSI" ? DECIMAL_SUFFIX[exp] : exp === 0 ? "" : `e${exp}`;
  return `${sign}${mantissa}${suffix}`;
}
