// What each default feature of our controller path costs per object (issue 19), to read beside
// bench/controller.ts, where ours uses more CPU per object than a minimal client-node informer and
// queue. Each step the path takes for one watch event and its reconcile runs alone over the same
// 20 000 ConfigMap events (1 KiB, with the managedFields a server writes), in a child process of
// its own per step and repetition, warmed up on 5 000 events first; 3 rounds in rotated order;
// medians with min–max of CPU per object, wall beside it.
// Steps: a watch body's decoding into events, ours and client-node's (JSON.parse is most of
// both); stripping managedFields; the deep freeze;
// the store's put; the work queue's add + get + done with Prometheus metrics and without, and the
// peer's plain queue; the
// controller's bookkeeping per reconcile (reconcileID, request logger, in-flight entry, counts and
// the time histogram) with the null logger and with a JSON logger at the default level.
// `npx tsx bench/controller-features.ts`, or `npm run bench -- controller-features`.
import { randomUUID } from "node:crypto";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { Registry } from "prom-client";
import { deepFreeze } from "controller-runtime/cache";
import { IndexedStore } from "../packages/controller-runtime/src/cache/store.js";
import { stripManagedFields } from "../packages/controller-runtime/src/cache/transform.js";
import { InFlightList } from "../packages/controller-runtime/src/controller/in-flight.js";
import { newLogConstructor } from "../packages/controller-runtime/src/controller/log-constructor.js";
import { newReconcileID } from "../packages/controller-runtime/src/controller/reconcile-id.js";
import { deferredLogger } from "../packages/controller-runtime/src/log/deferred-logger.js";
import { type Logger, newLogger, nullLogger } from "controller-runtime/log";
import { controllerMetrics } from "controller-runtime/metrics";
import { decodeWatchBatches } from "../packages/controller-runtime/src/rest/watch.js";
import {
  newPriorityQueue,
  noopMetricsProvider,
  prometheusWorkqueueMetrics,
} from "controller-runtime/workqueue";
import { runChildJSON } from "./internal/child-json.js";
import { PlainQueue } from "./internal/plain-queue.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const N = 20_000;
const WARMUP = 5_000;
const ROUNDS = 3;
const STEP_ENV = "BENCH_CONTROLLER_FEATURE";

/** A watch line as kube-apiserver writes a ConfigMap created by a client. */
function watchLine(i: number): string {
  const name = `b-${i}`;
  return JSON.stringify({
    type: "ADDED",
    object: {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: {
        name,
        namespace: "burst",
        uid: randomUUID(),
        resourceVersion: String(100_000 + i),
        creationTimestamp: "2026-11-26T07:00:00Z",
        managedFields: [
          {
            manager: "bench",
            operation: "Update",
            apiVersion: "v1",
            time: "2026-11-26T07:00:00Z",
            fieldsType: "FieldsV1",
            fieldsV1: { "f:data": { ".": {}, "f:payload": {} } },
          },
        ],
      },
      data: { payload: "x".repeat(900) },
    },
  });
}

/** The events as a watch body arrives: 64 KiB chunks cut anywhere. */
function chunks(lines: readonly string[]): Buffer[] {
  const body = Buffer.from(`${lines.join("\n")}\n`);
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += 65_536) out.push(body.subarray(at, at + 65_536));
  return out;
}

/** A step: what it is, how its input is made from the watch lines (untimed), and the timed work. */
interface Step {
  label: string;
  /** Makes the input and runs the step on it; only the run is timed. */
  prepared(lines: readonly string[]): () => Promise<void> | void;
}

function step<T>(
  label: string,
  prepare: (lines: readonly string[]) => T,
  run: (input: T) => Promise<void> | void,
): Step {
  return {
    label,
    prepared: (lines) => {
      const input = prepare(lines);
      return () => run(input);
    },
  };
}
const parse = (lines: readonly string[]): ConfigMap[] =>
  lines.map((l) => (JSON.parse(l) as { object: ConfigMap }).object);
const keys = (lines: readonly string[]) => lines.map((_, i) => `burst/b-${i}`);

/** Drains `n` keys from a queue as 4 workers do: get, then done. */
async function addGetDone(withMetrics: boolean, ks: readonly string[]): Promise<void> {
  const q = newPriorityQueue<string>({
    name: "bench",
    metricsProvider: withMetrics ? prometheusWorkqueueMetrics(new Registry()) : noopMetricsProvider,
  });
  for (const k of ks) q.add(k);
  let left = ks.length;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        const item = await q.get();
        if (item.shutdown) return;
        q.done(item.key!);
        if (--left === 0) q.shutDown();
      }
    }),
  );
}

