// Sharding across replicas (issue 16). Two experiments, each run 3 times:
//
// - ring: in a child process, a ring of sharded managers, 3 to start, with 10 000 ConfigMaps on
//   the embedded server in a process of its own; then 20 membership changes (a replica joins, the
//   oldest stops gracefully, alternately), then one replica cut off by the server's faults. A
//   ledger keeps every reconcile's [start, end]. Reported: overlapping reconciles of one object
//   (must be 0), the fraction of objects each change moved against 1/(N+1) for a join and 1/N
//   for a leave, max/mean objects per shard, hand-over (a moved object's new shard starting it
//   after its old shard's last reconcile ended) p99, and fail-over (cut-off to all its objects
//   reconciled elsewhere) against leaseDuration.
// - memory: a server in this process with 10 000 ConfigMaps; a child process runs one manager
//   caching them, either alone (unsharded) or as one replica of three (the other two here), and
//   reports its heap growth once its cache holds its share (the parent tells it, when the ring has
//   settled, how many that is). Sides alternate.
//
// `npx tsx bench/sharding.ts`, or `npm run bench -- sharding`.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { type DeepReadonly, kinds } from "controller-runtime/api";
import { startAPIServer } from "controller-runtime-apiserver";
import { controllerManagedBy } from "controller-runtime/builder";
import { newInformer } from "controller-runtime/cache";
import { eventually, expectNoOverlap, type LedgerEntry, partition } from "controller-runtime/envtest";
import { newLogger, nullLogger } from "controller-runtime/log";
import { Manager, type ManagerOptions } from "controller-runtime/manager";
import { reconcilerFn } from "controller-runtime/reconcile";
import { newRESTClient, type RESTClient, type RESTConfig, resourceOf } from "controller-runtime/rest";
import { hashKey } from "../packages/controller-runtime/src/sharding/coordinator.js";
import { HashRing } from "../packages/controller-runtime/src/sharding/hash-ring.js";
import { drainLabel, shardLabel } from "../packages/controller-runtime/src/sharding/labels.js";
import { runChildJSON } from "./internal/child-json.js";
import { startServerProcess } from "./internal/server-process.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const OBJECTS = Number(process.env.SHARDING_BENCH_OBJECTS ?? 10_000);
const CHANGES = Number(process.env.SHARDING_BENCH_CHANGES ?? 20);
const RUNS = Number(process.env.SHARDING_BENCH_RUNS ?? 3);
const CHILD = "BENCH_SHARDING_CHILD";
const VICTIM_COORDINATOR = process.env.SHARDING_BENCH_VICTIM === "coordinator";
const CM = resourceOf(kinds.ConfigMap);
const NS = "sharding-bench";
const RING = "bench";
// Shorter than kube's defaults (15 s / 10 s / 2 s) to keep the fail-over short, long enough that a
// replica sharing one busy process with the server and 4 others keeps its place.
const TIMING = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 500 };

/** The options of a replica `id` of the bench's ring (no ring for undefined). */
function replicaOptions(id: string | undefined): ManagerOptions {
  return {
    logger: process.env.BENCH_DEBUG
      ? newLogger({ level: process.env.BENCH_DEBUG === "info" ? "info" : "debug" }).withValues({
          replica: id,
        })
      : nullLogger(),
    metrics: { bindAddress: "0" },
    cache: { defaultNamespaces: [NS] },
    ...(id ? { sharding: { ring: RING, identity: id, ...TIMING } } : {}),
  };
}

async function createObjects(rest: RESTClient): Promise<void> {
  await rest.create(resourceOf(kinds.Namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: NS },
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let i = next++; i < OBJECTS; i = next++) {
        const metadata = { name: `cm-${i}`, labels: { app: "bench" } };
        await rest.create(
          CM,
          { apiVersion: "v1", kind: "ConfigMap", metadata, data: { v: "x".repeat(200) } },
          { namespace: NS },
        );
      }
    }),
  );
}

/**
 * Each object's shard, by name, as a metadata-only informer sees them; one still draining to
 * another counts as none. A watch, not a list per poll: listing the 10 000 ConfigMaps every
 * 250 ms took a third of the one process's CPU that the server and the replicas share, and the
 * bench measured its own polling more than the ring. For the same reason a poll stops at the
 * first object not settled yet (`settledOn`), and the whole map is built only once all are.
 */
