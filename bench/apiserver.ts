// Benchmarks of the embedded API server (issue 3): start-to-ready, creates/s and gets/s with 8
// concurrent keep-alive HTTPS clients, a list of 10 000 objects, and watch events/s delivered to
// 10 watchers. `npx tsx bench/apiserver.ts`, or through `npm run bench -- apiserver`.
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { kinds } from "../src/api/index.js";
import { startApiServer } from "../src/apiserver/index.js";
import { createRestClient, type RestClient, resourceOf } from "../src/rest/index.js";
import { type BenchRow, printRows } from "./report.js";

const configMaps = resourceOf(kinds.ConfigMap);
const namespaces = resourceOf(kinds.Namespace);
const payload = "x".repeat(900); // with metadata, a ConfigMap of about 1 KiB

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { payload } };
}

async function inParallel(
  clients: RestClient[],
  total: number,
  op: (c: RestClient, i: number) => Promise<unknown>,
) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      for (let i = next++; i < total; i = next++) await op(c, i);
    }),
  );
  return (performance.now() - start) / 1000;
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];

  // Start-to-ready: the median of several starts, each answering /readyz before it counts.
  const starts: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const s = await startApiServer();
    const c = createRestClient(s.restConfig());
    await c.request({ path: "/readyz", responseType: "text" });
    starts.push(performance.now() - t0);
    await c.close();
    await s.stop();
  }
  starts.sort((a, b) => a - b);
  rows.push({
    name: "start to ready (median of 7)",
    value: starts[3] ?? 0,
    unit: "ms",
    note: "target < 100",
  });

  const server = await startApiServer({ historySize: 50_000 });
  const config = server.restConfig();
  const clients = Array.from({ length: 8 }, () => createRestClient(config));
  try {
    await clients[0]!.create(namespaces, { metadata: { name: "bench" } });
    const creates = 20_000;
    const createSecs = await inParallel(clients, creates, (c, i) =>
      c.create(configMaps, configMap(`cm-${i}`), { namespace: "bench" }),
    );
    rows.push({
      name: "creates/s, 1 KiB ConfigMaps, 8 clients",
      value: creates / createSecs,
      unit: "/s",
      note: "target ≥ 4000",
    });

    const gets = 40_000;
    const getSecs = await inParallel(clients, gets, (c, i) =>
      c.get(configMaps, `cm-${i % creates}`, { namespace: "bench" }),
    );
    rows.push({ name: "gets/s, 8 clients", value: gets / getSecs, unit: "/s" });

    const t0 = performance.now();
    const list = await clients[0]!.list(configMaps, { namespace: "bench", limit: 10_000 });
    rows.push({ name: `list of ${list.items.length} ConfigMaps`, value: performance.now() - t0, unit: "ms" });

    // Watch fan-out: 10 watchers, N updates; count events delivered to all of them.
    const watchers = 10;
    const updates = 5_000;
    const abort = new AbortController();
    const rv = list.metadata?.resourceVersion;
    const streams = await Promise.all(
      Array.from({ length: watchers }, (_, i) =>
        createRestClient(config)
          .watch(configMaps, { namespace: "bench", resourceVersion: rv, signal: abort.signal })
          .then((stream) => ({ stream, i })),
      ),
    );
    let delivered = 0;
    const done = streams.map(async ({ stream }) => {
      let seen = 0;
      for await (const ev of stream) {
        if (ev.type === "ADDED") {
          seen++;
          delivered++;
          if (seen === updates) break;
        }
      }
    });
    const w0 = performance.now();
    await inParallel(clients, updates, (c, i) =>
      c.create(configMaps, configMap(`w-${i}`), { namespace: "bench" }),
    );
    await Promise.all(done);
    const wSecs = (performance.now() - w0) / 1000;
    abort.abort();
    rows.push({
      name: `watch events/s delivered to ${watchers} watchers`,
      value: delivered / wSecs,
      unit: "/s",
    });
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    await server.stop();
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) printRows(await run());
