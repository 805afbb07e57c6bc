// Benchmarks of the embedded API server (issue 3) against kube-apiserver + etcd in the same run:
// start-to-ready, creates/s and gets/s, a list of the created ConfigMaps, and watch events/s
// delivered to 10 watchers. Each side serves from its own processes (the embedded server in a
// child process, as kube-apiserver and etcd are), with the server's CPU beside the wall time
// (from /proc for the peer); the sides take turns, rotated, for REPS repetitions (default 3,
// APISERVER_BENCH_REPS), each on a fresh server. The cold row counts a fresh server's first creates
// after a short warm-up; the counted creates and gets come after warm-up rounds (not counted) have
// settled the server's CPU per create (the JIT, connections, TLS sessions). Rows are medians with
// min–max.
// Creates and gets are sent by a lean load generator (bench/internal/lean-client.ts), the same
// for both sides: APISERVER_BENCH_CONNECTIONS (default 8) keep-alive HTTPS connections, one
// request in flight on each, protobuf bodies (as controller-runtime sends built-in kinds) encoded
// before the clock starts, answers asked for in protobuf, checked by status and drained undecoded.
// Why: the library's RESTClient spent as much CPU per create as the embedded server, and on 2
// shared cores the load generator's CPU capped what either side could show. 8 connections as
// before; 32 measured the same ratio within the noise (kube-apiserver + etcd gained nothing from
// them). APISERVER_BENCH_CLIENT=rest sends them with 8 RESTClients instead (the bench before the
// lean client), for comparison.
// Lists are timed as full objects and as metadata only (PartialObjectMetadataList, what metadata
// informers ask for), in protobuf (the client's default) and in JSON, each the median of
// LIST_REPEATS lists, with the server's CPU per list. Without KUBEBUILDER_ASSETS, the embedded
// server alone.
// `npx tsx bench/apiserver.ts`, or `npm run bench -- apiserver`.
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import { startAPIServer } from "controller-runtime-apiserver";
import { Environment } from "controller-runtime/envtest";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import {
  ACCEPT_PARTIAL_METADATA_LIST,
  newRESTClient,
  type RESTClient,
  resourceOf,
} from "controller-runtime/rest";
import { encodeProtobuf } from "controller-runtime/protobuf";
import { type LeanClient, newLeanClient } from "./internal/lean-client.js";
import { childrenCpuMs } from "./internal/proc-cpu.js";
import { startServerProcess } from "./internal/server-process.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const configMaps = resourceOf(kinds.ConfigMap);
const namespaces = resourceOf(kinds.Namespace);
const payload = "x".repeat(900); // with metadata, a ConfigMap of about 1 KiB
const REPS = Number(process.env.APISERVER_BENCH_REPS ?? 3);
const WARMUP = 1_000;
/** Creates (and gets) per warm-up round, and the change between rounds taken as settled. */
const WARM_ROUND = 2_000;
const SETTLED = 0.1;
const MAX_WARM_ROUNDS = 10;
const CREATES = 6_000;
const GETS = 12_000;
const WATCHERS = 10;
const WATCH_CREATES = 3_000;
const LIST_REPEATS = 5;
const CONNECTIONS = Number(process.env.APISERVER_BENCH_CONNECTIONS ?? 8);
/** `rest`: creates and gets by 8 RESTClients, as before the lean client; otherwise the lean client. */
const REST_CLIENT = process.env.APISERVER_BENCH_CLIENT === "rest";
/** The lists timed: full objects and metadata only, in protobuf and in JSON. */
const LISTS = [
  { key: "protobuf", what: "full objects, protobuf", json: false, accept: undefined },
  {
    key: "metadataProtobuf",
    what: "metadata only, protobuf",
    json: false,
    accept: ACCEPT_PARTIAL_METADATA_LIST,
  },
  { key: "json", what: "full objects, JSON", json: true, accept: undefined },
  { key: "metadataJson", what: "metadata only, JSON", json: true, accept: ACCEPT_PARTIAL_METADATA_LIST },
] as const;
type ListKey = (typeof LISTS)[number]["key"];

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