async function shardView(
  rest: RESTClient,
  signal: AbortSignal,
): Promise<{
  all: () => Map<string, string | undefined>;
  settledOn: (ok: (name: string, shard: string | undefined) => boolean) => boolean;
}> {
  const informer = newInformer<ConfigMap>(rest, kinds.ConfigMap, {
    namespaces: [NS],
    metadataOnly: true,
    logger: nullLogger(),
  });
  void informer.run(signal);
  await informer.waitForSync(signal);
  const shardOf = (c: DeepReadonly<ConfigMap>) =>
    c.metadata?.labels?.[drainLabel(RING)] === undefined ? c.metadata?.labels?.[shardLabel(RING)] : undefined;
  return {
    all: () => new Map(informer.store.list().map((c) => [c.metadata!.name!, shardOf(c)])),
    settledOn: (ok) => informer.store.list().every((c) => ok(c.metadata!.name!, shardOf(c))),
  };
}

interface RingResult {
  /** Replicas that stopped on their own (they lost their Lease): 0 when the ring held. */
  lost: number;
  overlaps: number;
  moves: { fraction: number; ideal: number }[];
  maxOverMean: number;
  handOverP99: number;
  failOverMs: number;
  /**
   * CPU time (user + system) of the replicas' process and the server's per membership change,
   * median: what a change costs whatever else the machine runs, where wall times stretch with
   * the machine's load.
   */
  changeCpuMs: number;
  failOverCpuMs: number;
}

