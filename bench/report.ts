// The row every benchmark reports, and a plain-text table for the terminal and the issue notes.

export interface BenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
  /**
   * A point of a scale curve: rows of one `series` (a line of the chart, e.g. "ours: cycles/s")
   * at several `x` (objects, keys) are drawn together in the results' SVG.
   */
  curve?: { series: string; x: number };
}

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  return value.toPrecision(3);
}

export function printRows(rows: readonly BenchRow[]): void {
  const cells = rows.map((r) => [r.name, format(r.value), r.unit, r.note ?? ""]);
  const widths = [0, 1, 2].map((i) => Math.max(...cells.map((c) => (c[i] ?? "").length)));
  for (const c of cells) {
    const [name = "", value = "", unit = "", note = ""] = c;
    process.stdout.write(
      `${name.padEnd(widths[0] ?? 0)}  ${value.padStart(widths[1] ?? 0)} ${unit.padEnd(widths[2] ?? 0)}  ${note}\n`,
    );
  }
}
