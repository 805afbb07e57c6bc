// `npm run bench`: runs every benchmark module in bench/ one after another and prints their rows.
// Each module exports `run(): Promise<BenchRow[]>`; pass names to run a subset: `npm run bench -- workqueue`.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./report.js";
import { printRows } from "./report.js";
import { type ModuleRows, writeResults } from "./results.js";

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const modules = readdirSync(here)
  .filter(
    (f) => f.endsWith(".ts") && !["run.ts", "report.ts", "results.ts"].includes(f) && !f.endsWith(".test.ts"),
  )
  .map((f) => f.slice(0, -3))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

const results: ModuleRows[] = [];
for (const name of modules) {
  const mod = (await import(join(here, `${name}.ts`))) as { run?: () => Promise<BenchRow[]> };
  if (typeof mod.run !== "function") continue;
  process.stdout.write(`\n## ${name}\n`);
  const rows = await mod.run();
  printRows(rows);
  results.push({ module: name, rows });
}
// The tables as Markdown and the scale curves as SVG, for a reader (bench/results/ is not committed).
const written = writeResults(join(here, "results"), results);
process.stdout.write(`\nresults: ${written.join(", ")}\n`);
