// Informer sync in protobuf and in JSON (issue 43): ConfigMaps of about 1 KiB in one namespace,
// from start to synced, for
// - client-go's informer (k8s.io/client-go v0.37.2, bench/go/informer; streaming list, its
//   default since 1.35), with ContentType protobuf (controller-runtime's default for built-in
//   kinds) and JSON;
// - ours (newCache, streaming list, its default), with contentType protobuf (the default) and JSON;
// against the embedded API server (in a process of its own) and, with KUBEBUILDER_ASSETS set,
// real etcd + kube-apiserver. Each run is a child process that first syncs a small warm-up
// namespace, then the measured one; 3 rounds, scenario order rotated; medians with min–max,
// CPU (user + system of the client process) beside wall, and the embedded server's CPU. The
// server's side alone: ours listing and watching in JSON too, and GETs of single objects (GET
// protobuf / GET JSON: PB_BENCH_GETS objects, default 5000, one request each, 4 at a time).
// The embedded server encodes a stored object's protobuf once, on its first protobuf read, and
// keeps it: before the rounds, one protobuf sync of each size's objects is measured on its own
// ("first protobuf read"), so that the rounds compare the answers the server gives from then on;
// GETs in each encoding warm the server's GET path up, not counted.
// PB_BENCH_SERVER_PROFILE=<prefix>: the embedded server's CPU profile of each scenario's run.
// `npm run bench -- protobuf`; PB_BENCH_SIZES=10000,50000,100000 (default 10000,100000),
// PB_BENCH_SERVERS=embedded,kube (default both where available), PB_BENCH_ROUNDS (default 3).
// The GET scenarios differ by a few µs of some 50 a GET, less than the machine's noise in a
// round: they run PB_BENCH_GET_ROUNDS rounds (default 9), the rounds past PB_BENCH_ROUNDS with
// the GET scenarios alone, still rotated; their rows give the server's CPU per GET.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { newCache } from "controller-runtime/cache";
import { Environment } from "controller-runtime/envtest";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import { renderKubeconfig } from "../packages/controller-runtime/src/rest/kubeconfig-write.js";
import { runChildJSON } from "./internal/child-json.js";
import { startServerProcess } from "./internal/server-process.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const SIZES = (process.env.PB_BENCH_SIZES ?? "10000,100000").split(",").map(Number);
const ROUNDS = Number(process.env.PB_BENCH_ROUNDS ?? 3);
const WARM = "pb-warm";
const WARM_OBJECTS = 300;
const ALL_SCENARIOS = [
  "client-go protobuf",
  "client-go JSON",
  "ours protobuf",
  "ours JSON",
  "client-go protobuf, list + watch",
  "ours protobuf, list + watch",
  "ours JSON, list + watch",
  "floor: protobuf watch-list, frames split",
  "GET protobuf",
  "GET JSON",
  "GET protobuf vs JSON, interleaved",
] as const;
type Scenario = (typeof ALL_SCENARIOS)[number];
const INTERLEAVED: Scenario = "GET protobuf vs JSON, interleaved";
/** PB_BENCH_SCENARIOS="ours protobuf;client-go protobuf": a subset (names hold commas: `;` separates). */
const SCENARIOS: readonly Scenario[] = process.env.PB_BENCH_SCENARIOS
  ? ALL_SCENARIOS.filter((s) => process.env.PB_BENCH_SCENARIOS!.split(";").includes(s))
  : ALL_SCENARIOS;
const PB = "application/vnd.kubernetes.protobuf";
/** Objects the GET scenarios read, one request each (all of them below that many). */
const GETS = Number(process.env.PB_BENCH_GETS ?? 5000);
/** Rounds of the GET scenarios (the other scenarios' rounds, then rounds of the GETs alone). */
const GET_ROUNDS = Number(process.env.PB_BENCH_GET_ROUNDS ?? 9);

interface Result {
  ms: number;
  cpuMs: number;
  count: number;
  /** The interleaved GETs: the server's main-thread CPU a GET, in µs, batch by batch. */
  pairs?: { protobufUs: number[]; jsonUs: number[] };
}

