// `npm run bench`: runs every benchmark module in bench/ one after another and prints their rows.
// Each module exports `run(): Promise<BenchRow[]>`; pass names to run a subset: `npm run bench -- workqueue`.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./report.js";
import { printRows } from "./report.js";

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const modules = readdirSync(here)
  .filter((f) => f.endsWith(".ts") && !["run.ts", "report.ts"].includes(f) && !f.endsWith(".test.ts"))
  .map((f) => f.slice(0, -3))
  .filter((name) => wanted.length === 0 || wanted.includes(name))
  .sort();

for (const name of modules) {
  const mod = (await import(join(here, `${name}.ts`))) as { run?: () => Promise<BenchRow[]> };
  if (typeof mod.run !== "function") continue;
  process.stdout.write(`\n## ${name}\n`);
  printRows(await mod.run());
}
