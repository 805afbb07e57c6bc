// The informer cache: for 10 000 and 50 000 ConfigMaps of about 1 KiB in the embedded API server,
// the time from informer start to synced and the heap held per cached object, for our informer
// (list + watch), for @kubernetes/client-node 1.x's makeInformer, and for the
// floor (one raw list GET + JSON.parse of the same bytes, kept in memory). Each of those runs in
// its own child process (`node --expose-gc`) so heaps do not mix; the API server runs here.
// Then, in this process: reads of a cached object (frozen and handed out, versus copied on each
// read, the two designs DESIGN.md asks to measure), the ingestion cost of freezing, and watch
// events/s applied to a store with three indexes.
// `npx tsx bench/cache.ts`, or through `npm run bench -- cache`.
import { pathToFileURL } from "node:url";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../src/api/index.js";
import { startAPIServer } from "../src/apiserver/index.js";
import {
  newCache,
  deepFreeze,
  type ListerWatcher,
  Reflector,
  stripManagedFields,
} from "../src/cache/index.js";
import { IndexedStore } from "../src/cache/store.js";
import { indexByFieldAndNamespace } from "../src/cache/field-index.js";
import { newRESTClient, resourceOf, type WatchEvent, type WatchStream } from "../src/rest/index.js";
import { decodeWatchBatches } from "../src/rest/watch.js";
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { RESTConfig } from "../src/rest/config.js";
import { newLogger } from "../src/log/index.js";
import { runChildJSON } from "./internal/child-json.js";
import { type BenchRow, printRows } from "./report.js";

const SIZES = process.env.CACHE_BENCH_SIZES
  ? process.env.CACHE_BENCH_SIZES.split(",").map(Number)
  : [10_000, 50_000];
// Streaming lists are left out: the embedded server cuts a watch off as a slow reader once 16 MiB
// are unread, which a streamed list of 10 000 1-KiB objects passes (the watcher then falls back).
const SCENARIOS = ["floor", "ours (list + watch)", "client-node makeInformer"] as const;
type Scenario = (typeof SCENARIOS)[number];

interface ChildTask {
  scenario: Scenario;
  kubeconfig: string;
  restConfig: RESTConfig;
  namespace: string;
  n: number;
}
interface ChildResult {
  ms: number;
  /** CPU time of the child (user + system) from start to synced: what load disturbs least. */
  cpuMs: number;
  heapBytes: number;
  count: number;
}

function configMapData(i: number): Record<string, string> {
  const line = `key-${i}: ${"v".repeat(60)}\n`;
  return { "app.yaml": line.repeat(10), mode: i % 2 ? "odd" : "even" };
}

// ---- child side: one scenario, one fresh heap --------------------------------------------------

function debug(what: string): void {
  if (process.env.CACHE_BENCH_DEBUG) process.stderr.write(`${what}\n`);
}

