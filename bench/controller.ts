// End to end on the embedded API server (issue 5): a controller for ConfigMaps whose reconcile only
// records the time, ours (Manager + builder, 4 workers, every default on: the JSON logger at info,
// metrics, frozen objects, the slow-reconcile watch; run from the TypeScript sources through tsx, as the tests
// run it) against a minimal controller on @kubernetes/client-node 1.x's makeInformer with a plain
// de-duplicating queue and 4 async workers; and ours again with ConfigMaps in JSON (what
// client-node reads) rather than protobuf, to compare the decoders. Each side runs in a child
// process of its own, against a fresh server in another, with the same 2 000-object warm-up; 3
// rounds, order rotated; medians with min–max.
// - cold: after the warm-up, a burst of 10 000 creates of 1 KiB ConfigMaps from 8 keep-alive REST
//   clients in a load-generator child process, as fast as the server takes them: this process's
//   CPU (the controller's alone) per object, with V8 still compiling; and the same from the
//   controller's first object (warm-up and burst), with each side's first full garbage
//   collections in it (a process that keeps a smaller heap reaches its first mark-compact later:
//   in the burst rather than the warm-up);
// - settling: bursts of 5 000 until this process's CPU per object is within 10% of the round
//   before (at most 8), so that the warm figures measure the controller and not the JIT, as
//   bench/apiserver.ts does for the server;
// - warm: a burst of 30 000 the same way: the time from the first create until every object has
//   been reconciled once, reconciles/s, this process's CPU and its garbage collections
//   (scavenges, mark-compacts) during it; 30 000 rather than 10 000 so that a mark-compact (50–90
//   ms on either side here) is spread over the burst rather than in or out of it by luck;
// - steady: 1 000 creates/s for 5 s (open loop, from the controller's process, so both ends of
//   the latency are read on one clock); p50/p99 from the moment each create is sent to the start
//   of its first reconcile, matched by name: the server's create path, its watch and the
//   controller's informer and queue;
// - allocation: a burst of 3 000 more under V8's sampling heap profiler, the bytes the controller
//   process allocated per object (what its GC works through; objects already collected count).
// `npx tsx bench/controller.ts`, or `npm run bench -- controller`. CONTROLLER_BENCH_BURST sets the
// cold burst, CONTROLLER_BENCH_WARM_BURST the warm one; BENCH_PROFILE_DIR,
// BENCH_ALLOC_PROFILE_DIR and BENCH_PERF_FILE profile the warm burst (BENCH_PROFILE_BURST=cold:
// the cold one); BENCH_MARKS=1 prints a line on stdout where it starts and ends, to cut the
// output of `--trace-opt --trace-deopt --trace-gc` (run one side: BENCH_CONTROLLER_SIDE=ours);
// BENCH_PERF_FREQ sets perf's sampling rate (1999 Hz). Flags for one side's process go on node's
// command line, not in NODE_OPTIONS under npx (npm sets that from .npmrc):
// `NODE_OPTIONS=--conditions=cr-source BENCH_CONTROLLER_SIDE=ours node --perf-basic-prof --import tsx bench/controller.ts`.
// Neither side is given V8 or GC flags: they are the user's to choose, not the library's.
import { spawn } from "node:child_process";
import { constants as perfConstants, PerformanceObserver, performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { kinds } from "controller-runtime/api";
import { controllerManagedBy } from "controller-runtime/builder";
import { newLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { type LoadProcess, startLoadProcess } from "./internal/load-process.js";
import { type ServerProcess, startServerProcess } from "./internal/server-process.js";
import { runChildJSON } from "./internal/child-json.js";
import { profileAllocations, profilePhase, sampleAllocations } from "./internal/phase-profile.js";
import { PlainQueue } from "./internal/plain-queue.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const BURST = Number(process.env.CONTROLLER_BENCH_BURST ?? 10_000);
const WARM_BURST = Number(process.env.CONTROLLER_BENCH_WARM_BURST ?? 30_000);
/** Objects per settling round, the change between rounds taken as settled, and the most rounds. */
const SETTLE_ROUND = 5_000;
const SETTLED = 0.1;
const MAX_SETTLE_ROUNDS = 8;
const RATE = 1_000; // creates/s in the steady phase
const STEADY_SECONDS = 5;
const WARMUP = 2_000;
const ALLOC_BURST = 3_000;
const ROUNDS = 3;
const SIDE_ENV = "BENCH_CONTROLLER_SIDE";
const CLIENTS = 8;
const WORKERS = 4;
const TIMEOUT_MS = 60_000;

const configMaps = resourceOf(kinds.ConfigMap);
const namespaces = resourceOf(kinds.Namespace);
const payload = "x".repeat(900); // with metadata, a ConfigMap of about 1 KiB, as bench/apiserver.ts

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { payload } };
}

