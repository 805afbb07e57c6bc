// Summaries every benchmark reports the same way: the median of repetitions with their range.

/** The median (the upper one of an even count) and the range of `xs`. */
export function summarize(xs: readonly number[]): { median: number; min: number; max: number } {
  if (xs.length === 0) throw new RangeError("summarize: no samples");
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
}

/** "min–max a–b" with three significant digits (whole numbers from 100 on). */
export function rangeNote(xs: readonly number[]): string {
  const { min, max } = summarize(xs);
  const fmt = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toString() : x.toPrecision(3));
  return `min–max ${fmt(min)}–${fmt(max)}`;
}