function heapNow(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run the child with --expose-gc");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function child(task: ChildTask): Promise<ChildResult> {
  const { KubeConfig, CoreV1Api, makeInformer } = await import("@kubernetes/client-node");
  const config = task.restConfig;
  const rest = newRESTClient(config);
  // Warm the connection and the code paths a little, so that TLS setup is not measured.
  await rest.list(resourceOf(kinds.ConfigMap), { namespace: "default" });
  let keep: unknown;
  const before = heapNow();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  let count = 0;
  let stop: () => Promise<void> = async () => {};
  switch (task.scenario) {
    case "floor": {
      const list = await rest.list<ConfigMap>(resourceOf(kinds.ConfigMap), {
        namespace: task.namespace,
        resourceVersion: "0",
      });
      count = list.items.length;
      keep = list;
      break;
    }
    case "ours (list + watch)": {
      const cache = newCache(config, {
        restClient: rest,
        defaultNamespaces: [task.namespace],
        logger: process.env.CACHE_BENCH_DEBUG
          ? (await import("../src/log/index.js")).newLogger({
              level: 2,
              format: "console",
              destination: process.stderr,
            })
          : undefined,
      });
      const ctl = new AbortController();
      const running = cache.start(ctl.signal);
      const list = await cache.list(kinds.ConfigMap, { inNamespace: task.namespace });
      count = list.items.length;
      keep = cache;
      stop = async () => {
        ctl.abort();
        await running;
      };
      break;
    }
    case "client-node makeInformer": {
      const kc = new KubeConfig();
      kc.loadFromString(task.kubeconfig);
      const api = kc.makeApiClient(CoreV1Api);
      const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${task.namespace}/configmaps`, () =>
        api.listNamespacedConfigMap({ namespace: task.namespace }),
      );
      await informer.start();
      count = informer.list(task.namespace).length;
      keep = informer;
      stop = () => informer.stop();
      break;
    }
  }
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  // Let the I/O callbacks of the last response finish before weighing the heap: until then undici
  // still holds the response body it decoded (for a list, the whole text: about 1.2 KB per object
  // here), which is garbage one turn of the event loop later and no part of what a cache keeps.
  // The same wait for every scenario.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const heapBytes = heapNow() - before;
  if (keep === undefined) throw new Error("nothing kept");
  if (process.env.CACHE_BENCH_DEBUG) process.stderr.write(`synced in ${ms} ms\n`);
  await stop();
  if (process.env.CACHE_BENCH_DEBUG) process.stderr.write(`stopped\n`);
  await rest.close();
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, heapBytes, count };
}

function runChild(task: ChildTask): Promise<ChildResult> {
  return runChildJSON<ChildResult>({
    moduleUrl: import.meta.url,
    env: { CACHE_BENCH_CHILD: JSON.stringify(task) },
    execArgv: ["--expose-gc"],
    what: `${task.scenario} (${task.n})`,
  });
}

// ---- parent side -------------------------------------------------------------------------------

/** ns per call of `fn` over `iterations`, best of three rounds. */
function timeSync(iterations: number, fn: (i: number) => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) if (fn(i) !== undefined) sink++;
    best = Math.min(best, ((performance.now() - start) * 1e6) / iterations);
  }
  if (sink < 0) console.log(sink);
  return best;
}

async function readRows(objects: ConfigMap[], cacheGetNs: number): Promise<BenchRow[]> {
  const n = objects.length;
  const keys = objects.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`);
  const frozen = new Map<string, Readonly<ConfigMap>>();
  const plain = new Map<string, ConfigMap>();
  const freezeMs = (() => {
    const copies = objects.map((o) => structuredClone(o));
    const start = performance.now();
    for (let i = 0; i < n; i++) frozen.set(keys[i], deepFreeze(copies[i]));
    return performance.now() - start;
  })();
  for (let i = 0; i < n; i++) plain.set(keys[i], structuredClone(objects[i]));
  const reads = 200_000;
  const frozenNs = timeSync(reads, (i) => frozen.get(keys[i % n]));
  const cloneNs = timeSync(reads / 10, (i) => structuredClone(plain.get(keys[i % n])));
  const jsonNs = timeSync(reads / 10, (i) => JSON.parse(JSON.stringify(plain.get(keys[i % n]))));
  return [
    {
      name: "read: frozen object handed out (store get)",
      value: frozenNs,
      unit: "ns/op",
      note: "the design kept",
    },
    {
      name: "read: Cache.get (async, frozen)",
      value: cacheGetNs,
      unit: "ns/op",
      note: "through the Reader API",
    },
    {
      name: "read: structuredClone on read",
      value: cloneNs,
      unit: "ns/op",
      note: `${(cloneNs / frozenNs).toFixed(0)}× the frozen read`,
    },
    {
      name: "read: JSON copy on read",
      value: jsonNs,
      unit: "ns/op",
      note: `${(jsonNs / frozenNs).toFixed(0)}× the frozen read`,
    },
    {
      name: "ingest: deepFreeze per object",
      value: (freezeMs * 1e6) / n,
      unit: "ns/op",
      note: `paid once per change; equals ${((freezeMs * 1e6) / n / cloneNs).toFixed(2)} copies on read`,
    },
  ];
}

/** NDJSON of `events` MODIFIED events over `objects`, as a watch body. */
function watchBody(objects: ConfigMap[], events: number): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < events; i++) {
    const o = objects[i % objects.length];
    // As the API server writes them: watch events carry apiVersion and kind, list items do not.
    const obj = {
      apiVersion: "v1",
      kind: "ConfigMap",
      ...o,
      metadata: { ...o.metadata, resourceVersion: String(1_000_000 + i) },
    };
    lines.push(JSON.stringify({ type: "MODIFIED", object: obj }));
  }
  return new TextEncoder().encode(`${lines.join("\n")}\n`);
}