/** The controller's work around one reconcile (controller.ts #begin and #finish, minus the queue). */
function bookkeeping(logger: Logger): (ks: readonly string[]) => void {
  const metrics = controllerMetrics(new Registry());
  const time = metrics.reconcileTimeRecorder("bench");
  const counts = metrics.reconcileCounts("bench");
  const logFor = newLogConstructor<{ namespace: string; name: string }>({ logger, controllerName: "bench" });
  const debug = logFor(undefined).v(5);
  interface Run {
    key: string;
    reconcileID: string;
    started: number;
    log: Logger;
    prev: Run | null;
    next: Run | null;
  }
  const inFlight = new InFlightList<Run>();
  return (ks) => {
    for (const key of ks) {
      counts.activeWorkers.inc();
      const started = performance.now();
      const slash = key.indexOf("/");
      const req = { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
      const reconcileID = newReconcileID();
      const log = deferredLogger(() => logFor(req).withValues({ reconcileID }));
      const run: Run = { key, reconcileID, started, log, prev: null, next: null };
      inFlight.add(run);
      if (debug.enabled()) log.v(5).info("Reconciling");
      if (debug.enabled()) log.v(5).info("Reconcile successful");
      counts.results.success.inc();
      inFlight.delete(run);
      time.observe((performance.now() - started) / 1000);
      counts.activeWorkers.dec();
    }
  };
}

const discard = () =>
  new Writable({
    write(_chunk, _enc, cb) {
      cb();
    },
  });

const STEPS: Record<string, Step> = {
  decodeOurs: step(
    "watch body → events: ours (decodeWatchBatches, the informer's path)",
    chunks,
    async (body) => {
      let n = 0;
      async function* source() {
        yield* body;
      }
      for await (const batch of decodeWatchBatches(source())) n += batch.length;
      if (n !== N && n !== WARMUP) throw new Error(`decoded ${n} events`);
    },
  ),
  decodePeer: step(
    "watch body → events: client-node's (readline, JSON.parse per line)",
    chunks,
    async (body) => {
      let n = 0;
      const lines = createInterface(Readable.from(body));
      lines.on("line", (line: string) => {
        const data = JSON.parse(line) as { type: string };
        if (data.type === "ADDED") n++;
      });
      await new Promise((resolve) => lines.once("close", resolve));
      if (n !== N && n !== WARMUP) throw new Error(`decoded ${n} events`);
    },
  ),
  strip: step("strip managedFields (default transform)", parse, (objs) => {
    for (const o of objs) stripManagedFields(o);
  }),
  freeze: step(
    "deep freeze (cached objects handed out without copies)",
    (lines) => parse(lines).map((o) => stripManagedFields(o)),
    (objs) => {
      for (const o of objs) deepFreeze(o);
    },
  ),
  store: step(
    "store put (by namespace and name)",
    (lines) => parse(lines).map((o) => deepFreeze(stripManagedFields(o) as ConfigMap)),
    (objs) => {
      const store = new IndexedStore<ConfigMap>();
      for (const o of objs) store.put(o);
    },
  ),
  queueMetrics: step("work queue add + get + done, Prometheus metrics (default)", keys, (ks) =>
    addGetDone(true, ks),
  ),
  queuePlain: step("work queue add + get + done, no metrics", keys, (ks) => addGetDone(false, ks)),
  queuePeer: step(
    "the client-node side's plain queue: add + get (no rate limits, priorities, metrics)",
    keys,
    async (ks) => {
      const q = new PlainQueue();
      for (const k of ks) q.add(k);
      let left = ks.length;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while ((await q.get()) !== undefined) if (--left === 0) q.close();
        }),
      );
    },
  ),
  bookkeepingNull: step("reconcile bookkeeping, null logger (ID, logger, metrics)", keys, (ks) =>
    bookkeeping(nullLogger())(ks),
  ),
  bookkeepingJSON: step("reconcile bookkeeping, JSON logger at info", keys, (ks) =>
    bookkeeping(newLogger({ destination: discard() }))(ks),
  ),
};

interface StepResult {
  cpuNsPerObject: number;
  wallNsPerObject: number;
}

async function measureStep(name: string): Promise<StepResult> {
  const step = STEPS[name]!;
  const lines = Array.from({ length: N }, (_, i) => watchLine(i));
  // Warm-up on other objects of the same shape, so the JIT has seen the step before it is timed.
  await step.prepared(lines.slice(0, WARMUP).map((_, i) => watchLine(N + i)))();
  const timed = step.prepared(lines);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await timed();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { cpuNsPerObject: ((cpu.user + cpu.system) * 1000) / N, wallNsPerObject: (wall * 1e6) / N };
}

export async function run(): Promise<BenchRow[]> {
  const names = Object.keys(STEPS);
  const results = new Map<string, StepResult[]>(names.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.map((_, i) => names[(i + round) % names.length]!);
    for (const name of order) {
      results.get(name)!.push(
        await runChildJSON<StepResult>({
          moduleUrl: import.meta.url,
          env: { [STEP_ENV]: name },
          what: `controller feature ${name}`,
        }),
      );
    }
  }
  return names.map((name) => {
    const rs = results.get(name)!;
    const cpu = summarize(rs.map((r) => r.cpuNsPerObject)).median;
    const wall = summarize(rs.map((r) => r.wallNsPerObject)).median;
    return {
      name: `per object: ${STEPS[name]!.label}`,
      value: cpu / 1000,
      unit: "µs CPU",
      note: `${rangeNote(rs.map((r) => r.cpuNsPerObject / 1000))}; wall ${(wall / 1000).toFixed(2)} µs (CPU counts the GC's threads)`,
    };
  });
}

const childStep = process.env[STEP_ENV];
if (childStep) process.stdout.write(`${JSON.stringify(await measureStep(childStep))}\n`);
else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
