// Benchmarks of the embedded API server (issue 3): start-to-ready, creates/s and gets/s with 8
// concurrent keep-alive HTTPS clients, a list of 10 000 objects, and watch events/s delivered to
// 10 watchers. With KUBEBUILDER_ASSETS set, the same figures for real etcd + kube-apiserver in the
// same run, as ratios. `npx tsx bench/apiserver.ts`, or `npm run bench -- apiserver`.
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import { startAPIServer } from "controller-runtime-apiserver";
import { Environment } from "controller-runtime/envtest";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const configMaps = resourceOf(kinds.ConfigMap);
const namespaces = resourceOf(kinds.Namespace);
const payload = "x".repeat(900); // with metadata, a ConfigMap of about 1 KiB

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { payload } };
}

async function inParallel(
  clients: RESTClient[],
  total: number,
  op: (c: RESTClient, i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < total; i = next++) await op(c, i);
    }),
  );
  return (performance.now() - start) / 1000;
}

interface Figures {
  startMs: number;
  createsPerSec: number;
  getsPerSec: number;
  listMs: number;
  listed: number;
  watchEventsPerSec: number;
  /** The server process's CPU per measured request (creates, gets, list, watch creates), when known. */
  serverCpuUsPerRequest?: number;
  /** The server process's CPU per create and per get of those phases, when known. */
  serverCpuUsPerCreate?: number;
  serverCpuUsPerGet?: number;
  /** This process's CPU (the 8 clients) per create. */
  clientCpuUsPerCreate: number;
}

/** CPU milliseconds of the server process so far, when it runs in one. */
type ServerCpu = (() => Promise<number>) | undefined;

