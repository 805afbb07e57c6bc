// The embedded API server's heap per stored object (issue 19), against the object's JSON: each
// size (1k / 10k / 50k / 100k ConfigMaps of ~1.4 kB JSON, created over HTTP by 8 clients, with
// kube's managedFields) in a fresh child process holding the server, 3 runs; heap after full
// GCs, minus the heap after a 500-object warm-up, over the count. Reported: median bytes per
// object with min–max, and its ratio to the JSON's length (target: at most 2). Then the same
// after one protobuf list of them all: the server keeps each object's protobuf message from its
// first protobuf read (issue 43), which costs heap for objects ever read in protobuf.
// `npx tsx bench/apiserver-memory.ts`, or `npm run bench -- apiserver-memory`.
import { pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import { startAPIServer } from "controller-runtime-apiserver";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import { runChildJSON } from "./internal/child-json.js";
import { rangeNote, summarize } from "./internal/stats.js";
import { type BenchRow, printRows } from "./report.js";

const SIZES = (process.env.MEMORY_BENCH_SIZES ?? "1000,10000,50000,100000").split(",").map(Number);
const RUNS = 3;
const CHILD = "BENCH_APISERVER_MEMORY_COUNT";

interface Measured {
  bytesPerObject: number;
  /** The same once every object was read in protobuf (its message kept). */
  bytesPerObjectRead: number;
  jsonBytes: number;
}

async function child(count: number): Promise<Measured> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with --expose-gc");
  const server = await startAPIServer();
  const clients = Array.from({ length: 8 }, () => newRESTClient(server.restConfig()));
  const CM = resourceOf(kinds.ConfigMap);
  const payload = "x".repeat(900);
  const create = async (tag: string, n: number) => {
    let next = 0;
    await Promise.all(
      clients.map(async (c) => {
        for (let i = next++; i < n; i = next++) {
          const metadata = { name: `${tag}-${i}`, labels: { app: "bench", idx: String(i % 10) } };
          await c.create(
            CM,
            { apiVersion: "v1", kind: "ConfigMap", metadata, data: { payload } },
            { namespace: "default" },
          );
        }
      }),
    );
  };
  await create("warm", 500);
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  await create("cm", count);
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  const one = await clients[0]!.get(CM, "cm-0", { namespace: "default" });
  const listed = await clients[0]!.transport.send({
    method: "GET",
    path: "/api/v1/namespaces/default/configmaps",
    headers: { accept: "application/vnd.kubernetes.protobuf" },
  });
  let listedBytes = 0;
  for await (const chunk of listed.body) listedBytes += (chunk as Buffer).length;
  if (listed.statusCode !== 200 || listedBytes < count * 100) {
    throw new Error(`protobuf list answered ${listed.statusCode} with ${listedBytes} bytes`);
  }
  gc();
  gc();
  const read = process.memoryUsage().heapUsed;
  await Promise.all(clients.map((c) => c.close()));
  await server.stop();
  return {
    bytesPerObject: (after - before) / count,
    bytesPerObjectRead: (read - before) / count,
    jsonBytes: JSON.stringify(one).length,
  };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const count of SIZES) {
    const runs: Measured[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(
        await runChildJSON<Measured>({
          moduleUrl: import.meta.url,
          env: { [CHILD]: String(count) },
          execArgv: ["--expose-gc"],
          what: `memory child for ${count} objects`,
        }),
      );
    }
    const per = runs.map((r) => r.bytesPerObject);
    const json = runs[0]!.jsonBytes;
    rows.push({
      name: `embedded server heap per stored object, ${count.toLocaleString("en-US")} ConfigMaps`,
      value: summarize(per).median,
      unit: "B",
      note: `${rangeNote(per)}; ${(summarize(per).median / json).toFixed(2)}× its JSON (${json} B)`,
      curve: { series: "heap per stored object", x: count },
    });
    const read = runs.map((r) => r.bytesPerObjectRead);
    rows.push({
      name: `embedded server heap per stored object, ${count.toLocaleString("en-US")} ConfigMaps, all read in protobuf`,
      value: summarize(read).median,
      unit: "B",
      note: `${rangeNote(read)}; ${(summarize(read).median / json).toFixed(2)}× its JSON (${json} B)`,
      curve: { series: "heap per stored object, read in protobuf", x: count },
    });
  }
  return rows;
}

const childCount = process.env[CHILD];
if (childCount) process.stdout.write(`${JSON.stringify(await child(Number(childCount)))}\n`);
else if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