/** Batches of the interleaved GETs: some 15 ms of the server's CPU each. */
const BATCH = 250;

interface ChildTask {
  restConfig: RESTConfig;
  namespace: string;
  contentType: typeof PB | "application/json";
  /** List + watch instead of the streaming list. */
  list?: boolean;
  /** The floor: the streaming list's bytes, split into frames, nothing decoded but each event's type. */
  floor?: boolean;
  /** GETs of that many objects, one at a time, bodies read and not decoded (the server's side). */
  gets?: number;
  /** The GETs in batches of each encoding in turn, the server's (this pid's) CPU read around each. */
  interleave?: { serverPid: number };
  profile?: string;
}

function configMapData(i: number): Record<string, string> {
  const line = `key-${i}: ${"v".repeat(60)}\n`;
  return { "app.yaml": line.repeat(10), mode: i % 2 ? "odd" : "even" };
}

// ---- child: ours -------------------------------------------------------------------------------

async function syncOurs(
  config: RESTConfig,
  namespace: string,
  listAndWatch: boolean,
): Promise<{ count: number; stop: () => Promise<void> }> {
  const cache = newCache(config, {
    defaultNamespaces: [namespace],
    ...(listAndWatch ? { watcher: { streamingList: false } } : {}),
  });
  const ctl = new AbortController();
  const running = cache.start(ctl.signal);
  const list = await cache.list(kinds.ConfigMap, { inNamespace: namespace });
  return {
    count: list.items.length,
    stop: async () => {
      ctl.abort();
      await running;
    },
  };
}

