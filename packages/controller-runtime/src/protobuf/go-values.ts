// Go's text for apimachinery's time values: metav1.Time (RFC 3339, seconds), metav1.MicroTime
// (six fraction digits) and time.Duration's String (`1h0m0s`, `1.5ms`).

// Go's times in JSON run from year 1 to 9999.
const MIN_SECONDS = -62135596800;
const MAX_SECONDS = 253402300799;

/** Texts of recent times: objects written together share their timestamps. */
const isoTexts = new Map<number, string>();

function isoSeconds(seconds: number): string | undefined {
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS) return undefined;
  let text = isoTexts.get(seconds);
  if (text === undefined) {
    text = new Date(seconds * 1000).toISOString().slice(0, 19);
    if (isoTexts.size > 4096) isoTexts.clear();
    isoTexts.set(seconds, text);
  }
  return text;
}

/** metav1.Time's JSON: `2006-01-02T15:04:05Z`; undefined when Go could not write it. */
export function rfc3339(seconds: number): string | undefined {
  const s = isoSeconds(seconds);
  return s === undefined ? undefined : `${s}Z`;
}

/** metav1.MicroTime's JSON: `2006-01-02T15:04:05.000000Z`. */
export function microTime(seconds: number, nanos: number): string | undefined {
  const s = isoSeconds(seconds);
  if (s === undefined || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) return undefined;
  return `${s}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z`;
}

/** The digits of `v / 10**prec` after the point, trailing zeros dropped, and the integer part. */
function frac(v: bigint, prec: number): [string, bigint] {
  let digits = "";
  let printed = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    printed ||= digit !== 0n;
    if (printed) digits = `${digit}${digits}`;
    v /= 10n;
  }
  return [printed ? `.${digits}` : "", v];
}

/** Go's time.Duration.String() of a count of nanoseconds. */
export function goDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let text: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return "0s";
    const [unit, prec] = u < 1000n ? ["ns", 0] : u < 1_000_000n ? ["µs", 3] : ["ms", 6];
    const [f, whole] = frac(u, prec);
    text = `${whole}${f}${unit}`;
  } else {
    const [f, secs] = frac(u, 9);
    u = secs;
    text = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      text = `${u % 60n}m${text}`;
      u /= 60n;
      if (u > 0n) text = `${u}h${text}`;
    }
  }
  return neg ? `-${text}` : text;
}