async function ringChild(): Promise<RingResult> {
  // The server in a process of its own, as kube-apiserver is: sharing one event loop with it, the
  // replicas' renewals waited behind its work, and on a loaded machine all of them lost their
  // places at once mid-change (every Lease unrenewed, the moves half done).
  const server = await startServerProcess();
  const config = server.restConfig;
  const rest = newRESTClient(config);
  await createObjects(rest);
  const viewing = new AbortController();
  const shards = await shardView(rest, viewing.signal);
  const ledger: (LedgerEntry & { end?: number })[] = [];
  // By object too: scanning the whole ledger per moved object blocked the event loop for seconds
  // (and the replicas' renewals with it).
  const byKey = new Map<string, (LedgerEntry & { end?: number })[]>();
  const last = new Map<string, string>();
  const running = new Map<string, { stop: AbortController; exited: boolean; done: Promise<unknown> }>();
  let lost = 0;
  const start = async (id: string) => {
    const mgr = await Manager.create({ ...config, userAgent: `bench-replica/${id}` }, replicaOptions(id));
    controllerManagedBy(mgr)
      .for(kinds.ConfigMap, { sharded: true })
      .withOptions({ maxConcurrentReconciles: 4 })
      .complete(
        reconcilerFn(async (req) => {
          const entry: LedgerEntry & { end?: number } = {
            key: req.name,
            holder: id,
            start: performance.now(),
          };
          ledger.push(entry);
          const entries = byKey.get(req.name) ?? [];
          if (entries.length === 0) byKey.set(req.name, entries);
          entries.push(entry);
          last.set(req.name, id);
          await new Promise((r) => setImmediate(r));
          entry.end = performance.now();
        }),
      );
    const stop = new AbortController();
    const entry = { stop, exited: false, done: Promise.resolve<unknown>(undefined) };
    entry.done = mgr.start(stop.signal).then(
      () => {
        entry.exited = true;
      },
      (err: unknown) => {
        entry.exited = true;
        if (!stop.signal.aborted) lost++;
        return err;
      },
    );
    running.set(id, entry);
  };
  const diagnose = async (members: string[]) => {
    const list = await rest.list<ConfigMap>(CM, { namespace: NS });
    const states = new Map<string, number>();
    for (const c of list.items) {
      const l = c.metadata?.labels ?? {};
      const shard = l[shardLabel(RING)];
      const what = !shard
        ? "unassigned"
        : l[drainLabel(RING)]
          ? `draining from ${members.includes(shard) ? "live" : "gone"} ${shard}`
          : !members.includes(shard)
            ? `on gone ${shard}`
            : last.get(c.metadata!.name!) !== shard
              ? `on ${shard}, last reconciled by ${last.get(c.metadata!.name!)}`
              : "settled";
      states.set(what, (states.get(what) ?? 0) + 1);
    }
    console.error("sharding bench: not settled on", members, Object.fromEntries(states), {
      lost,
      exited: [...running].filter(([, r]) => r.exited).map(([id]) => id),
    });
    const leases = await rest.list(resourceOf(kinds.Lease), { namespace: "default" });
    for (const l of leases.items as {
      metadata?: { name?: string };
      spec?: { holderIdentity?: string; renewTime?: string };
    }[]) {
      console.error(
        "  lease",
        l.metadata?.name,
        l.spec?.holderIdentity,
        l.spec?.renewTime,
        new Date().toISOString(),
      );
    }
  };
  // A replica that stopped on its own is counted (lost) and left out, as its Pod would restart;
  // also one that stops while this waits.
  const alive = (all: string[]) => all.filter((m) => !running.get(m)?.exited);
  const settled = (all: string[]) => {
    return eventually(
      `settled on ${alive(all).join(",")}`,
      async () => {
        const members = alive(all);
        // On the shard the ring names, not merely on a member: a move half done is that too.
        const ring = new HashRing(members);
        const settledHere = shards.settledOn((name, shard) => {
          if (!shard || last.get(name) !== shard) return false;
          return (
            shard === ring.owner(hashKey({ kind: kinds.ConfigMap }, { metadata: { namespace: NS, name } }))
          );
        });
        return settledHere ? shards.all() : undefined;
      },
      { timeoutMs: Number(process.env.SHARDING_BENCH_SETTLE_MS ?? 300_000), intervalMs: 250 },
    ).catch(async (err: unknown) => {
      await diagnose(alive(all));
      throw err;
    });
  };
  let ids = 0;
  const members: string[] = [];
  for (let i = 0; i < 3; i++) {
    const id = `r${++ids}`;
    members.push(id);
    await start(id);
  }
  let before = await settled(members);
  const counts = new Map<string, number>();
  for (const s of before.values()) counts.set(s!, (counts.get(s!) ?? 0) + 1);
  const maxOverMean = Math.max(...counts.values()) / (OBJECTS / members.length);
  const moves: { fraction: number; ideal: number }[] = [];
  const handOvers: number[] = [];
  const changeCpu: number[] = [];
  const cpuNow = async () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000 + (await server.cpuMs());
  };
  for (let c = 0; c < CHANGES; c++) {
    const n = members.length;
    const changeAt = performance.now();
    const cpuAt = await cpuNow();
    let ideal: number;
    if (c % 2 === 0) {
      const id = `r${++ids}`;
      members.push(id);
      await start(id);
      ideal = 1 / (n + 1);
    } else {
      const id = members.shift()!;
      running.get(id)!.stop.abort();
      await running.get(id)!.done;
      running.delete(id);
      ideal = 1 / n;
    }
    const after = await settled(members);
    const settledMs = performance.now() - changeAt;
    const cpuMs = (await cpuNow()) - cpuAt;
    changeCpu.push(cpuMs);
    const moved = [...after].filter(([name, s]) => before.get(name) !== s);
    moves.push({ fraction: moved.length / OBJECTS, ideal });
    const mark = handOvers.length;
    for (const [name, to] of moved) {
      const from = before.get(name);
      const oldEnd = Math.max(
        ...(byKey.get(name) ?? []).filter((e) => e.holder === from).map((e) => e.end ?? 0),
      );
      const newStart = byKey.get(name)?.find((e) => e.holder === to && e.start >= changeAt)?.start;
      if (newStart !== undefined && oldEnd > 0)
        handOvers.push(Math.max(0, newStart - Math.max(oldEnd, changeAt)));
    }
    if (process.env.BENCH_SHARDING_TRACE) {
      const these = handOvers.slice(mark).sort((a, b) => a - b);
      const q = (p: number) => Math.round(these[Math.floor(these.length * p)] ?? 0);
      console.error(
        `change ${c} (${c % 2 === 0 ? "join" : "leave"}, ${n}→${members.length}): moved ${moved.length}, hand-over min ${q(0)} p50 ${q(0.5)} p99 ${q(0.99)} max ${Math.round(these.at(-1) ?? 0)} ms; settled after ${Math.round(settledMs)} ms, ${Math.round(cpuMs)} ms CPU`,
      );
    }
    before = after;
  }
  // Fail-over: the last member is cut off (or, with SHARDING_BENCH_VICTIM=coordinator, the one
  // coordinating, whose place another must take first); the others take its objects once its
  // Lease expires.
  const victim = VICTIM_COORDINATOR
    ? ((await rest.get<Lease>(resourceOf(kinds.Lease), `${RING}-coordinator`, { namespace: "default" })).spec
        ?.holderIdentity ?? members.at(-1)!)
    : members.at(-1)!;
  const lostBefore = lost; // the cut-off replica stops on its own, as it should
  const cutAt = performance.now();
  const failCpuAt = await cpuNow();
  await server.injectFault({ match: { userAgent: `bench-replica/${victim}` }, action: partition() });
  await settled(members.filter((m) => m !== victim));
  const failOverMs = performance.now() - cutAt;
  const failOverCpuMs = (await cpuNow()) - failCpuAt;
  let overlaps = 0;
  try {
    expectNoOverlap(ledger);
  } catch {
    overlaps = 1;
  }
  for (const r of running.values()) r.stop.abort();
  await Promise.allSettled([...running.values()].map((r) => r.done));
  viewing.abort();
  await rest.close();
  await server.stop();
  handOvers.sort((a, b) => a - b);
  return {
    lost: lostBefore,
    overlaps,
    moves,
    maxOverMean,
    handOverP99: handOvers[Math.floor(handOvers.length * 0.99)] ?? 0,
    failOverMs,
    changeCpuMs: summarize(changeCpu).median,
    failOverCpuMs,
  };
}

