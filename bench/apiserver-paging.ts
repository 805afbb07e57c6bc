// List paging in the embedded API server (issue 19): the cost of one page against the number of
// objects, a page right after a write, paging through everything against one unpaged list, and
// continuing a paged list after writes (served from the history at the first page's version).
// Each size gets a fresh server in a child process, filled by a load generator in another; the
// times are this client's wall time per request over loopback, with the server's CPU beside them.
// With KUBEBUILDER_ASSETS, kube-apiserver + etcd (their CPU read from /proc) are measured the same
// way in the same run at the sizes of PAGING_PEER_SIZES (default 1000,10000: filling etcd with
// 100 000 objects takes minutes), the sides alternating which goes first.
// `npx tsx bench/apiserver-paging.ts`, or `npm run bench -- apiserver-paging`.
import { pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import { Environment } from "controller-runtime/envtest";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import { startLoadProcess } from "./internal/load-process.js";
import { childrenCpuMs } from "./internal/proc-cpu.js";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const SIZES = (process.env.PAGING_BENCH_SIZES ?? "1000,10000,50000,100000").split(",").map(Number);
const PEER_SIZES = (process.env.PAGING_PEER_SIZES ?? "1000,10000").split(",").map(Number);
const hasPeer = Boolean(process.env.KUBEBUILDER_ASSETS || process.env.TEST_ASSET_KUBE_APISERVER);
const LIMIT = 500;
const REPEAT = 7;
const WARMUP = 20;
const CM = resourceOf(kinds.ConfigMap);
const NS = "paging";

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function median(xs: number[]): { median: number; note: string } {
  const s = [...xs].sort((a, b) => a - b);
  const fmt = (x: number) => (x >= 100 ? Math.round(x).toString() : x.toPrecision(3));
  return { median: s[Math.floor(s.length / 2)]!, note: `min–max ${fmt(s[0]!)}–${fmt(s[s.length - 1]!)}` };
}

/** A server to page: its config, its processes' CPU so far (ms), and how to stop it. */
interface Side {
  label: string;
  restConfig: RESTConfig;
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

async function embeddedSide(): Promise<Side> {
  const server = await startServerProcess({ historySize: 50_000 });
  return { label: "", restConfig: server.restConfig, cpuMs: () => server.cpuMs(), stop: () => server.stop() };
}

async function kubeSide(): Promise<Side> {
  const env = new Environment({ env: { ...process.env, USE_EXISTING_CLUSTER: "" } });
  const restConfig = await env.start();
  return {
    label: ", kube-apiserver + etcd",
    restConfig,
    cpuMs: async () => childrenCpuMs(["kube-apiserver", "etcd"]) ?? Number.NaN,
    stop: () => env.stop(),
  };
}

async function size(n: number, start: () => Promise<Side>): Promise<BenchRow[]> {
  const server = await start();
  const load = await startLoadProcess({ restConfig: server.restConfig, clients: 8, payloadBytes: 400 });
  const rest = newRESTClient(server.restConfig);
  try {
    await rest.create(resourceOf(kinds.Namespace), { metadata: { name: NS } });
    await load.burst(NS, "cm", n);
    /**
     * Wall ms of `fn`, median over REPEAT runs after WARMUP uncounted ones, and the server's CPU
     * ms, their mean (/proc counts the peer's in 10 ms ticks, too coarse for a median): a
     * server that serves lists has them compiled; the first runs of a fresh one measure V8's
     * tiers, whose compiling on background threads the process's CPU counts. After five runs a
     * first page at 1 000 objects still took 1.1–13 ms of CPU (2.9 1.7 13.0 8.0 1.1 4.2 1.4);
     * after twenty, 1.1–3.6 ms, and the same page at 100 000 objects 1.2–1.7 ms.
     */
    const measure = async (fn: () => Promise<unknown>) => {
      for (let i = 0; i < WARMUP; i++) await fn();
      const wall: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < REPEAT; i++) {
        const c0 = await server.cpuMs();
        const t0 = performance.now();
        await fn();
        wall.push(performance.now() - t0);
        cpu.push((await server.cpuMs()) - c0);
      }
      return { wall: median(wall), cpu: mean(cpu) };
    };
    const rows: BenchRow[] = [];
    const add = (name: string, m: Awaited<ReturnType<typeof measure>>) => {
      rows.push({
        name: `${name} @ ${n.toLocaleString("en-US")}${server.label}`,
        value: m.wall.median,
        unit: "ms",
        note: `${m.wall.note}; server CPU ${m.cpu.toFixed(1)} ms (mean)`,
        curve: { series: server.label ? `kube-apiserver + etcd: ${name}` : name, x: n },
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
    for (let rep = 1 - WARMUP; rep <= REPEAT; rep++) {
      const first = await firstPage();
      for (let i = 0; i < 100; i++) {
        await rest.patch(CM, `cm-${i}`, { data: { n: String(w++) } }, { namespace: NS, patchType: "merge" });
      }
      const c0 = await server.cpuMs();
      const t0 = performance.now();
      await rest.list(CM, { namespace: NS, limit: LIMIT, continue: first.metadata?.continue });
      if (rep <= 0) continue; // warm-up
      wall.push(performance.now() - t0);
      cpu.push((await server.cpuMs()) - c0);
    }
    add("continue page after 100 writes since the first", { wall: median(wall), cpu: mean(cpu) });
    return rows;
  } finally {
    await rest.close();
    await load.stop();
    await server.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const [i, n] of SIZES.entries()) {
    const sides = hasPeer && PEER_SIZES.includes(n) ? [embeddedSide, kubeSide] : [embeddedSide];
    // Alternated: each side goes first at every other size.
    if (i % 2 === 1) sides.reverse();
    const bySide = [];
    for (const side of sides) bySide.push(await size(n, side));
    if (i % 2 === 1) bySide.reverse();
    const [ours, peer] = bySide;
    // Each of the peer's rows right under the same row of ours, with the ratio.
    for (const [j, row] of ours!.entries()) {
      rows.push(row);
      const p = peer?.[j];
      if (p) rows.push({ ...p, note: `${p.note}; embedded is ${(row.value / p.value).toFixed(2)}×` });
    }
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
