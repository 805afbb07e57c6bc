// Read-your-writes (issue 17): what waiting for one's own writes costs and what it saves. Each
// side (`wait`, `off`) runs in its own process against its own embedded API server (another
// process), with the same work, a warm-up, in rotated order, three times; medians with min–max.
// - soak: 10 000 times, a merge patch of one of 100 ConfigMaps through the client, then a cached
//   get of it. Reported: how many gets returned an older version than the write (stale), how many
//   gave up (StaleCacheError), and the get-after-write latency (from the write's response to the
//   get's result) beside plain watch propagation (from the write's response to the informer's
//   event for that version, measured in the same run);
// - controller: 200 ConfigMaps each changed 3 times in a row by another client while a controller
//   (4 workers, its watches held 5 ms behind by envtest's fault proxy, as a cluster's are a few ms behind its
//   writes) copies the data to an owned Secret, then records it in an annotation of the
//   ConfigMap, with optimistic locking; the Secret's event re-triggers the ConfigMap. Reported per
//   annotation write: reconciles that read an object older than the controller's own last write of
//   it and so hit a 409 Conflict (extra reconciles read-your-writes removes), and conflicts with
//   the other writer (which no client can remove).
// `npx tsx bench/read-your-writes.ts`, or `npm run bench -- read-your-writes`.
import { pathToFileURL } from "node:url";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { deepCopy, kinds } from "controller-runtime/api";
import { controllerManagedBy } from "controller-runtime/builder";
import { compareResourceVersions, newCache } from "controller-runtime/cache";
import { mergeFrom, newClient, rawPatch } from "controller-runtime/client";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { isConflict, newRESTClient, resourceOf } from "controller-runtime/rest";
import { delayEvents } from "controller-runtime/envtest";
import { startFaultProxy } from "../packages/controller-runtime/src/envtest/fault-proxy.js";
import { runChildJSON } from "./internal/child-json.js";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

type Side = "wait" | "off";

interface SideResult {
  side: Side;
  soakWrites: number;
  stale: number;
  timeouts: number;
  getP50: number;
  getP99: number;
  propagationP50: number;
  propagationP99: number;
  soakWallMs: number;
  soakCpuMs: number;
  statusWrites: number;
  conflicts: number;
  staleConflicts: number;
  reconciles: number;
}

const SOAK = Number(process.env.RYW_BENCH_SOAK ?? 10_000);
const WARMUP = 500;
const OBJECTS = 100;
const CONTROLLED = 200;
const CM = resourceOf(kinds.ConfigMap);
const WATCH_LAG_MS = 5;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