/** A timed phase: sends its requests and resolves with the seconds it took. */
type Phase = () => Promise<number>;

/** What sends the counted creates and gets: the lean client, or RESTClients (APISERVER_BENCH_CLIENT=rest). */
interface LoadGenerator {
  /** Prepares the creates of ConfigMaps `name(i)`, i < total (bodies encoded now, not timed). */
  creates(ns: string, name: (i: number) => string, total: number): Phase;
  gets(ns: string, name: (i: number) => string, total: number): Phase;
  close(): Promise<void>;
}

function restLoad(clients: RESTClient[]): LoadGenerator {
  return {
    creates: (ns, name, total) => () =>
      inParallel(clients, total, (c, i) => c.create(configMaps, configMap(name(i)), { namespace: ns })),
    gets: (ns, name, total) => () =>
      inParallel(clients, total, (c, i) => c.get(configMaps, name(i), { namespace: ns })),
    close: async () => {},
  };
}

function leanLoad(lean: LeanClient): LoadGenerator {
  const timed = (requests: Buffer[]) => async () => {
    const start = performance.now();
    await lean.run((i) => requests[i]!, requests.length);
    return (performance.now() - start) / 1000;
  };
  return {
    creates(ns, name, total) {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const bodies = Array.from({ length: total }, (_, i) => {
        const body = encodeProtobuf(configMap(name(i)), { exact: true });
        if (!body) throw new Error("bench: a ConfigMap that protobuf cannot encode");
        return lean.encode({ method: "POST", path, body });
      });
      return timed(bodies);
    },
    gets: (ns, name, total) =>
      timed(
        Array.from({ length: total }, (_, i) =>
          lean.encode({ method: "GET", path: `/api/v1/namespaces/${ns}/configmaps/${name(i)}` }),
        ),
      ),
    close: () => lean.close(),
  };
}

/**
 * Warm-up rounds (creates and gets, not counted) until the server's CPU per create settles: a round
 * within SETTLED of the one before, at most MAX_WARM_ROUNDS. Why: V8 still compiles the embedded
 * server's request path (about 120 functions to TurboFan) for several thousand creates after a
 * 1 000-create warm-up; the first 6 000 took ~210 µs of CPU each, the ones after ~140. Go's
 * kube-apiserver has no JIT. Both sides get the same rounds; the cold figure is reported beside.
 */
async function warmUntilSettled(load: LoadGenerator, ns: string, serverCpu: ServerCpu): Promise<number> {
  let prev: number | undefined;
  for (let round = 0; round < MAX_WARM_ROUNDS; round++) {
    const name = (i: number) => `settle-${round}-${i}`;
    const creates = load.creates(ns, name, WARM_ROUND);
    const cpu0 = await serverCpu();
    await creates();
    const cpu1 = await serverCpu();
    await load.gets(ns, name, WARM_ROUND)();
    if (cpu0 === undefined || cpu1 === undefined) return round + 1;
    const perCreate = (cpu1 - cpu0) / WARM_ROUND;
    if (prev !== undefined && Math.abs(perCreate - prev) <= SETTLED * prev) return round + 1;
    prev = perCreate;
  }
  return MAX_WARM_ROUNDS;
}

/**
 * The counted creates and gets: first the cold creates (a fresh server after a short warm-up, in
 * their own namespace), then, once warm rounds have settled the server's CPU per create, the
 * counted creates and gets in `ns`, with the CPU they took.
 */