/** First-reconcile times by `namespace/name`, and waits for a namespace to reach a count. */
class Tracker {
  readonly first = new Map<string, number>();
  reconciles = 0;
  readonly #counts = new Map<string, number>();
  readonly #waiters: Array<{ ns: string; n: number; resolve: () => void }> = [];

  record(namespace: string, name: string): void {
    const now = performance.now();
    this.reconciles++;
    const key = `${namespace}/${name}`;
    if (this.first.has(key)) return;
    this.first.set(key, now);
    const n = (this.#counts.get(namespace) ?? 0) + 1;
    this.#counts.set(namespace, n);
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i]!;
      if (w.ns === namespace && n >= w.n) {
        this.#waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  count(namespace: string): number {
    return this.#counts.get(namespace) ?? 0;
  }

  async until(namespace: string, n: number): Promise<void> {
    if (this.count(namespace) >= n) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#waiters.push({ ns: namespace, n, resolve })),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `${this.count(namespace)} of ${n} objects in ${namespace} reconciled after ${TIMEOUT_MS} ms`,
              ),
            ),
          TIMEOUT_MS,
        );
      }),
    ]).finally(() => clearTimeout(timer));
  }
}

interface RunningController {
  stop(): Promise<void>;
}
type ControllerFactory = (server: ServerProcess, tracker: Tracker) => Promise<RunningController>;

/**
 * Ours: Manager + builder, 4 workers, a reconcile that records the time. ConfigMaps travel in
 * protobuf (the default for built-in kinds, as controller-runtime's), or in JSON when
 * `contentType` says so (client-node's encoding, for comparison).
 */
const oursWith =
  (contentType?: RESTConfig["contentType"]): ControllerFactory =>
  async (server, tracker) => {
    const config = contentType ? { ...server.restConfig, contentType } : server.restConfig;
    const mgr = await Manager.create(config, {
      // The default logger (JSON at info), writing nowhere: stdout carries the child's result.
      logger: newLogger({ destination: new Writable({ write: (_chunk, _enc, done) => done() }) }),
      metrics: { bindAddress: "0" },
    });
    controllerManagedBy(mgr)
      .for(kinds.ConfigMap)
      .withOptions({ maxConcurrentReconciles: WORKERS })
      .complete({
        async reconcile(req) {
          tracker.record(req.namespace, req.name);
        },
      });
    const ctl = new AbortController();
    const done = mgr.start(ctl.signal);
    await mgr.elected();
    return {
      async stop() {
        ctl.abort();
        await done;
      },
    };
  };

/** The peer: client-node's makeInformer on all ConfigMaps, add/update → PlainQueue, 4 workers. */
const clientNode: ControllerFactory = async (server, tracker) => {
  const { KubeConfig, CoreV1Api, makeInformer } = await import("@kubernetes/client-node");
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig);
  const api = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1ConfigMap>(kc, "/api/v1/configmaps", () =>
    api.listConfigMapForAllNamespaces(),
  );
  const queue = new PlainQueue();
  const enqueue = (obj: V1ConfigMap) => queue.add(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
  informer.on("add", enqueue);
  informer.on("update", enqueue);
  let stopping = false;
  informer.on("error", (err) => {
    if (!stopping) process.stderr.write(`client-node informer error: ${String(err)}\n`);
  });
  const reconcile = async (key: string) => {
    const slash = key.indexOf("/");
    tracker.record(key.slice(0, slash), key.slice(slash + 1));
  };
  const workers = Array.from({ length: WORKERS }, async () => {
    for (let key = await queue.get(); key !== undefined; key = await queue.get()) await reconcile(key);
  });
  await informer.start();
  return {
    async stop() {
      stopping = true;
      await informer.stop();
      queue.close();
      await Promise.all(workers);
    },
  };
};

/**
 * Creates `RATE` ConfigMaps a second for `STEADY_SECONDS`, open loop (create i is sent at
 * start + i/RATE whatever the earlier ones are doing), round-robin over the clients; resolves to
 * each create's response time by name, and the time the last create was sent.
 */