async function child(side: Side): Promise<SideResult> {
  const server = await startServerProcess();
  const config = server.restConfig;
  const rest = newRESTClient(config);
  const stop = new AbortController();
  try {
    await rest.create(resourceOf(kinds.Namespace), { metadata: { name: "soak" } });
    for (let i = 0; i < OBJECTS; i++) {
      await rest.create(CM, { metadata: { name: `o${i}`, namespace: "soak" }, data: { v: "0" } });
    }
    const cache = newCache(config);
    const cacheDone = cache.start(stop.signal);
    const informer = await cache.getInformer(kinds.ConfigMap);
    // When the informer saw each resourceVersion (plain watch propagation).
    const seenAt = new Map<string, number>();
    informer.addEventHandler({
      onUpdate: (_old, obj) => {
        seenAt.set(obj.metadata?.resourceVersion ?? "", performance.now());
      },
    });
    const client = newClient(config, { cache, readYourWrites: side });
    const gets: number[] = [];
    const propagation: number[] = [];
    let stale = 0;
    let timeouts = 0;
    const soak = async (n: number, record: boolean) => {
      for (let i = 0; i < n; i++) {
        const name = `o${i % OBJECTS}`;
        const written = await client.patch<ConfigMap>(
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "soak" } },
          rawPatch("merge", { data: { v: String(i) } }),
        );
        const wrote = performance.now();
        const rv = written.metadata?.resourceVersion ?? "";
        try {
          const got = await client.get(kinds.ConfigMap, { namespace: "soak", name });
          const read = performance.now();
          if (record) {
            gets.push(read - wrote);
            if (got.metadata?.resourceVersion !== rv && got.data?.v !== String(i)) stale++;
          }
        } catch (err) {
          if (record && (err as Error).name === "StaleCacheError") timeouts++;
          else throw err;
        }
        if (record) {
          // The event may come after an `off` get: wait for it, then take its time.
          while (!seenAt.has(rv)) await new Promise((r) => setImmediate(r));
          propagation.push(seenAt.get(rv)! - wrote);
        }
        seenAt.delete(rv);
      }
    };
    await soak(WARMUP, false);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await soak(SOAK, true);
    const soakWallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    gets.sort((a, b) => a - b);
    propagation.sort((a, b) => a - b);
    stop.abort();
    await cacheDone;
    await client.close();
    const ctl = await controllerRun(config, side);
    return {
      side,
      soakWrites: SOAK,
      stale,
      timeouts,
      getP50: quantile(gets, 0.5),
      getP99: quantile(gets, 0.99),
      propagationP50: quantile(propagation, 0.5),
      propagationP99: quantile(propagation, 0.99),
      soakWallMs,
      soakCpuMs: (cpu.user + cpu.system) / 1000,
      ...ctl,
    };
  } finally {
    stop.abort();
    await rest.close();
    await server.stop();
  }
}