/** The streaming list in protobuf read raw: frames split, only each event's type read. */
async function floor(
  config: RESTConfig,
  namespace: string,
): Promise<{ count: number; stop: () => Promise<void> }> {
  const rest = newRESTClient(config);
  const res = await rest.transport.send({
    method: "GET",
    path: `/api/v1/namespaces/${namespace}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    headers: { accept: PB },
  });
  let count = 0;
  let pending: Buffer = Buffer.alloc(0);
  outer: for await (const chunk of res.body) {
    const buf: Buffer = pending.length > 0 ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    let at = 0;
    while (buf.length - at >= 4) {
      const len = buf.readUInt32BE(at);
      if (buf.length - at - 4 < len) break;
      // WatchEvent.type is field 1, first: "BOOKMARK" ends the initial events.
      const typeLen = buf[at + 5]!;
      const type = buf.toString("latin1", at + 6, at + 6 + typeLen);
      at += 4 + len;
      if (type === "BOOKMARK") break outer;
      count++;
    }
    pending = buf.subarray(at);
  }
  res.body.destroy();
  return { count, stop: () => rest.close() };
}

/** GETs of `cm-0` … `cm-<n-1>` in the negotiated encoding, 4 at a time, bodies read raw. */
async function gets(
  config: RESTConfig,
  namespace: string,
  n: number,
): Promise<{ count: number; stop: () => Promise<void> }> {
  const rest = newRESTClient(config);
  let next = 0;
  let count = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await rest.transport.send({
        method: "GET",
        path: `/api/v1/namespaces/${namespace}/configmaps/cm-${i}`,
        headers: { accept: config.contentType ?? "application/json" },
      });
      for await (const _ of res.body);
      if (res.statusCode === 200) count++;
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return { count, stop: () => rest.close() };
}

/** CPU ns the main thread of process `pid` has run (Linux; its JavaScript, its socket writes). */
function mainThreadNs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
}

/**
 * The same objects' GETs in protobuf and in JSON, batch by batch, in turns first: the machine's
 * load (waves longer than a run) weighs on both of a pair alike. The server's main thread's CPU
 * is read around each batch (its helper threads, GC and compiler, left out: they run whenever).
 */
async function interleavedGets(
  config: RESTConfig,
  namespace: string,
  n: number,
  serverPid: number,
): Promise<{ count: number; pairs: NonNullable<Result["pairs"]>; stop: () => Promise<void> }> {
  const rest = newRESTClient(config);
  let count = 0;
  const batch = async (from: number, to: number, accept: string): Promise<number> => {
    let next = from;
    const worker = async () => {
      for (let i = next++; i < to; i = next++) {
        const res = await rest.transport.send({
          method: "GET",
          path: `/api/v1/namespaces/${namespace}/configmaps/cm-${i}`,
          headers: { accept },
        });
        for await (const _ of res.body);
        if (res.statusCode === 200) count++;
      }
    };
    const ns0 = mainThreadNs(serverPid);
    await Promise.all(Array.from({ length: 4 }, worker));
    return (mainThreadNs(serverPid) - ns0) / 1000 / (to - from);
  };
  const pairs = { protobufUs: [] as number[], jsonUs: [] as number[] };
  for (let from = 0, k = 0; from < n; from += BATCH, k++) {
    const to = Math.min(n, from + BATCH);
    if (k % 2 === 0) {
      pairs.protobufUs.push(await batch(from, to, PB));
      pairs.jsonUs.push(await batch(from, to, "application/json"));
    } else {
      pairs.jsonUs.push(await batch(from, to, "application/json"));
      pairs.protobufUs.push(await batch(from, to, PB));
    }
  }
  return { count, pairs, stop: () => rest.close() };
}

async function child(task: ChildTask): Promise<Result> {
  const config = { ...task.restConfig, contentType: task.contentType };
  let pairs: Result["pairs"];
  const syncOurs_ = (ns: string) =>
    task.interleave !== undefined
      ? ns === WARM
        ? gets(config, ns, WARM_OBJECTS)
        : interleavedGets(config, ns, task.gets!, task.interleave.serverPid).then((r) => {
            pairs = r.pairs;
            return r;
          })
      : task.gets !== undefined
        ? gets(config, ns, ns === WARM ? WARM_OBJECTS : task.gets)
        : task.floor
          ? floor(config, ns)
          : syncOurs(config, ns, task.list === true);
  const warm = await syncOurs_(WARM);
  if (warm.count !== WARM_OBJECTS) throw new Error(`warm-up saw ${warm.count} objects`);
  await warm.stop();
  let session: import("node:inspector/promises").Session | undefined;
  if (task.profile) {
    const { Session } = await import("node:inspector/promises");
    session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const { count, stop } = await syncOurs_(task.namespace);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  if (session && task.profile) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(task.profile, JSON.stringify(profile));
  }
  await stop();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, count, ...(pairs ? { pairs } : {}) };
}

// ---- parent ------------------------------------------------------------------------------------

const goDir = fileURLToPath(new URL("./go/informer/", import.meta.url));
const goBinary = join(tmpdir(), `cr-ts-bench-informer-${process.getuid?.() ?? 0}`);

function buildGo(): void {
  execFileSync("go", ["build", "-o", goBinary, "."], { cwd: goDir, stdio: ["ignore", "ignore", "inherit"] });
}

function runGo(kubeconfig: string, namespace: string, contentType: string, list: boolean): Promise<Result> {
  return new Promise((resolve, reject) => {
    const args = [
      "-kubeconfig",
      kubeconfig,
      "-namespace",
      namespace,
      "-warm",
      WARM,
      "-content-type",
      contentType,
    ];
    if (process.env.PB_BENCH_GO_PROFILE)
      args.push("-cpuprofile", `${process.env.PB_BENCH_GO_PROFILE}-${namespace}.pprof`);
    // client-go's informer lists and watches when its WatchListClient feature is off.
    const env = list ? { ...process.env, KUBE_FEATURE_WatchListClient: "false" } : process.env;
    const proc = spawn(goBinary, args, { stdio: ["ignore", "pipe", "inherit"], env });
    let out = "";
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`client-go informer exited with ${code}: ${out}`));
      const r = JSON.parse(out.trim().split("\n").pop() ?? "{}") as {
        wallNs: number;
        cpuNs: number;
        count: number;
      };
      resolve({ ms: r.wallNs / 1e6, cpuMs: r.cpuNs / 1e6, count: r.count });
    });
  });
}

async function populate(config: RESTConfig, namespace: string, n: number): Promise<void> {
  const rest = newRESTClient(config);
  const cms = resourceOf(kinds.ConfigMap);
  try {
    await rest.create(resourceOf(kinds.Namespace), {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace },
    });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < n; i = next++) {
        await rest.create<ConfigMap>(
          cms,
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: `cm-${i}`, labels: { app: `a${i % 10}` } },
            data: configMapData(i),
          },
          { namespace },
        );
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  } finally {
    await rest.close();
  }
}

interface Server {
  name: string;
  restConfig: RESTConfig;
  kubeconfig: string;
  /** The server's process id where the bench started it (the interleaved GETs read its CPU). */
  pid?: number;
  cpuMs?: () => Promise<number>;
  /** The same, split into user and system (kernel: socket writes) time. */
  cpuUsage?: () => Promise<{ userMs: number; systemMs: number }>;
  /** The server's CPU profile around each scenario (PB_BENCH_SERVER_PROFILE, embedded only). */
  profile?: { start(): Promise<void>; stop(path: string): Promise<void> };
  stop(): Promise<void>;
}

async function embeddedServer(): Promise<Server> {
  const server = await startServerProcess({ historySize: 1000 });
  const dir = mkdtempSync(join(tmpdir(), "pb-bench-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, server.kubeconfig);
  return {
    name: "embedded",
    restConfig: server.restConfig,
    kubeconfig,
    pid: server.pid,
    cpuMs: () => server.cpuMs(),
    cpuUsage: () => server.cpuUsage(),
    profile: { start: () => server.startProfile(), stop: (path) => server.stopProfile(path) },
    stop: () => server.stop(),
  };
}

async function kubeServer(): Promise<Server> {
  const env = new Environment({ env: { ...process.env, USE_EXISTING_CLUSTER: "" } });
  const restConfig = await env.start();
  const dir = mkdtempSync(join(tmpdir(), "pb-bench-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, renderKubeconfig(restConfig));
  return { name: "kube-apiserver", restConfig, kubeconfig, stop: () => env.stop() };
}

async function measure(server: Server, rows: BenchRow[]): Promise<void> {
  // The interleaved GETs read the server's CPU in /proc: only of a server the bench started.
  const scenarios = server.pid === undefined ? SCENARIOS.filter((s) => s !== INTERLEAVED) : SCENARIOS;
  await populate(server.restConfig, WARM, WARM_OBJECTS);
  for (const n of SIZES) {
    const ns = `pb-${n}`;
    const t0 = performance.now();
    await populate(server.restConfig, ns, n);
    process.stderr.write(
      `${server.name}: ${n} ConfigMaps created in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`,
    );
    const runOurs = (
      scenario: Scenario,
      contentType: string,
      isGet: boolean,
      expected: number,
      list: boolean,
    ) =>
      runChildJSON<Result>({
        moduleUrl: import.meta.url,
        env: {
          PB_BENCH_CHILD: JSON.stringify({
            restConfig: server.restConfig,
            namespace: ns,
            contentType: contentType as ChildTask["contentType"],
            list,
            floor: scenario.startsWith("floor"),
            ...(isGet ? { gets: scenario === INTERLEAVED ? expected / 2 : expected } : {}),
            ...(scenario === INTERLEAVED ? { interleave: { serverPid: server.pid! } } : {}),
            profile: process.env.PB_BENCH_PROFILE
              ? `${process.env.PB_BENCH_PROFILE}-${server.name}-${n}-${scenario.replace(/[^a-z]+/gi, "-")}.cpuprofile`
              : undefined,
          } satisfies ChildTask),
        },
        what: `${scenario} (${n})`,
      });
    if (server.cpuUsage && scenarios.some((s) => s.includes("protobuf"))) {
      // The first protobuf read of these objects: the embedded server encodes each one here.
      const u0 = await server.cpuUsage();
      const r = await runOurs("ours protobuf", PB, false, n, false);
      const u1 = await server.cpuUsage();
      const serverMs = u1.userMs - u0.userMs + u1.systemMs - u0.systemMs;
      if (r.count !== n) throw new Error(`first protobuf read synced ${r.count} of ${n}`);
      process.stderr.write(
        `  ${server.name} ${n} first protobuf read: ${r.ms.toFixed(0)} ms, server CPU ${serverMs.toFixed(0)} ms\n`,
      );
      rows.push({
        name: `${server.name}, ${n}: first protobuf read (ours protobuf, once)`,
        value: r.ms,
        unit: "ms",
        note: `CPU ${r.cpuMs.toFixed(0)} ms, server CPU ${serverMs.toFixed(0)} ms: every object's protobuf encoded and kept`,
      });
    }
    // The server's GET path warmed up (its code optimized) in both encodings, not counted: the
    // GET scenario that came first in the first round paid it (some 250 ms of server CPU), which
    // the rotation always gave GET protobuf.
    for (const scenario of scenarios.filter((s) => s.startsWith("GET"))) {
      const expected = Math.min(n, GETS) * (scenario === INTERLEAVED ? 2 : 1);
      const r = await runOurs(
        scenario,
        scenario.includes("protobuf") ? PB : "application/json",
        true,
        expected,
        false,
      );
      if (r.count !== expected) throw new Error(`${scenario} warm-up read ${r.count} of ${expected}`);
    }
    const results = new Map<Scenario, Result[]>(scenarios.map((s) => [s, []]));
    const serverCpu = new Map<Scenario, number[]>(scenarios.map((s) => [s, []]));
    const getScenarios = scenarios.filter((s) => s.startsWith("GET"));
    const rounds = getScenarios.length > 0 ? Math.max(ROUNDS, GET_ROUNDS) : ROUNDS;
    for (let round = 0; round < rounds; round++) {
      const these = round < ROUNDS ? scenarios : getScenarios;
      const order = these.map((_, i) => these[(i + round) % these.length]!);
      for (const scenario of order) {
        const serverProfile = process.env.PB_BENCH_SERVER_PROFILE;
        if (serverProfile && server.profile) await server.profile.start();
        const u0 = await server.cpuUsage?.();
        const contentType = scenario.includes("protobuf") ? PB : "application/json";
        const isGet = scenario.startsWith("GET");
        const expected = isGet ? Math.min(n, GETS) * (scenario === INTERLEAVED ? 2 : 1) : n;
        const list = scenario.endsWith("list + watch");
        const r = scenario.startsWith("client-go")
          ? await runGo(server.kubeconfig, ns, contentType, list)
          : await runOurs(scenario, contentType, isGet, expected, list);
        if (r.count !== expected) throw new Error(`${scenario} synced ${r.count} of ${expected}`);
        results.get(scenario)!.push(r);
        let serverNote = "";
        if (server.cpuUsage && u0) {
          const u1 = await server.cpuUsage();
          const user = u1.userMs - u0.userMs;
          const system = u1.systemMs - u0.systemMs;
          serverCpu.get(scenario)!.push(user + system);
          serverNote = `, server CPU ${(user + system).toFixed(0)} ms (user ${user.toFixed(0)}, system ${system.toFixed(0)})`;
        }
        if (serverProfile && server.profile) {
          await server.profile.stop(
            `${serverProfile}-${n}-${scenario.replace(/[^a-z]+/gi, "-")}-${round}.cpuprofile`,
          );
        }
        process.stderr.write(
          `  ${server.name} ${n} ${scenario}: ${r.ms.toFixed(0)} ms, CPU ${r.cpuMs.toFixed(0)} ms${serverNote}\n`,
        );
      }
    }
    // The machine's load comes in waves longer than a run: runs next to each other share it.
    // The GETs' difference taken in each round (the two encodings run one after the other, in
    // turns first) tells what medians a wave apart do not.
    const interleaved = (results.get(INTERLEAVED) ?? []).flatMap((r) => (r.pairs ? [r.pairs] : []));
    if (interleaved.length > 0) {
      const pb = interleaved.flatMap((p) => p.protobufUs);
      const json = interleaved.flatMap((p) => p.jsonUs);
      const diffs = pb.map((x, i) => x - json[i]!);
      const median = summarize(diffs).median;
      const fmt = (xs: number[]) => `${summarize(xs).median.toFixed(1)} µs ${rangeNote(xs)}`;
      rows.push({
        name: `${server.name}, ${n}: GET protobuf − GET JSON, interleaved, server main thread a GET`,
        value: median,
        unit: "µs",
        note: `${rangeNote(diffs)} over ${diffs.length} pairs of ${BATCH}-GET batches; protobuf ≤ JSON in ${diffs.filter((d) => d <= 0).length}; protobuf ${fmt(pb)}, JSON ${fmt(json)}`,
      });
    }
    const pbGets = serverCpu.get("GET protobuf") ?? [];
    const jsonGets = serverCpu.get("GET JSON") ?? [];
    if (pbGets.length > 0 && pbGets.length === jsonGets.length) {
      const diffs = pbGets.map((x, i) => x - jsonGets[i]!);
      const median = summarize(diffs).median;
      rows.push({
        name: `${server.name}, ${n}: GET protobuf − GET JSON, server CPU by round`,
        value: median,
        unit: "ms",
        note: `${rangeNote(diffs)}; ${((median * 1000) / Math.min(n, GETS)).toFixed(2)} µs a GET; protobuf ≤ JSON in ${diffs.filter((d) => d <= 0).length} of ${diffs.length} rounds`,
      });
    }
    const peerRuns = results.get("client-go protobuf") ?? [];
    const peer = peerRuns.length > 0 ? summarize(peerRuns.map((r) => r.ms)).median : Number.NaN;
    for (const scenario of scenarios) {
      const rs = results.get(scenario)!;
      const walls = rs.map((r) => r.ms);
      const cpus = rs.map((r) => r.cpuMs);
      const wall = summarize(walls);
      const cpu = summarize(cpus);
      const sc = serverCpu.get(scenario)!;
      // kube-apiserver's CPU is not read here (no pid of its own): no per-GET figure for it.
      const perGet =
        scenario.startsWith("GET") && sc.length > 0
          ? ` (${((summarize(sc).median * 1000) / (Math.min(n, GETS) * (scenario === INTERLEAVED ? 2 : 1))).toFixed(1)} µs a GET)`
          : "";
      const serverNote =
        sc.length > 0 ? `, server CPU ${summarize(sc).median.toFixed(0)} ms ${rangeNote(sc)}${perGet}` : "";
      rows.push({
        name: `${server.name}, ${n}: ${scenario}`,
        value: wall.median,
        unit: "ms",
        note: `${rangeNote(walls)}; CPU ${cpu.median.toFixed(0)} ms ${rangeNote(cpus)}${serverNote}; ${(wall.median / peer).toFixed(2)}× client-go protobuf`,
      });
    }
  }
}