/** Creates, gets, a 10 000-item list and watch fan-out against one server. */
async function measureServer(config: RESTConfig, startMs: number, serverCpu?: ServerCpu): Promise<Figures> {
  const clients = Array.from({ length: 8 }, () => newRESTClient(config));
  const ns = `bench-${Date.now().toString(36)}`;
  try {
    await clients[0]!.create(namespaces, { metadata: { name: ns } });
    const creates = 10_000;
    const serverCpu0 = await serverCpu?.();
    const clientCpu0 = process.cpuUsage();
    const createSecs = await inParallel(clients, creates, (c, i) =>
      c.create(configMaps, configMap(`cm-${i}`), { namespace: ns }),
    );
    const clientCpu = process.cpuUsage(clientCpu0);
    const serverCpu1 = await serverCpu?.();
    const gets = 20_000;
    const getSecs = await inParallel(clients, gets, (c, i) =>
      c.get(configMaps, `cm-${i % creates}`, { namespace: ns }),
    );
    const serverCpu2 = await serverCpu?.();
    const perRequest = (from: number | undefined, to: number | undefined, n: number) =>
      from === undefined || to === undefined ? undefined : ((to - from) * 1000) / n;
    const t0 = performance.now();
    const list = await clients[0]!.list(configMaps, { namespace: ns });
    const listMs = performance.now() - t0;

    // Watch fan-out: 10 watchers, N creates; count events delivered to all of them.
    const watchers = 10;
    const updates = 3_000;
    const abort = new AbortController();
    const rv = list.metadata?.resourceVersion;
    const watchClients = Array.from({ length: watchers }, () => newRESTClient(config));
    const streams = await Promise.all(
      watchClients.map((c) =>
        c.watch(configMaps, { namespace: ns, resourceVersion: rv, signal: abort.signal }),
      ),
    );
    let delivered = 0;
    const done = streams.map(async (stream) => {
      let seen = 0;
      for await (const ev of stream) {
        if (ev.type !== "ADDED") continue;
        delivered++;
        if (++seen === updates) break;
      }
    });
    const w0 = performance.now();
    await inParallel(clients, updates, (c, i) =>
      c.create(configMaps, configMap(`w-${i}`), { namespace: ns }),
    );
    await Promise.all(done);
    const wSecs = (performance.now() - w0) / 1000;
    abort.abort();
    await Promise.all(watchClients.map((c) => c.close()));
    await clients[0]!.delete(namespaces, ns).catch(() => {});
    return {
      startMs,
      createsPerSec: creates / createSecs,
      getsPerSec: gets / getSecs,
      listMs,
      listed: list.items.length,
      watchEventsPerSec: delivered / wSecs,
      serverCpuUsPerCreate: perRequest(serverCpu0, serverCpu1, creates),
      serverCpuUsPerGet: perRequest(serverCpu1, serverCpu2, gets),
      clientCpuUsPerCreate: (clientCpu.user + clientCpu.system) / creates,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

async function embedded(): Promise<Figures> {
  // Start-to-ready: the median of several starts, each answering /readyz before it counts.
  const starts: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const s = await startAPIServer();
    const c = newRESTClient(s.restConfig());
    await c.request({ path: "/readyz", responseType: "text" });
    starts.push(performance.now() - t0);
    await c.close();
    await s.stop();
  }
  starts.sort((a, b) => a - b);
  // The server runs in its own process, as kube-apiserver does: the clients get the other core.
  const server = await startServerProcess({ historySize: 50_000 });
  try {
    const cpu0 = await server.cpuMs();
    const figures = await measureServer(server.restConfig, starts[3] ?? 0, () => server.cpuMs());
    const requests = 10_000 + 20_000 + 1 + 3_000;
    figures.serverCpuUsPerRequest = (((await server.cpuMs()) - cpu0) * 1000) / requests;
    return figures;
  } finally {
    await server.stop();
  }
}

async function realBinaries(): Promise<Figures | undefined> {
  if (!process.env.KUBEBUILDER_ASSETS && !process.env.TEST_ASSET_KUBE_APISERVER) return undefined;
  const env = new Environment({ env: { ...process.env, USE_EXISTING_CLUSTER: "" } });
  const t0 = performance.now();
  const config = await env.start();
  const startMs = performance.now() - t0;
  try {
    return await measureServer(config, startMs);
  } finally {
    await env.stop();
  }
}

export async function run(): Promise<BenchRow[]> {
  const ours = await embedded();
  const real = await realBinaries();
  const rows: BenchRow[] = [];
  const row = (name: string, pick: (f: Figures) => number, unit: string, note: string) => {
    rows.push({ name, value: pick(ours), unit, note });
    if (real) {
      const r = pick(real);
      rows.push({
        name: `  kube-apiserver + etcd`,
        value: r,
        unit,
        note: `embedded is ${(pick(ours) / r).toFixed(2)}×`,
      });
    }
  };
  row("start to ready (median of 7)", (f) => f.startMs, "ms", "target < 100");
  row("creates/s, 1 KiB ConfigMaps, 8 keep-alive clients", (f) => f.createsPerSec, "/s", "target ≥ 4000");
  row("gets/s, 8 clients", (f) => f.getsPerSec, "/s", "");
  row(`list of ${ours.listed} ConfigMaps`, (f) => f.listMs, "ms", "");
  row("watch events/s delivered to 10 watchers", (f) => f.watchEventsPerSec, "/s", "");
  rows.push({
    name: "embedded server CPU per request (mixed)",
    value: ours.serverCpuUsPerRequest ?? Number.NaN,
    unit: "µs",
    note: "server process only",
  });
  rows.push({
    name: "  per create / per get",
    value: ours.serverCpuUsPerCreate ?? Number.NaN,
    unit: "µs",
    note: `per get ${ours.serverCpuUsPerGet?.toFixed(0) ?? "?"} µs; includes warm-up (JIT, TLS)`,
  });
  rows.push({
    name: "client process CPU per create (8 clients)",
    value: ours.clientCpuUsPerCreate,
    unit: "µs",
    note: `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
  });
  if (!real)
    rows.push({
      name: "kube-apiserver + etcd",
      value: Number.NaN,
      unit: "",
      note: "set KUBEBUILDER_ASSETS to compare",
    });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
