// What `npm run bench` leaves for a reader: its tables as Markdown and its scale curves as an
// SVG chart (one panel per unit, log-scaled x, a line per series), under bench/results/ with the
// run's date. Not committed; a note quotes them.
import { mkdirSync, writeFileSync } from "node:fs";
import { arch, cpus, platform } from "node:os";
import { join } from "node:path";
import type { BenchRow } from "./report.js";

export interface ModuleRows {
  module: string;
  rows: BenchRow[];
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en-US") : v.toPrecision(3);
}

export function markdown(results: readonly ModuleRows[], when: Date): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  const out = [
    `# npm run bench, ${when.toISOString()}`,
    "",
    `Node ${process.version} on ${platform()}/${arch()}, ${cpus().length} × ${cpu}. Every side in its own process;`,
    "medians with min–max where a row says so. Ratios are within one run.",
    "",
  ];
  for (const { module, rows } of results) {
    out.push(`## ${module}`, "", "| measure | value | unit | note |", "| --- | ---: | --- | --- |");
    for (const r of rows)
      out.push(`| ${cell(r.name)} | ${fmt(r.value)} | ${cell(r.unit)} | ${cell(r.note ?? "")} |`);
    out.push("");
  }
  return out.join("\n");
}

const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The scale curves: one panel per module and unit, a polyline per series over log10(x). */
export function svg(results: readonly ModuleRows[]): string | undefined {
  const panels: { title: string; series: Map<string, [number, number][]> }[] = [];
  for (const { module, rows } of results) {
    const byUnit = new Map<string, Map<string, [number, number][]>>();
    for (const r of rows) {
      if (!r.curve || !Number.isFinite(r.value)) continue;
      const series = byUnit.get(r.unit) ?? new Map<string, [number, number][]>();
      byUnit.set(r.unit, series);
      series.set(r.curve.series, [...(series.get(r.curve.series) ?? []), [r.curve.x, r.value]]);
    }
    for (const [unit, series] of byUnit) panels.push({ title: `${module} (${unit})`, series });
  }
  if (panels.length === 0) return undefined;
  const W = 560;
  const H = 260;
  const pad = { l: 70, r: 20, t: 30, b: 40 };
  const parts: string[] = [];
  panels.forEach((p, i) => {
    const points = [...p.series.values()].flat();
    const xs = points.map(([x]) => Math.log10(x));
    const ys = points.map(([, y]) => y);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs) || 1];
    const y1 = Math.max(...ys) * 1.1 || 1;
    const px = (x: number) => pad.l + ((Math.log10(x) - x0) / (x1 - x0 || 1)) * (W - pad.l - pad.r);
    const py = (y: number) => H - pad.b - (y / y1) * (H - pad.t - pad.b);
    const g = [`<g transform="translate(0,${i * H})">`];
    g.push(`<text x="${pad.l}" y="18" font-size="13" font-weight="bold">${esc(p.title)}</text>`);
    g.push(`<line x1="${pad.l}" y1="${H - pad.b}" x2="${W - pad.r}" y2="${H - pad.b}" stroke="#888"/>`);
    g.push(`<line x1="${pad.l}" y1="${pad.t}" x2="${pad.l}" y2="${H - pad.b}" stroke="#888"/>`);
    for (const x of [...new Set(points.map(([x]) => x))]) {
      g.push(
        `<text x="${px(x)}" y="${H - pad.b + 16}" font-size="10" text-anchor="middle">${x.toLocaleString("en-US")}</text>`,
      );
    }
    for (const f of [0, 0.5, 1]) {
      g.push(
        `<text x="${pad.l - 6}" y="${py(f * y1) + 3}" font-size="10" text-anchor="end">${fmt(f * y1)}</text>`,
      );
    }
    [...p.series].forEach(([name, pts], j) => {
      const color = COLORS[j % COLORS.length];
      const sorted = [...pts].sort((a, b) => a[0] - b[0]);
      g.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${sorted.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ")}"/>`,
      );
      for (const [x, y] of sorted)
        g.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`);
      g.push(
        `<text x="${W - pad.r}" y="${pad.t + 12 * j}" font-size="10" text-anchor="end" fill="${color}">${esc(name)}</text>`,
      );
    });
    g.push("</g>");
    parts.push(g.join("\n"));
  });
  const title = `npm run bench: ${panels.map((p) => p.title).join(", ")}`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H * panels.length}" font-family="sans-serif" role="img">\n<title>${esc(title)}</title>\n${parts.join("\n")}\n</svg>\n`;
}

/** Writes `bench/results/bench-<date>.md` (and `.svg` when there are curves); returns the paths. */
export function writeResults(dir: string, results: readonly ModuleRows[], when = new Date()): string[] {
  mkdirSync(dir, { recursive: true });
  const stem = join(dir, `bench-${when.toISOString().replace(/[:.]/g, "-")}`);
  writeFileSync(`${stem}.md`, markdown(results, when));
  const chart = svg(results);
  if (chart) writeFileSync(`${stem}.svg`, chart);
  return chart ? [`${stem}.md`, `${stem}.svg`] : [`${stem}.md`];
}