async function steady(
  clients: RESTClient[],
  ns: string,
): Promise<{ sentAt: Map<string, number>; sendMs: number }> {
  const total = RATE * STEADY_SECONDS;
  const sentAt = new Map<string, number>();
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) * RATE) / 1000) + 1);
    for (; sent < due; sent++) {
      const name = `s-${sent}`;
      const c = clients[sent % clients.length]!;
      sentAt.set(name, performance.now());
      pending.push(c.create(configMaps, configMap(name), { namespace: ns }).then(() => {}));
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  const sendMs = performance.now() - start;
  await Promise.all(pending);
  return { sentAt, sendMs };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Counts this process's garbage collections from now; the returned function stops and resolves to
 * the counts (entries arrive after the GC, so it lets the observer catch up first).
 */
function countGCs(): () => Promise<{ scavenges: number; markCompacts: number }> {
  const counts = { scavenges: 0, markCompacts: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = ((e as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MINOR) counts.scavenges++;
      else if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) counts.markCompacts++;
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return async () => {
    await new Promise((r) => setImmediate(r));
    observer.disconnect();
    return counts;
  };
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

interface SideResult {
  /** Bytes the controller process allocated per object (sampled), objects collected since included. */
  allocatedPerObject: number;
  /** Settling rounds before the warm burst (the same rule for both sides). */
  settleRounds: number;
  // The warm burst (the JIT settled): the figures the goals are read from.
  createsPerSec: number;
  allReconciledMs: number;
  tailMs: number;
  reconcilesPerSec: number;
  burstCpuMs: number;
  /** Garbage collections during the warm burst: young generation (scavenges), full (mark-compacts). */
  burstScavenges: number;
  burstMarkCompacts: number;
  /** Time the event loop was busy (not waiting for I/O) during the warm burst. */
  burstBusyMs: number;
  loadCpuMs: number;
  serverCpuMs: number;
  // Cold: a fresh controller.
  /** This process's CPU in the first burst, right after the 2 000-object warm-up. */
  coldCpuMs: number;
  coldMarkCompacts: number;
  /** This process's CPU from its first object to the end of the first burst (warm-up included):
   * every side's first full garbage collections fall in it, wherever its heap's growth puts them. */
  fromStartCpuMs: number;
  extraReconciles: number;
  p50: number;
  p99: number;
  max: number;
  min: number;
  steadyRate: number;
}

/** The profilers BENCH_PROFILE_DIR, BENCH_ALLOC_PROFILE_DIR and BENCH_PERF_FILE name, around one burst. */
async function startProfilers(burst: string): Promise<() => Promise<void>> {
  const side = process.env[SIDE_ENV];
  const profileDir = process.env.BENCH_PROFILE_DIR;
  const allocDir = process.env.BENCH_ALLOC_PROFILE_DIR;
  const stopProfile = profileDir
    ? await profilePhase(profileDir, `${burst}-${side}`)
    : allocDir
      ? await profileAllocations(allocDir, `${burst}-${side}`)
      : undefined;
  // BENCH_PERF_FILE: Linux perf records the burst, every thread of this process (V8's compiler
  // and GC helpers too, which the inspector's profile leaves out); run with
  // NODE_OPTIONS="--conditions=cr-source --perf-basic-prof" for JavaScript names.
  const perfFile = process.env.BENCH_PERF_FILE;
  const perf = perfFile
    ? spawn(
        "perf",
        [
          "record",
          "-F",
          process.env.BENCH_PERF_FREQ ?? "1999",
          "-g",
          "-p",
          String(process.pid),
          "-o",
          `${perfFile}.${burst}.${side}`,
        ],
        { stdio: "ignore" },
      )
    : undefined;
  // perf needs a moment to attach; a diagnostic run only.
  if (perf) await new Promise((r) => setTimeout(r, 500));
  if (process.env.BENCH_MARKS) process.stdout.write(`=== ${burst} start\n`);
  return async () => {
    if (process.env.BENCH_MARKS) process.stdout.write(`=== ${burst} end\n`);
    await stopProfile?.();
    if (perf) {
      perf.kill("SIGINT");
      await new Promise((r) => perf.on("exit", r));
    }
  };
}

/**
 * Bursts of SETTLE_ROUND objects until this process's CPU per object settles: a round within
 * SETTLED of the one before, at most MAX_SETTLE_ROUNDS; resolves to the rounds run. Why: after
 * the 2 000-object warm-up V8 is still compiling either side's path to TurboFan, ours the longer
 * (perf, this machine: 67 ms of the compiler threads' CPU in our warm-up, 17 ms in client-node's,
 * whose decoding is V8's native JSON.parse), so a burst right after it measures the JIT as much
 * as the controller. Both sides get the same rule; the cold figures are reported beside.
 */
async function settle(load: LoadProcess, clients: RESTClient[], tracker: Tracker): Promise<number> {
  let prev: number | undefined;
  for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
    const ns = `settle-${round}`;
    await clients[0]!.create(namespaces, { metadata: { name: ns } });
    const cpu0 = process.cpuUsage();
    await load.burst(ns, "s", SETTLE_ROUND);
    await tracker.until(ns, SETTLE_ROUND);
    const perObject = cpuMs(cpu0) / SETTLE_ROUND;
    if (prev !== undefined && Math.abs(perObject - prev) <= SETTLED * prev) return round + 1;
    prev = perObject;
  }
  return MAX_SETTLE_ROUNDS;
}

async function measure(factory: ControllerFactory): Promise<SideResult> {
  const server = await startServerProcess({ historySize: 50_000 });
  const tracker = new Tracker();
  const config: RESTConfig = server.restConfig;
  // One keep-alive connection each: requests beyond that wait in the client, not in a storm of
  // new TLS connections when the server falls behind the steady rate.
  const clients = Array.from({ length: CLIENTS }, () => newRESTClient(config, { connections: 1 }));
  const load = await startLoadProcess({ restConfig: config, clients: CLIENTS, payloadBytes: payload.length });
  let controller: RunningController | undefined;
  try {
    for (const name of ["warmup", "cold", "warm", "steady", "alloc"])
      await clients[0]!.create(namespaces, { metadata: { name } });
    controller = await factory(server, tracker);
    // The controller is running once it reconciles a first object; then warm the JIT of every
    // process (and open the clients' connections) with a small burst.
    const cpuStart = process.cpuUsage();
    await clients[0]!.create(configMaps, configMap("ready"), { namespace: "warmup" });
    await tracker.until("warmup", 1);
    await load.burst("warmup", "w", WARMUP);
    await tracker.until("warmup", WARMUP + 1);

    // Cold: the first burst, from the load process (this process's CPU is the controller's).
    const profileBurst = process.env.BENCH_PROFILE_BURST ?? "warm";
    const stopCold = profileBurst === "cold" ? await startProfilers("cold") : undefined;
    const coldGCs = countGCs();
    const cold0 = process.cpuUsage();
    await load.burst("cold", "c", BURST);
    await tracker.until("cold", BURST);
    const coldCpuMs = cpuMs(cold0);
    const fromStartCpuMs = cpuMs(cpuStart);
    const { markCompacts: coldMarkCompacts } = await coldGCs();
    await stopCold?.();

    const settleRounds = await settle(load, clients, tracker);

    // Warm: the JIT settled, a burst long enough to hold either side's mark-compacts.
    const stopWarm = profileBurst === "warm" ? await startProfilers("warm") : undefined;
    const gcs = countGCs();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const server0 = await server.cpuMs();
    const t0 = performance.now();
    const sent = await load.burst("warm", "b", WARM_BURST);
    const createdAt = performance.now();
    await tracker.until("warm", WARM_BURST);
    const burstCpuMs = cpuMs(cpu0);
    const burstBusyMs = performance.eventLoopUtilization(elu0).active;
    const { scavenges: burstScavenges, markCompacts: burstMarkCompacts } = await gcs();
    const serverCpuMs = (await server.cpuMs()) - server0;
    await stopWarm?.();
    let last = 0;
    for (let i = 0; i < WARM_BURST; i++) last = Math.max(last, tracker.first.get(`warm/b-${i}`)!);
    const allReconciledMs = last - t0;

    // Steady rate.
    const { sentAt, sendMs } = await steady(clients, "steady");
    await tracker.until("steady", sentAt.size);
    const latencies = [...sentAt].map(([name, at]) => tracker.first.get(`steady/${name}`)! - at);
    latencies.sort((a, b) => a - b);

    // What the controller allocates: a smaller burst under V8's sampling heap profiler, apart
    // from the timed one since sampling slows what it samples.
    const stopSampling = await sampleAllocations();
    await load.burst("alloc", "a", ALLOC_BURST);
    await tracker.until("alloc", ALLOC_BURST);
    const allocatedBytes = await stopSampling();

    // Let late duplicates (if any) arrive before counting them.
    await new Promise((r) => setTimeout(r, 200));
    return {
      allocatedPerObject: allocatedBytes / ALLOC_BURST,
      settleRounds,
      createsPerSec: (WARM_BURST / (createdAt - t0)) * 1000,
      allReconciledMs,
      tailMs: last - createdAt,
      reconcilesPerSec: (WARM_BURST / allReconciledMs) * 1000,
      burstCpuMs,
      burstScavenges,
      burstMarkCompacts,
      burstBusyMs,
      loadCpuMs: sent.cpuMs,
      serverCpuMs,
      coldCpuMs,
      coldMarkCompacts,
      fromStartCpuMs,
      extraReconciles: tracker.reconciles - tracker.first.size,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? Number.NaN,
      min: latencies[0] ?? Number.NaN,
      steadyRate: (sentAt.size / sendMs) * 1000,
    };
  } finally {
    await controller?.stop();
    await Promise.all(clients.map((c) => c.close()));
    await load.stop();
    await server.stop();
  }
}

type Side = "ours" | "ours-json" | "client-node";
const SIDES: Record<Side, ControllerFactory> = {
  ours: oursWith(),
  "ours-json": oursWith("application/json"),
  "client-node": clientNode,
};

/** One side in a child process of its own. */
function measureInChild(side: Side): Promise<SideResult> {
  return runChildJSON<SideResult>({
    moduleUrl: import.meta.url,
    env: { [SIDE_ENV]: side },
    // BENCH_PROFILE_DIR: each side's process writes a CPU profile of its burst phase there;
    // BENCH_ALLOC_PROFILE_DIR: a sampled profile of what it allocates in the burst.
    what: `controller bench (${side})`,
  });
}

/** The median of each field over the rounds. */
function medianOf(results: SideResult[]): SideResult {
  const out = {} as Record<string, number>;
  for (const k of Object.keys(results[0]!) as (keyof SideResult)[])
    out[k] = summarize(results.map((r) => r[k])).median;
  return out as unknown as SideResult;
}

export async function run(): Promise<BenchRow[]> {
  const rounds: Record<Side, SideResult[]> = { ours: [], "ours-json": [], "client-node": [] };
  const sides: Side[] = ["ours", "ours-json", "client-node"];
  for (let i = 0; i < ROUNDS; i++) {
    // Rotated: each side goes first once.
    const order = sides.map((_, j) => sides[(i + j) % sides.length]!);
    for (const side of order) rounds[side].push(await measureInChild(side));
  }
  const us = medianOf(rounds.ours);
  const usJSON = medianOf(rounds["ours-json"]);
  const peer = medianOf(rounds["client-node"]);
  const vs = (a: number, b: number, better: string) =>
    `${(a / b).toFixed(2)}× client-node (${better} is better)`;
  const rows: BenchRow[] = [];
  // `json`: a row for ours with JSON too (the encoding client-node reads), to compare decoders.
  const pair = (
    name: string,
    unit: string,
    pick: (r: SideResult) => number,
    better: "lower" | "higher",
    note: (r: SideResult) => string = () => "",
    range?: (r: SideResult) => number,
    json = false,
  ) => {
    const join = (...parts: string[]) => parts.filter(Boolean).join("; ");
    const per = (side: Side) => (range ? rangeNote(rounds[side].map(range)) : "");
    rows.push({
      name: `${name}: ours`,
      value: pick(us),
      unit,
      note: join(per("ours"), vs(pick(us), pick(peer), better), note(us)),
    });
    if (json)
      rows.push({
        name: `${name}: ours, JSON`,
        value: pick(usJSON),
        unit,
        note: join(per("ours-json"), vs(pick(usJSON), pick(peer), better), note(usJSON)),
      });
    rows.push({
      name: `${name}: client-node`,
      value: pick(peer),
      unit,
      note: join(per("client-node"), note(peer)),
    });
  };
  const n = BURST.toLocaleString("en-US");
  const w = `burst ${WARM_BURST.toLocaleString("en-US")} (warm)`;
  const settled = (r: SideResult) => `after ${r.settleRounds} settling rounds of ${SETTLE_ROUND}`;
  pair(
    `${w}: first create → all reconciled`,
    "ms",
    (r) => r.allReconciledMs,
    "lower",
    (r) =>
      `creates ${Math.round(r.createsPerSec)}/s from ${CLIENTS} clients; last reconcile ${r.tailMs.toFixed(0)} ms after last create; controller CPU ${Math.round(r.burstCpuMs)} ms in it`,
    (r) => r.allReconciledMs,
  );
  pair(
    `${w}: reconciles/s`,
    "/s",
    (r) => r.reconcilesPerSec,
    "higher",
    undefined,
    (r) => r.reconcilesPerSec,
  );
  pair(
    `${w}: controller process CPU per object`,
    "µs",
    (r) => (r.burstCpuMs / WARM_BURST) * 1000,
    "lower",
    (r) =>
      `${settled(r)}; mark-compacts in it ${r.burstMarkCompacts}; server ${((r.serverCpuMs / WARM_BURST) * 1000).toFixed(0)} µs, load generator ${((r.loadCpuMs / WARM_BURST) * 1000).toFixed(0)} µs per create`,
    (r) => (r.burstCpuMs / WARM_BURST) * 1000,
    true,
  );
  pair(
    `cold: burst ${n} after a ${WARMUP.toLocaleString("en-US")}-object warm-up: controller process CPU per object`,
    "µs",
    (r) => (r.coldCpuMs / BURST) * 1000,
    "lower",
    (r) => `V8 still compiling; mark-compacts in it ${r.coldMarkCompacts}`,
    (r) => (r.coldCpuMs / BURST) * 1000,
    true,
  );
  const started = 1 + WARMUP + BURST;
  pair(
    `cold: first ${started.toLocaleString("en-US")} objects (warm-up + burst ${n}): controller process CPU per object`,
    "µs",
    (r) => (r.fromStartCpuMs / started) * 1000,
    "lower",
    () => "from the controller's first object: its JIT and the first full GCs of both sides fall in it",
    (r) => (r.fromStartCpuMs / started) * 1000,
    true,
  );
  pair(
    `${w}: garbage collections per 1 000 objects`,
    "",
    (r) => ((r.burstScavenges + r.burstMarkCompacts) / WARM_BURST) * 1000,
    "lower",
    (r) =>
      `scavenges ${((r.burstScavenges / WARM_BURST) * 1000).toFixed(1)}, mark-compacts ${((r.burstMarkCompacts / WARM_BURST) * 1000).toFixed(2)}`,
    (r) => ((r.burstScavenges + r.burstMarkCompacts) / WARM_BURST) * 1000,
  );
  pair(
    `${w}: controller event loop busy per object`,
    "µs",
    (r) => (r.burstBusyMs / WARM_BURST) * 1000,
    "lower",
    () => "wall time the event loop was busy; counts time preempted by other processes",
    (r) => (r.burstBusyMs / WARM_BURST) * 1000,
  );
  pair(
    `burst ${ALLOC_BURST.toLocaleString("en-US")}: bytes allocated per object`,
    "B",
    (r) => r.allocatedPerObject,
    "lower",
    () => "V8's sampling heap profiler (every ~256 B), a burst apart from the timed one",
    (r) => r.allocatedPerObject,
    true,
  );
  const steadyNote = (r: SideResult) =>
    `${Math.round(r.steadyRate)} creates/s sent for ${STEADY_SECONDS} s; min ${r.min.toFixed(2)}, max ${r.max.toFixed(1)} ms`;
  pair(
    "steady: create sent → reconcile start p50",
    "ms",
    (r) => r.p50,
    "lower",
    steadyNote,
    (r) => r.p50,
  );
  pair(
    "steady: create sent → reconcile start p99",
    "ms",
    (r) => r.p99,
    "lower",
    undefined,
    (r) => r.p99,
  );
  const dupes = us.extraReconciles + peer.extraReconciles;
  if (dupes > 0)
    rows.push({
      name: "reconciles beyond the first per object",
      value: dupes,
      unit: "",
      note: `ours ${us.extraReconciles}, client-node ${peer.extraReconciles} (relists or updates)`,
    });
  return rows;
}

const childSide = process.env[SIDE_ENV] as Side | undefined;
if (childSide) process.stdout.write(`${JSON.stringify(await measure(SIDES[childSide]))}\n`);
else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