async function countedLoad(load: LoadGenerator, ns: string, coldNs: string, serverCpu: ServerCpu) {
  // Not counted: connections, TLS sessions and the first of the JIT (this process's too).
  await load.creates(coldNs, (i) => `warm-${i}`, WARMUP)();
  await load.gets(coldNs, (i) => `warm-${i}`, WARMUP)();
  const cold = load.creates(coldNs, (i) => `cm-${i}`, CREATES);
  const coldCpu0 = await serverCpu();
  const coldSecs = await cold();
  const coldCpu1 = await serverCpu();
  const warmRounds = await warmUntilSettled(load, coldNs, serverCpu);
  // Not counted either: the objects a list of `ns` holds besides the counted ones, as before.
  await load.creates(ns, (i) => `warm-${i}`, WARMUP)();
  const creates = load.creates(ns, (i) => `cm-${i}`, CREATES);
  const serverCpu0 = await serverCpu();
  const clientCpu0 = process.cpuUsage();
  const createSecs = await creates();
  const clientCpu = process.cpuUsage(clientCpu0);
  const serverCpu1 = await serverCpu();
  const gets = load.gets(ns, (i) => `cm-${i % CREATES}`, GETS);
  const serverCpu1g = await serverCpu();
  const getSecs = await gets();
  const serverCpu2 = await serverCpu();
  return {
    coldSecs,
    coldCpu0,
    coldCpu1,
    warmRounds,
    createSecs,
    getSecs,
    clientCpu,
    serverCpu0,
    serverCpu1,
    serverCpu1g,
    serverCpu2,
  };
}

interface Figures {
  startMs: number;
  /** Creates/s of a fresh server's first CREATES after WARMUP, and the server's CPU per create. */
  coldCreatesPerSec: number;
  serverCpuUsPerColdCreate?: number;
  /** Warm-up rounds it took the server's CPU per create to settle. */
  warmRounds: number;
  createsPerSec: number;
  getsPerSec: number;
  listMs: number;
  listed: number;
  /** Median wall time of each kind of list, and the server's CPU per list when known. */
  lists: Record<ListKey, { ms: number; serverCpuMs?: number }>;
  watchEventsPerSec: number;
  /** The server's CPU (its processes': etcd's too for the peer) per create and per get, when known. */
  serverCpuUsPerCreate?: number;
  serverCpuUsPerGet?: number;
  /** This process's CPU (the 8 clients) per create. */
  clientCpuUsPerCreate: number;
}

/** CPU milliseconds the server's processes have used so far, when they can be read. */
type ServerCpu = () => Promise<number | undefined>;

