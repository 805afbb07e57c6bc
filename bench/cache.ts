// The informer cache (issue 19): for 1k / 10k / 50k / 100k ConfigMaps of about 1 KiB in the
// embedded API server, the time from start to synced, the CPU it took and the heap held per
// object, for:
// - two floors, one per protocol, in the same child setup: one raw LIST GET + JSON.parse (list +
//   watch), and one raw watch with sendInitialEvents whose NDJSON is split and parsed per line up
//   to the initial-events-end bookmark (the streaming list), objects kept in an array;
// - ours with its default streaming list (managedFields stripped, its default; and kept, as the
//   peers keep them), and ours with list + watch (500-object pages, client-go's);
// - @kubernetes/client-node 1.x's makeInformer (one unpaged LIST, then a watch; managedFields kept).
// Each run is a child process (`node --expose-gc`) that first runs the same scenario once on a
// small namespace (warming its own HTTP stack and code), then measures; 3 rounds, scenario order
// rotated; medians with min–max. The API server runs in this process.
// Then, in this process: reads of a cached object (frozen and handed out, versus copied on each
// read, the two designs DESIGN.md asks to measure), the ingestion cost of freezing, and watch
// events/s applied to a store with three indexes.
// `npx tsx bench/cache.ts`, or through `npm run bench -- cache`.
import { pathToFileURL } from "node:url";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { startAPIServer } from "controller-runtime-apiserver";
import {
  newCache,
  deepFreeze,
  type ListerWatcher,
  Reflector,
  stripManagedFields,
} from "controller-runtime/cache";
import { IndexedStore } from "../packages/controller-runtime/src/cache/store.js";
import { indexByFieldAndNamespace } from "../packages/controller-runtime/src/cache/field-index.js";
import { newRESTClient, resourceOf, type WatchEvent, type WatchStream } from "controller-runtime/rest";
import { decodeWatchBatches } from "../packages/controller-runtime/src/rest/watch.js";
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import { newLogger } from "controller-runtime/log";
import { request as httpsRequest } from "node:https";
import { INITIAL_EVENTS_END_ANNOTATION } from "../packages/controller-runtime/src/cache/watcher.js";
import { runChildJSON } from "./internal/child-json.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";
import type { DeepReadonly } from "controller-runtime/api";

const SIZES = process.env.CACHE_BENCH_SIZES
  ? process.env.CACHE_BENCH_SIZES.split(",").map(Number)
  : [1_000, 10_000, 50_000, 100_000];
const ROUNDS = 3;
const WARM_NAMESPACE = "bench-warm";
const WARM_OBJECTS = 300;
const SCENARIOS = [
  "floor: LIST + JSON.parse",
  "floor: streamed NDJSON, parsed per line",
  "ours: streaming list",
  "ours: streaming list, managedFields kept",
  "ours: list + watch",
  "client-node makeInformer",
] as const;
type Scenario = (typeof SCENARIOS)[number];
/** The floor each scenario's protocol is held to. */
const FLOOR_OF: Record<Scenario, Scenario> = {
  "floor: LIST + JSON.parse": "floor: LIST + JSON.parse",
  "floor: streamed NDJSON, parsed per line": "floor: streamed NDJSON, parsed per line",
  "ours: streaming list": "floor: streamed NDJSON, parsed per line",
  "ours: streaming list, managedFields kept": "floor: streamed NDJSON, parsed per line",
  "ours: list + watch": "floor: LIST + JSON.parse",
  "client-node makeInformer": "floor: LIST + JSON.parse",
};

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

