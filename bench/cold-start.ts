// Cold start of the built API server (issue 19): a fresh Node process imports the package's
// `controller-runtime/apiserver` entry (the bundle, dist/apiserver/bundle/) or the unbundled
// tsc output, starts the server and gets its first /readyz answer. Reported per side: the
// process's time from its start (performance.timeOrigin) to that answer, the import alone,
// and the process's CPU; median and min–max of 7 runs, sides alternating. Builds first when
// dist/ is missing. `npx tsx bench/cold-start.ts`, or `npm run bench -- cold-start`.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const SIDES = {
  "bundle (the package's apiserver entry)": `${root}dist/apiserver/bundle/index.js`,
  "unbundled tsc output": `${root}dist/apiserver/index.js`,
} as const;
const RUNS = 7;

const child = `
const t0 = performance.now();
const { startAPIServer } = await import(process.env.ENTRY);
const t1 = performance.now();
const s = await startAPIServer();
const cfg = s.restConfig();
const { request } = await import("node:https");
await new Promise((resolve, reject) => {
  const r = request(cfg.host + "/readyz", { ca: cfg.tls.ca, cert: cfg.tls.cert, key: cfg.tls.key }, (m) => {
    m.resume();
    m.on("end", resolve);
  });
  r.on("error", reject);
  r.end();
});
const ready = performance.now();
const cpu = process.cpuUsage();
console.log(JSON.stringify({ ready, importMs: t1 - t0, cpuMs: (cpu.user + cpu.system) / 1000 }));
await s.stop();
`;

interface Run {
  ready: number;
  importMs: number;
  cpuMs: number;
}

function once(entry: string): Run {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", child], {
    encoding: "utf8",
    env: { ...process.env, ENTRY: pathToFileURL(entry).href },
  });
  if (r.status !== 0) throw new Error(`cold start of ${entry} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() ?? "{}") as Run;
}

export async function run(): Promise<BenchRow[]> {
  if (!Object.values(SIDES).every(existsSync))
    execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" });
  const runs = new Map<string, Run[]>(Object.keys(SIDES).map((s) => [s, []]));
  for (const entry of Object.values(SIDES)) once(entry); // warm the file cache for both sides
  for (let i = 0; i < RUNS; i++) {
    const order = Object.entries(SIDES);
    if (i % 2) order.reverse();
    for (const [side, entry] of order) runs.get(side)!.push(once(entry));
  }
  return [...runs].flatMap(([side, rs]) => {
    const ready = rs.map((r) => r.ready);
    const imports = rs.map((r) => r.importMs);
    const cpu = rs.map((r) => r.cpuMs);
    return [
      {
        name: `cold start to first /readyz, ${side}`,
        value: summarize(ready).median,
        unit: "ms",
        note: `${rangeNote(ready)}; import ${summarize(imports).median.toFixed(0)} ms; process CPU ${summarize(cpu).median.toFixed(0)} ms`,
      },
    ];
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