export async function run(): Promise<BenchRow[]> {
  buildGo();
  const rows: BenchRow[] = [];
  const wanted = (process.env.PB_BENCH_SERVERS ?? "embedded,kube").split(",");
  const load0 = loadavg()[0]!;
  if (wanted.includes("embedded")) {
    const server = await embeddedServer();
    try {
      await measure(server, rows);
    } finally {
      await server.stop();
    }
  }
  if (wanted.includes("kube") && (process.env.KUBEBUILDER_ASSETS || process.env.TEST_ASSET_KUBE_APISERVER)) {
    const server = await kubeServer();
    try {
      await measure(server, rows);
    } finally {
      await server.stop();
    }
  }
  rows.push({
    name: "machine load",
    value: loadavg()[0]!,
    unit: "load avg",
    note: `at start ${load0.toFixed(1)}, ${availableParallelism()} cores; ${ROUNDS} rounds (GETs ${Math.max(ROUNDS, GET_ROUNDS)}), rotated`,
  });
  return rows;
}

if (process.env.PB_BENCH_CHILD) {
  const task = JSON.parse(process.env.PB_BENCH_CHILD) as ChildTask;
  child(task).then(
    (r) => {
      console.log(JSON.stringify(r));
      process.exit(0);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printRows(await run());
}