/** A raw HTTPS GET to the server with the config's credentials; the response, unread. */
function get(config: RESTConfig, path: string): Promise<import("node:http").IncomingMessage> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, config.host);
    const req = httpsRequest(
      url,
      {
        ca: config.tls.ca,
        cert: config.tls.cert,
        key: config.tls.key,
        headers: {
          accept: "application/json",
          ...(config.auth.bearerToken ? { authorization: `Bearer ${config.auth.bearerToken}` } : {}),
        },
      },
      (res) => {
        if (res.statusCode === 200) return resolve(res);
        res.resume();
        reject(new Error(`GET ${path}: ${res.statusCode}`));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Starts one scenario on `namespace` and resolves once synced: what it keeps, its count, its stop. */
async function startScenario(
  scenario: Scenario,
  task: ChildTask,
  namespace: string,
): Promise<{ keep: unknown; count: number; stop: () => Promise<void> }> {
  const config = task.restConfig;
  const none = async () => {};
  switch (scenario) {
    case "floor: LIST + JSON.parse": {
      const res = await get(config, `/api/v1/namespaces/${namespace}/configmaps?resourceVersion=0`);
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const list = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { items: unknown[] };
      return { keep: list, count: list.items.length, stop: none };
    }
    case "floor: streamed NDJSON, parsed per line": {
      const res = await get(
        config,
        `/api/v1/namespaces/${namespace}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
      );
      const objects: unknown[] = [];
      let rest = "";
      outer: for await (const c of res) {
        rest += (c as Buffer).toString("utf8");
        let nl = rest.indexOf("\n");
        while (nl >= 0) {
          const event = JSON.parse(rest.slice(0, nl)) as {
            type: string;
            object: { metadata?: { annotations?: Record<string, string> } };
          };
          rest = rest.slice(nl + 1);
          if (event.type === "BOOKMARK") {
            if (event.object.metadata?.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === "true") break outer;
          } else objects.push(event.object);
          nl = rest.indexOf("\n");
        }
      }
      res.destroy();
      return { keep: objects, count: objects.length, stop: none };
    }
    case "ours: streaming list":
    case "ours: streaming list, managedFields kept":
    case "ours: list + watch": {
      const cache = newCache(config, {
        defaultNamespaces: [namespace],
        ...(scenario === "ours: streaming list, managedFields kept" ? { defaultTransform: (o) => o } : {}),
        ...(scenario === "ours: list + watch" ? { watcher: { streamingList: false } } : {}),
      });
      const ctl = new AbortController();
      const running = cache.start(ctl.signal);
      const list = await cache.list(kinds.ConfigMap, { inNamespace: namespace });
      return {
        keep: cache,
        count: list.items.length,
        stop: async () => {
          ctl.abort();
          await running;
        },
      };
    }
    case "client-node makeInformer": {
      const { KubeConfig, CoreV1Api, makeInformer } = await import("@kubernetes/client-node");
      const kc = new KubeConfig();
      kc.loadFromString(task.kubeconfig);
      const api = kc.makeApiClient(CoreV1Api);
      const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () =>
        api.listNamespacedConfigMap({ namespace }),
      );
      await informer.start();
      return { keep: informer, count: informer.list(namespace).length, stop: () => informer.stop() };
    }
  }
}

async function child(task: ChildTask): Promise<ChildResult> {
  // Warm-up: the same scenario once on a small namespace, so that each side's own HTTP stack,
  // TLS session and code are warm; then the measured run on a fresh heap baseline.
  const warm = await startScenario(task.scenario, task, WARM_NAMESPACE);
  if (warm.count !== WARM_OBJECTS) throw new Error(`warm-up saw ${warm.count} objects`);
  await warm.stop();
  const before = heapNow();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const { keep, count, stop } = await startScenario(task.scenario, task, task.namespace);
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  // Let the I/O callbacks of the last response finish before weighing the heap: until then the
  // HTTP client still holds the body it decoded, garbage one turn of the event loop later and no
  // part of what a cache keeps. The same wait for every scenario.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const heapBytes = heapNow() - before;
  if (keep === undefined) throw new Error("nothing kept");
  debug(`synced in ${ms} ms`);
  await stop();
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
  const frozen = new Map<string, DeepReadonly<ConfigMap>>();
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
    for (const name of [WARM_NAMESPACE, ...SIZES.map((n) => `bench-${n}`)])
      await rest.create(resourceOf(kinds.Namespace), { metadata: { name } });
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
    const filled: [string, number][] = [
      [WARM_NAMESPACE, WARM_OBJECTS],
      ...SIZES.map((n): [string, number] => [`bench-${n}`, n]),
    ];
    for (const [namespace, n] of filled) {
      for (let i = 0; i < n; i++) {
        const obj = structuredClone(template) as ConfigMap & Record<string, unknown>;
        obj.apiVersion = "v1";
        obj.kind = "ConfigMap";
        obj.metadata = {
          ...obj.metadata,
          name: `cm-${i}`,
          namespace,
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
      const results = new Map<Scenario, ChildResult[]>(SCENARIOS.map((sc) => [sc, []]));
      const wanted = SCENARIOS.filter(
        (sc) => !process.env.CACHE_BENCH_ONLY || sc.startsWith(process.env.CACHE_BENCH_ONLY),
      );
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < wanted.length; k++) {
          const scenario = wanted[(k + round) % wanted.length]!;
          debug(`child ${scenario} ${n}`);
          // The server (this process) lists the namespace once first, so that each scenario meets
          // it in the same state: warm serialization code, the last list's garbage made.
          await rest.list(CM, { namespace: `bench-${n}`, resourceVersion: "0" });
          const r = await runChild({
            scenario,
            kubeconfig: server.kubeconfig,
            restConfig: server.restConfig(),
            namespace: `bench-${n}`,
            n,
          });
          if (r.count !== n) throw new Error(`${scenario} saw ${r.count} objects, not ${n}`);
          results.get(scenario)!.push(r);
        }
      }
      if (wanted.length < SCENARIOS.length) continue;
      const med = (sc: Scenario, pick: (r: ChildResult) => number) =>
        summarize(results.get(sc)!.map(pick)).median;
      const metrics: [string, string, (r: ChildResult) => number][] = [
        ["sync", "ms", (r) => r.ms],
        ["sync CPU", "ms", (r) => r.cpuMs],
        ["heap", "B/object", (r) => r.heapBytes / n],
      ];
      for (const [what, unit, pick] of metrics) {
        for (const scenario of SCENARIOS) {
          const value = med(scenario, pick);
          const floor = FLOOR_OF[scenario];
          const vs = [
            floor !== scenario ? `${(value / med(floor, pick)).toFixed(2)}× its floor` : "",
            scenario !== "client-node makeInformer"
              ? `${(value / med("client-node makeInformer", pick)).toFixed(2)}× client-node`
              : "",
          ].filter(Boolean);
          rows.push({
            name: `${what} ${n.toLocaleString("en-US")}: ${scenario}`,
            value,
            unit,
            note: [rangeNote(results.get(scenario)!.map(pick)), ...vs].join("; "),
            curve: { series: scenario, x: n },
          });
        }
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