/** Creates, gets, a list of everything created and watch fan-out against one server. */
async function measureServer(config: RESTConfig, startMs: number, serverCpu: ServerCpu): Promise<Figures> {
  const clients = Array.from({ length: 8 }, () => newRESTClient(config));
  const ns = `bench-${Date.now().toString(36)}`;
  try {
    const coldNs = `${ns}-cold`;
    await clients[0]!.create(namespaces, { metadata: { name: ns } });
    await clients[0]!.create(namespaces, { metadata: { name: coldNs } });
    const load = REST_CLIENT ? restLoad(clients) : leanLoad(await newLeanClient(config, CONNECTIONS));
    const counted = await countedLoad(load, ns, coldNs, serverCpu).finally(() => load.close());
    const { createSecs, getSecs, clientCpu, serverCpu0, serverCpu1, serverCpu1g, serverCpu2 } = counted;
    const perRequest = (from: number | undefined, to: number | undefined, n: number) =>
      from === undefined || to === undefined ? undefined : ((to - from) * 1000) / n;
    const t0 = performance.now();
    const list = await clients[0]!.list(configMaps, { namespace: ns });
    const listMs = performance.now() - t0;
    const jsonClient = newRESTClient(config, { contentType: "application/json" });
    const lists = {} as Figures["lists"];
    try {
      for (const l of LISTS) {
        const c = l.json ? jsonClient : clients[0]!;
        const opts = { namespace: ns, accept: l.accept };
        await c.list(configMaps, opts); // not counted: the JIT of this form
        const ms: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i < LIST_REPEATS; i++) {
          const cpu0 = await serverCpu();
          const t = performance.now();
          await c.list(configMaps, opts);
          ms.push(performance.now() - t);
          const cpu1 = await serverCpu();
          if (cpu0 !== undefined && cpu1 !== undefined) cpu.push(cpu1 - cpu0);
        }
        lists[l.key] = {
          ms: summarize(ms).median,
          serverCpuMs: cpu.length > 0 ? summarize(cpu).median : undefined,
        };
      }
    } finally {
      await jsonClient.close();
    }

    // Watch fan-out: 10 watchers, N creates; count events delivered to all of them.
    const abort = new AbortController();
    const rv = list.metadata?.resourceVersion;
    const watchClients = Array.from({ length: WATCHERS }, () => newRESTClient(config));
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
        if (++seen === WATCH_CREATES) break;
      }
    });
    const w0 = performance.now();
    await inParallel(clients, WATCH_CREATES, (c, i) =>
      c.create(configMaps, configMap(`w-${i}`), { namespace: ns }),
    );
    await Promise.all(done);
    const wSecs = (performance.now() - w0) / 1000;
    abort.abort();
    await Promise.all(watchClients.map((c) => c.close()));
    await clients[0]!.delete(namespaces, ns).catch(() => {});
    await clients[0]!.delete(namespaces, coldNs).catch(() => {});
    return {
      startMs,
      coldCreatesPerSec: CREATES / counted.coldSecs,
      serverCpuUsPerColdCreate: perRequest(counted.coldCpu0, counted.coldCpu1, CREATES),
      warmRounds: counted.warmRounds,
      createsPerSec: CREATES / createSecs,
      getsPerSec: GETS / getSecs,
      listMs,
      listed: list.items.length,
      lists,
      watchEventsPerSec: delivered / wSecs,
      serverCpuUsPerCreate: perRequest(serverCpu0, serverCpu1, CREATES),
      serverCpuUsPerGet: perRequest(serverCpu1g, serverCpu2, GETS),
      clientCpuUsPerCreate: (clientCpu.user + clientCpu.system) / CREATES,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

/** Start-to-ready of the embedded server in this process: each start answers /readyz before it counts. */
async function embeddedStarts(): Promise<number[]> {
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
  return starts;
}

async function embedded(startMs: number): Promise<Figures> {
  // The server runs in its own process, as kube-apiserver does: the clients get the other core.
  const server = await startServerProcess({ historySize: 50_000 });
  try {
    return await measureServer(server.restConfig, startMs, () => server.cpuMs());
  } finally {
    await server.stop();
  }
}

const hasPeer = () => Boolean(process.env.KUBEBUILDER_ASSETS || process.env.TEST_ASSET_KUBE_APISERVER);

async function realBinaries(): Promise<Figures> {
  const env = new Environment({ env: { ...process.env, USE_EXISTING_CLUSTER: "" } });
  const t0 = performance.now();
  const config = await env.start();
  const startMs = performance.now() - t0;
  try {
    // The peer's server is kube-apiserver and etcd together, both children of this process.
    return await measureServer(config, startMs, async () => childrenCpuMs(["kube-apiserver", "etcd"]));
  } finally {
    await env.stop();
  }
}

type Side = "embedded" | "kube";

const clientNote = REST_CLIENT ? "8 RESTClients" : `lean client, ${CONNECTIONS} connections`;

export async function run(): Promise<BenchRow[]> {
  const starts = await embeddedStarts();
  const startMs = summarize(starts).median;
  const sides: Side[] = hasPeer() ? ["embedded", "kube"] : ["embedded"];
  const runs: Record<Side, Figures[]> = { embedded: [], kube: [] };
  for (let rep = 0; rep < REPS; rep++) {
    // Rotated: each side goes first as often as the other, the machine's drift shared alike.
    const order = rep % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order)
      runs[side].push(side === "embedded" ? await embedded(startMs) : await realBinaries());
  }
  const ours = runs.embedded;
  const real = runs.kube;
  const rows: BenchRow[] = [];
  const median = (fs: Figures[], pick: (f: Figures) => number | undefined) => {
    const xs = fs.map(pick).filter((x): x is number => x !== undefined);
    return xs.length > 0 ? summarize(xs).median : Number.NaN;
  };
  const range = (fs: Figures[], pick: (f: Figures) => number | undefined) => {
    const xs = fs.map(pick).filter((x): x is number => x !== undefined);
    return xs.length > 1 ? rangeNote(xs) : "";
  };
  const row = (
    name: string,
    pick: (f: Figures) => number,
    unit: string,
    note: string,
    cpu?: (f: Figures) => number | undefined,
  ) => {
    const cpuNote = (fs: Figures[]) =>
      cpu && fs.some((f) => cpu(f) !== undefined)
        ? `; server CPU ${median(fs, cpu).toFixed(0)} µs each (${range(fs, cpu)})`
        : "";
    const ourNote = [range(ours, pick), note].filter((s) => s !== "").join("; ");
    rows.push({ name, value: median(ours, pick), unit, note: ourNote + cpuNote(ours) });
    if (real.length > 0) {
      const ratio = median(ours, pick) / median(real, pick);
      rows.push({
        name: `  kube-apiserver + etcd`,
        value: median(real, pick),
        unit,
        note: `${range(real, pick)}; embedded is ${ratio.toFixed(2)}×${cpuNote(real)}`,
      });
    }
  };
  rows.push({
    name: "start to ready (median of 7)",
    value: startMs,
    unit: "ms",
    note: `${rangeNote(starts)}; target < 100`,
  });
  if (real.length > 0) {
    const kubeStart = median(real, (f) => f.startMs);
    rows.push({
      name: "  kube-apiserver + etcd",
      value: kubeStart,
      unit: "ms",
      note: `${range(real, (f) => f.startMs)}; embedded is ${(startMs / kubeStart).toFixed(2)}×`,
    });
  }
  row(
    `creates/s, 1 KiB ConfigMaps, ${clientNote} (${CREATES}, median of ${REPS})`,
    (f) => f.createsPerSec,
    "/s",
    `target ≥ 5× the peer; after ${median(ours, (f) => f.warmRounds)} warm-up rounds${real.length > 0 ? ` (the peer ${median(real, (f) => f.warmRounds)})` : ""}`,
    (f) => f.serverCpuUsPerCreate,
  );
  row(
    `  cold: a fresh server's first ${CREATES} creates, after ${WARMUP}`,
    (f) => f.coldCreatesPerSec,
    "/s",
    "the JIT still compiling",
    (f) => f.serverCpuUsPerColdCreate,
  );
  row(
    `gets/s, ${clientNote} (${GETS}, median of ${REPS})`,
    (f) => f.getsPerSec,
    "/s",
    "",
    (f) => f.serverCpuUsPerGet,
  );
  row(`list of ${ours[0]?.listed ?? 0} ConfigMaps`, (f) => f.listMs, "ms", "");
  for (const l of LISTS) {
    const cpu = (f: Figures) => f.lists[l.key].serverCpuMs;
    const cpuNote = (fs: Figures[]) =>
      fs.some((f) => cpu(f) !== undefined)
        ? `server CPU ${median(fs, cpu).toFixed(1)} ms${fs.length > 1 ? ` (${range(fs, cpu)})` : ""}`
        : "";
    const pick = (f: Figures) => f.lists[l.key].ms;
    rows.push({
      name: `  list, ${l.what} (median of ${LIST_REPEATS})`,
      value: median(ours, pick),
      unit: "ms",
      note: [range(ours, pick), cpuNote(ours)].filter((n) => n !== "").join("; "),
    });
    if (real.length > 0)
      rows.push({
        name: "    kube-apiserver + etcd",
        value: median(real, pick),
        unit: "ms",
        note: [
          range(real, pick),
          `embedded is ${(median(ours, pick) / median(real, pick)).toFixed(2)}×`,
          cpuNote(real),
        ]
          .filter((n) => n !== "")
          .join("; "),
      });
  }
  row(`watch events/s delivered to ${WATCHERS} watchers`, (f) => f.watchEventsPerSec, "/s", "");
  rows.push({
    name: `client process CPU per create (${clientNote})`,
    value: median(ours, (f) => f.clientCpuUsPerCreate),
    unit: "µs",
    note: `against the embedded server; load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
  });
  if (real.length > 0)
    rows.push({
      name: "  against kube-apiserver + etcd",
      value: median(real, (f) => f.clientCpuUsPerCreate),
      unit: "µs",
      note: range(real, (f) => f.clientCpuUsPerCreate),
    });
  if (real.length === 0)
    rows.push({
      name: "kube-apiserver + etcd",
      value: Number.NaN,
      unit: "",
      note: "set KUBEBUILDER_ASSETS to compare",
    });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
