// List paging in the embedded API server (issue 19): the cost of one page against the number of
// objects, a page right after a write, paging through everything against one unpaged list, and
// continuing a paged list after writes (served from the history at the first page's version).
// Each size gets a fresh server in a child process, filled by a load generator in another; the
// times are this client's wall time per request over loopback, with the server's CPU beside them.
// `npx tsx bench/apiserver-paging.ts`, or `npm run bench -- apiserver-paging`.
import { pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import { startLoadProcess } from "./internal/load-process.js";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const SIZES = (process.env.PAGING_BENCH_SIZES ?? "1000,10000,50000,100000").split(",").map(Number);
const LIMIT = 500;
const REPEAT = 7;
const CM = resourceOf(kinds.ConfigMap);
const NS = "paging";

function median(xs: number[]): { median: number; note: string } {
  const s = [...xs].sort((a, b) => a - b);
  const fmt = (x: number) => (x >= 100 ? Math.round(x).toString() : x.toPrecision(3));
  return { median: s[Math.floor(s.length / 2)]!, note: `min–max ${fmt(s[0]!)}–${fmt(s[s.length - 1]!)}` };
}

async function size(n: number): Promise<BenchRow[]> {
  const server = await startServerProcess({ historySize: 50_000 });
  const load = await startLoadProcess({ restConfig: server.restConfig, clients: 8, payloadBytes: 400 });
  const rest = newRESTClient(server.restConfig);
  try {
    await rest.create(resourceOf(kinds.Namespace), { metadata: { name: NS } });
    await load.burst(NS, "cm", n);
    /** Wall ms and server CPU ms of `fn`, median over REPEAT runs after one warm-up. */
    const measure = async (fn: () => Promise<unknown>) => {
      await fn();
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const c0 = await server.cpuMs();
        const t0 = performance.now();
        await fn();
        wall.push(performance.now() - t0);
        cpu.push((await server.cpuMs()) - c0);
      }
      return { wall: median(wall), cpu: median(cpu) };
    };
    const rows: BenchRow[] = [];
    const add = (name: string, m: Awaited<ReturnType<typeof measure>>) => {
      rows.push({
        name: `${name} @ ${n.toLocaleString("en-US")}`,
        value: m.wall.median,
        unit: "ms",
        note: `${m.wall.note}; server CPU ${m.cpu.median.toFixed(1)} ms`,
        curve: { series: name, x: n },
      });
    };
    const firstPage = () => rest.list(CM, { namespace: NS, limit: LIMIT });
    add(`first page (limit=${LIMIT})`, await measure(firstPage));
    let w = 0;
    add(
      "first page after a create",
      await measure(async () => {
        await rest.create(CM, { metadata: { name: `w${w++}`, namespace: NS } });
        await firstPage();
      }),
    );
    const pageThrough = async () => {
      let token: string | undefined;
      do {
        const page = await rest.list(CM, { namespace: NS, limit: LIMIT, continue: token });
        token = page.metadata?.continue || undefined;
      } while (token);
    };
    add(`paging through all (limit=${LIMIT})`, await measure(pageThrough));
    add("one unpaged list", await measure(() => rest.list(CM, { namespace: NS })));
    // The continue request alone, after 100 writes made since its first page.
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let rep = 0; rep <= REPEAT; rep++) {
      const first = await firstPage();
      for (let i = 0; i < 100; i++) {
        await rest.patch(CM, `cm-${i}`, { data: { n: String(w++) } }, { namespace: NS, patchType: "merge" });
      }
      const c0 = await server.cpuMs();
      const t0 = performance.now();
      await rest.list(CM, { namespace: NS, limit: LIMIT, continue: first.metadata?.continue });
      if (rep === 0) continue; // warm-up
      wall.push(performance.now() - t0);
      cpu.push((await server.cpuMs()) - c0);
    }
    add("continue page after 100 writes since the first", { wall: median(wall), cpu: median(cpu) });
    return rows;
  } finally {
    await rest.close();
    await load.stop();
    await server.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const n of SIZES) rows.push(...(await size(n)));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