interface MemoryResult {
  heapBytes: number;
  objects: number;
}

/**
 * One manager caching the ConfigMaps, alone or as replica r1 of the ring; its heap growth once its
 * cache holds them all, or (sharded) the share the parent found assigned to it once the ring
 * settled (the parent writes it to `BENCH_SHARDING_SETTLED`: the child lists nothing itself, so
 * that only the manager's memory is measured).
 */
async function memoryChild(config: RESTConfig, sharded: boolean): Promise<MemoryResult> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  gc();
  const before = process.memoryUsage().heapUsed;
  const mgr = await Manager.create(config, replicaOptions(sharded ? "r1" : undefined));
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap, { sharded })
    .complete(reconcilerFn(async () => {}));
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  done.catch((err: unknown) => console.error("memory child: the manager failed", err));
  const cache = mgr.getCache();
  const settledFile = process.env.BENCH_SHARDING_SETTLED ?? "";
  const objects = await eventually(
    "the cache holds this replica's share",
    async () => {
      const want = sharded
        ? existsSync(settledFile)
          ? Number(readFileSync(settledFile, "utf8"))
          : -1
        : OBJECTS;
      const held = (await cache.list(kinds.ConfigMap, { inNamespace: NS })).items.length;
      return want > 0 && held === want ? held : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  gc();
  gc();
  const heapBytes = process.memoryUsage().heapUsed - before;
  stop.abort();
  await done;
  return { heapBytes, objects };
}

async function memory(): Promise<{ unsharded: number[]; sharded: number[]; share: number[] }> {
  const server = await startAPIServer();
  const config = server.restConfig();
  const rest = newRESTClient(config);
  await createObjects(rest);
  const dir = mkdtempSync(join(tmpdir(), "sharding-bench-"));
  const out = { unsharded: [] as number[], sharded: [] as number[], share: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    for (const side of i % 2 === 0 ? ["unsharded", "sharded"] : ["sharded", "unsharded"]) {
      const others: { stop: AbortController; done: Promise<void> }[] = [];
      if (side === "sharded") {
        for (const id of ["r2", "r3"]) {
          const mgr = await Manager.create(config, replicaOptions(id));
          controllerManagedBy(mgr)
            .for(kinds.ConfigMap, { sharded: true })
            .complete(reconcilerFn(async () => {}));
          const stop = new AbortController();
          others.push({ stop, done: mgr.start(stop.signal) });
        }
      }
      const settledFile = join(dir, `settled-${i}`);
      const child = runChildJSON<MemoryResult>({
        moduleUrl: import.meta.url,
        env: {
          [CHILD]: side,
          BENCH_SHARDING_CONFIG: JSON.stringify(config),
          BENCH_SHARDING_SETTLED: settledFile,
        },
        execArgv: ["--expose-gc"],
        what: `sharding memory child (${side})`,
      });
      if (side === "sharded") {
        // Settled: every object assigned to a live replica, none draining; then r1's share is final.
        const seen: number[] = [];
        const mine = await eventually(
          "the ring settled with r1 in it",
          async () => {
            // By label selectors, so that the lists stay small.
            const count = async (labelSelector: string) =>
              (await rest.list(CM, { namespace: NS, labelSelector })).items.length;
            if ((await count(`!${shardLabel(RING)}`)) > 0 || (await count(drainLabel(RING))) > 0)
              return undefined;
            const n = await count(`${shardLabel(RING)}=r1`);
            // The coordinator moves objects a few at a time: the same share three polls running.
            seen.push(n);
            return n > 0 && seen.slice(-3).every((x) => x === n) && seen.length >= 3 ? n : undefined;
          },
          { timeoutMs: 120_000, intervalMs: 500 },
        );
        writeFileSync(settledFile, String(mine));
      }
      const r = await child;
      for (const o of others) o.stop.abort();
      await Promise.allSettled(others.map((o) => o.done));
      if (side === "sharded") {
        out.sharded.push(r.heapBytes);
        out.share.push(r.objects / OBJECTS);
      } else out.unsharded.push(r.heapBytes);
    }
  }
  rmSync(dir, { recursive: true, force: true });
  await rest.close();
  await server.stop();
  return out;
}

/** Which experiments to run: `ring`, `memory` or both (default). */
const PARTS = (process.env.SHARDING_BENCH_PARTS ?? "ring,memory").split(",");

export async function run(): Promise<BenchRow[]> {
  const rings: RingResult[] = [];
  for (let i = 0; i < (PARTS.includes("ring") ? RUNS : 0); i++) {
    rings.push(
      await runChildJSON<RingResult>({
        moduleUrl: import.meta.url,
        env: { [CHILD]: "ring" },
        what: "sharding ring child",
      }),
    );
  }
  const rows: BenchRow[] = [];
  const row = (name: string, xs: number[], unit: string, note: string) =>
    xs.length > 0 &&
    rows.push({ name, value: summarize(xs).median, unit, note: `${rangeNote(xs)}; ${note}` });
  row(
    "sharding: overlapping reconciles of one object",
    rings.map((r) => r.overlaps),
    "",
    `${OBJECTS} objects, ${CHANGES} membership changes and a cut-off replica per run (must be 0)`,
  );
  row(
    "sharding: replicas that lost their place",
    rings.map((r) => r.lost),
    "",
    "stopped on their own during a run (must be 0)",
  );
  const ratios = rings.flatMap((r) => r.moves.map((m) => m.fraction / m.ideal));
  row(
    "sharding: objects moved per membership change / ideal",
    ratios,
    "×",
    "ideal: 1/(N+1) on a join, 1/N on a leave",
  );
  row(
    "sharding: max/mean objects per shard, 3 replicas",
    rings.map((r) => r.maxOverMean),
    "×",
    "target ≤ 1.15",
  );
  row(
    "sharding: hand-over of a moved object, p99",
    rings.map((r) => r.handOverP99),
    "ms",
    "old shard's last reconcile end (or the change) to the new shard's first start",
  );
  row(
    "sharding: fail-over of a cut-off replica",
    rings.map((r) => r.failOverMs),
    "ms",
    `${VICTIM_COORDINATOR ? "the coordinating replica" : "the newest replica"} cut off, to all its objects reconciled elsewhere; leaseDuration ${TIMING.leaseDurationMs} ms`,
  );
  row(
    "sharding: CPU per membership change, median",
    rings.map((r) => r.changeCpuMs),
    "ms",
    "replicas' process and the server's together, from the change to settled",
  );
  row(
    "sharding: CPU of the fail-over",
    rings.map((r) => r.failOverCpuMs),
    "ms",
    "replicas' process and the server's together, from the cut to settled",
  );
  if (!PARTS.includes("memory")) return rows;
  const m = await memory();
  const ratio = summarize(m.sharded).median / summarize(m.unsharded).median;
  row(
    "sharding: heap of one replica of three",
    m.sharded,
    "B",
    `${ratio.toFixed(2)}× one unsharded replica; it holds ${(summarize(m.share).median * 100).toFixed(0)}% of ${OBJECTS} objects`,
  );
  row("sharding: heap of one unsharded replica", m.unsharded, "B", `${OBJECTS} ConfigMaps cached`);
  return rows;
}

const child = process.env[CHILD];
if (child === "ring") process.stdout.write(`${JSON.stringify(await ringChild())}\n`);
else if (child) {
  const config = JSON.parse(process.env.BENCH_SHARDING_CONFIG ?? "{}") as RESTConfig;
  process.stdout.write(`${JSON.stringify(await memoryChild(config, child === "sharded"))}\n`);
  process.exit(0);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