/** A WatchStream over decoded batches, as `openWatch` makes one over an HTTP body. */
function batchStream(batches: AsyncGenerator<WatchEvent<ConfigMap>[], void>): WatchStream<ConfigMap> {
  let current: WatchEvent<ConfigMap>[] = [];
  const nextBatch = async () => {
    if (current.length > 0) return current.splice(0);
    const r = await batches.next();
    return r.done ? undefined : r.value;
  };
  return {
    async next() {
      if (current.length === 0) current = (await nextBatch()) ?? [];
      const value = current.shift();
      return value === undefined ? { done: true, value: undefined } : { done: false, value };
    },
    nextBatch,
    async return() {
      await batches.return();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

async function eventsRows(objects: ConfigMap[]): Promise<BenchRow[]> {
  const events = 100_000;
  const body = watchBody(objects, events);
  const store = new IndexedStore<ConfigMap>();
  // The namespace index is built in: three indexes in all.
  store.addIndexers({
    "field:data.mode": indexByFieldAndNamespace((o) => [o.data?.mode ?? ""]),
    "field:metadata.labels.app": indexByFieldAndNamespace((o) => [o.metadata?.labels?.app ?? ""]),
  });
  let applied = 0;
  let last = 0;
  const done = new AbortController();
  // The watch body arrives in 64 KiB chunks, as from a socket, and is decoded as the client does.
  const lw: ListerWatcher<ConfigMap> = {
    list: async () => ({ metadata: { resourceVersion: "1" }, items: [] }),
    watch: async (_o, signal) => {
      async function* chunks() {
        for (let i = 0; i < body.length; i += 65536) yield body.subarray(i, i + 65536);
        if (!signal.aborted) await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      }
      return batchStream(decodeWatchBatches<ConfigMap>(chunks(), { signal }));
    },
  };
  const reflector = new Reflector(
    lw,
    {
      replace: (items) => {
        for (const obj of items) store.put(obj);
      },
      apply: (obj) => {
        store.put(obj);
        if (++applied % 10000 === 0) debug(`applied ${applied}`);
        if (applied === events) {
          last = performance.now();
          done.abort();
        }
      },
      delete: (obj) => void store.remove(obj),
    },
    {
      ingest: (o) => deepFreeze(stripManagedFields(o) as ConfigMap),
      watcher: { streamingList: false },
      logger: process.env.CACHE_BENCH_DEBUG
        ? newLogger({ level: 2, format: "console", destination: process.stderr })
        : undefined,
    },
  );
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  await reflector.run(done.signal);
  const ms = last - start;
  const cpu = process.cpuUsage(cpu0);
  return [
    {
      name: "watch events applied (decode + freeze + 3 indexes)",
      value: (events / ms) * 1000,
      unit: "events/s",
      note: `${events} MODIFIED events over ${objects.length} objects, 64 KiB chunks`,
    },
    {
      name: "watch event CPU (decode + freeze + 3 indexes)",
      value: (cpu.user + cpu.system) / events,
      unit: "µs/event",
      note: "process.cpuUsage, less sensitive to load than events/s",
    },
  ];
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const server = await startAPIServer({ historySize: 1000 });
  const rest = newRESTClient(server.restConfig());
  try {
    const CM = resourceOf(kinds.ConfigMap);
    for (const n of SIZES)
      await rest.create(resourceOf(kinds.Namespace), { metadata: { name: `bench-${n}` } });
    // One object through the API shows what the server stores (uid, timestamps, managedFields);
    // the rest are stored the same way directly, which takes seconds instead of a minute.
    const template = await rest.create<ConfigMap>(
      CM,
      {
        metadata: { name: "template", namespace: "default", labels: { app: "bench" } },
        data: configMapData(0),
      },
      { namespace: "default" },
    );
    for (const n of SIZES) {
      for (let i = 0; i < n; i++) {
        const obj = structuredClone(template) as ConfigMap & Record<string, unknown>;
        obj.apiVersion = "v1";
        obj.kind = "ConfigMap";
        obj.metadata = {
          ...obj.metadata,
          name: `cm-${i}`,
          namespace: `bench-${n}`,
          uid: crypto.randomUUID(),
        };
        obj.data = configMapData(i);
        server.storage.put("/configmaps", obj);
      }
    }
    const sample = JSON.stringify(
      (await rest.list<ConfigMap>(CM, { namespace: `bench-${SIZES[0]}`, limit: 1 })).items[0],
    );

    for (const n of SIZES) {
      const results = new Map<Scenario, ChildResult>();
      for (const scenario of SCENARIOS) {
        if (process.env.CACHE_BENCH_ONLY && !scenario.startsWith(process.env.CACHE_BENCH_ONLY)) continue;
        if (process.env.CACHE_BENCH_DEBUG) process.stderr.write(`child ${scenario} ${n}\n`);
        // The server (this process) lists the namespace once first, so that each scenario meets
        // it in the same state: warm serialization code, the last list's garbage made. Without
        // it the first scenario of a size (the floor) paid for a cold server.
        await rest.list(CM, { namespace: `bench-${n}`, resourceVersion: "0" });
        const r = await runChild({
          scenario,
          kubeconfig: server.kubeconfig,
          restConfig: server.restConfig(),
          namespace: `bench-${n}`,
          n,
        });
        if (r.count !== n) throw new Error(`${scenario} saw ${r.count} objects, not ${n}`);
        results.set(scenario, r);
      }
      if (results.size < SCENARIOS.length) continue;
      const floor = results.get("floor")!;
      const peer = results.get("client-node makeInformer")!;
      for (const scenario of SCENARIOS) {
        const r = results.get(scenario)!;
        const vs =
          scenario === "floor"
            ? ""
            : `${(r.ms / floor.ms).toFixed(2)}× floor, ${(r.ms / peer.ms).toFixed(2)}× client-node`;
        rows.push({ name: `sync ${n}: ${scenario}`, value: r.ms, unit: "ms", note: vs });
      }
      for (const scenario of SCENARIOS) {
        const r = results.get(scenario)!;
        const vs =
          scenario === "floor"
            ? ""
            : `${(r.cpuMs / floor.cpuMs).toFixed(2)}× floor, ${(r.cpuMs / peer.cpuMs).toFixed(2)}× client-node`;
        rows.push({ name: `sync ${n} CPU: ${scenario}`, value: r.cpuMs, unit: "ms", note: vs });
      }
      for (const scenario of SCENARIOS) {
        const r = results.get(scenario)!;
        const vs =
          scenario === "client-node makeInformer"
            ? ""
            : `${(r.heapBytes / peer.heapBytes).toFixed(2)}× client-node`;
        rows.push({ name: `heap ${n}: ${scenario}`, value: r.heapBytes / n, unit: "B/object", note: vs });
      }
    }
    rows.push({
      name: "object size (JSON, as listed)",
      value: sample.length,
      unit: "B",
      note: "with managedFields",
    });

    // Reads and events, in this process, over the 10 000 objects as the informer stores them.
    const cache = newCache(server.restConfig(), { restClient: rest });
    const ctl = new AbortController();
    const running = cache.start(ctl.signal);
    const list = await cache.list(kinds.ConfigMap, { inNamespace: `bench-${SIZES[0]}` });
    const objects = list.items.map((o) => structuredClone(o) as ConfigMap);
    const keys = objects.map((o) => ({ namespace: o.metadata?.namespace, name: o.metadata?.name ?? "" }));
    debug("cache.get");
    // Awaited one after another, as a reconciler does; a warm-up round, then the median of three.
    const gets = 300_000;
    const getRound = async () => {
      const start = performance.now();
      for (let i = 0; i < gets; i++) await cache.get(kinds.ConfigMap, keys[i % keys.length]);
      return ((performance.now() - start) * 1e6) / gets;
    };
    await getRound();
    const getRounds = [await getRound(), await getRound(), await getRound()].sort((a, b) => a - b);
    const cacheGetNs = getRounds[1];
    ctl.abort();
    await running;
    debug("reads");
    rows.push(...(await readRows(objects, cacheGetNs)));
    debug("events");
    const rawObjects = (await rest.list<ConfigMap>(CM, { namespace: `bench-${SIZES[0]}` })).items;
    rows.push(...(await eventsRows(rawObjects)));
  } finally {
    await rest.close();
    await server.stop();
  }
  return rows;
}

const childTask = process.env.CACHE_BENCH_CHILD;
if (childTask) {
  const result = await child(JSON.parse(childTask) as ChildTask);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printRows(await run());
}