/** The controller scenario: conflicts from stale reads per annotation write. */
async function controllerRun(
  config: Awaited<ReturnType<typeof startServerProcess>>["restConfig"],
  side: Side,
) {
  const rest = newRESTClient(config);
  await rest.create(resourceOf(kinds.Namespace), { metadata: { name: "ctl" } });
  // A cluster's watch is milliseconds behind its writes; a local server's is microseconds.
  const proxy = await startFaultProxy(config);
  proxy.faults.inject({ match: { watch: true }, action: delayEvents(WATCH_LAG_MS) });
  const mgr = await Manager.create(proxy.config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    client: { readYourWrites: side },
    cache: { defaultNamespaces: ["ctl"] },
    controller: { maxConcurrentReconciles: 4 },
  });
  const client = mgr.getClient();
  let statusWrites = 0;
  let conflicts = 0;
  let staleConflicts = 0;
  let reconciles = 0;
  // The resourceVersion of this controller's last write of each object: a read older than it is stale.
  const lastWritten = new Map<string, string>();
  const done = new Set<string>();
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap)
    .owns(kinds.Secret)
    .complete({
      async reconcile(req) {
        reconciles++;
        const cm = await client.get(kinds.ConfigMap, req);
        const v = cm.data?.v ?? "";
        // The child first: its event (another informer) re-triggers this parent, usually before
        // the parent's own write below has come back through the parent's watch.
        const child = await client.get(kinds.Secret, req).catch(() => undefined);
        if (!child) {
          await client.create({
            apiVersion: "v1",
            kind: "Secret",
            metadata: {
              name: req.name,
              namespace: req.namespace,
              annotations: { v },
              ownerReferences: [
                {
                  apiVersion: "v1",
                  kind: "ConfigMap",
                  name: req.name,
                  uid: cm.metadata!.uid!,
                  controller: true,
                },
              ],
            },
          });
        } else if (child.metadata?.annotations?.v !== v) {
          await client.update({ ...child, metadata: { ...child.metadata, annotations: { v } } });
        }
        if (cm.metadata?.annotations?.observed === v) {
          if (v === "3") done.add(req.name);
          return {};
        }
        const next = deepCopy(cm);
        next.metadata = { ...next.metadata, annotations: { ...next.metadata?.annotations, observed: v } };
        try {
          const wrote = await client.patch(next, mergeFrom(cm, { optimisticLock: true }));
          lastWritten.set(req.name, wrote.metadata?.resourceVersion ?? "");
          statusWrites++;
        } catch (err) {
          if (!isConflict(err)) throw err;
          conflicts++;
          const mine = lastWritten.get(req.name);
          if (mine && compareResourceVersions(cm.metadata?.resourceVersion ?? "", mine) < 0) staleConflicts++;
          throw err; // retried with backoff, as a reconciler does
        }
        return {};
      },
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await mgr.elected();
  for (let i = 0; i < CONTROLLED; i++) {
    await rest.create(CM, { metadata: { name: `c${i}`, namespace: "ctl" }, data: { v: "0" } });
  }
  await Promise.all(
    Array.from({ length: CONTROLLED }, async (_, i) => {
      for (let v = 1; v <= 3; v++) {
        await rest.patch(CM, `c${i}`, { data: { v: String(v) } }, { namespace: "ctl", patchType: "merge" });
      }
    }),
  );
  const deadline = performance.now() + 60_000;
  while (done.size < CONTROLLED && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  stop.abort();
  await running;
  await proxy.close();
  await rest.close();
  if (done.size < CONTROLLED) throw new Error(`controller: ${done.size}/${CONTROLLED} objects converged`);
  return { statusWrites, conflicts, staleConflicts, reconciles };
}

function runChild(side: Side): Promise<SideResult> {
  return runChildJSON<SideResult>({
    moduleUrl: import.meta.url,
    env: { RYW_BENCH_CHILD: side },
    what: `read-your-writes ${side}`,
  });
}

function summary(values: number[]): { median: number; note: string } {
  const s = [...values].sort((a, b) => a - b);
  const median = s[Math.floor(s.length / 2)]!;
  const fmt = (x: number) => (Math.abs(x) >= 100 ? Math.round(x).toString() : x.toPrecision(3));
  return { median, note: `min–max ${fmt(s[0]!)}–${fmt(s[s.length - 1]!)}` };
}

export async function run(): Promise<BenchRow[]> {
  const reps = Number(process.env.RYW_BENCH_REPS ?? 3);
  const results: SideResult[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const order: Side[] = rep % 2 === 0 ? ["wait", "off"] : ["off", "wait"];
    for (const side of order) results.push(await runChild(side));
  }
  const rows: BenchRow[] = [];
  const row = (name: string, unit: string, pick: (r: SideResult) => number, side: Side) => {
    const { median, note } = summary(results.filter((r) => r.side === side).map(pick));
    rows.push({ name: `${name} [${side}]`, value: median, unit, note });
  };
  for (const side of ["wait", "off"] as const) {
    row(`soak: stale gets of ${SOAK} get-after-write`, "gets", (r) => r.stale, side);
    row("soak: StaleCacheError timeouts", "gets", (r) => r.timeouts, side);
    row("get after write p50 (write response → cached get)", "ms", (r) => r.getP50, side);
    row("get after write p99", "ms", (r) => r.getP99, side);
    row("watch propagation p50 (write response → informer event)", "ms", (r) => r.propagationP50, side);
    row("watch propagation p99", "ms", (r) => r.propagationP99, side);
    row("soak wall time (write + get)", "ms", (r) => r.soakWallMs, side);
    row("soak CPU of the client process", "ms", (r) => r.soakCpuMs, side);
    row(
      `controller: extra reconciles from reading its own write stale, per write (${CONTROLLED} objects × 3 changes, watch ${WATCH_LAG_MS} ms behind)`,
      "per write",
      (r) => r.staleConflicts / Math.max(1, r.statusWrites),
      side,
    );
    row(
      "controller: conflicts with the other writer, per write",
      "per write",
      (r) => (r.conflicts - r.staleConflicts) / Math.max(1, r.statusWrites),
      side,
    );
    row("controller: reconciles per object", "reconciles", (r) => r.reconciles / CONTROLLED, side);
  }
  return rows;
}

const childSide = process.env.RYW_BENCH_CHILD as Side | undefined;
if (childSide) {
  const result = await child(childSide);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printRows(await run());
}
