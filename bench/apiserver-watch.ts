// Streaming lists against the embedded API server (issues 3 and 4): for 10 000 and 50 000
// ConfigMaps of about 1.2 KiB, the time from request to the `k8s.io/initial-events-end` bookmark
// at the client (watch with sendInitialEvents=true, decoded by src/rest) against one plain list
// GET (parsed by src/rest) of the same objects, in the same process, with the CPU time of each.
// A streamed list that is cut off (an ERROR event) is reported. `npx tsx bench/apiserver-watch.ts
// [counts...] [--rounds N]`.
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import { startAPIServer } from "controller-runtime-apiserver";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { type BenchRow, printRows } from "./report.js";

const configMaps = resourceOf(kinds.ConfigMap);
const payload = "x".repeat(1000); // with metadata, a ConfigMap of about 1.2 KiB

interface Sample {
  ms: number;
  cpuMs: number;
  items: number;
  error?: string;
}

async function timed(fn: () => Promise<{ items: number; error?: string }>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, ...r };
}

async function plainList(client: RESTClient, namespace: string): Promise<{ items: number }> {
  const list = (await client.list(configMaps, { namespace })) as { items: unknown[] };
  return { items: list.items.length };
}

async function streamedList(
  client: RESTClient,
  namespace: string,
): Promise<{ items: number; error?: string }> {
  const stream = await client.watch(configMaps, {
    namespace,
    sendInitialEvents: true,
    allowWatchBookmarks: true,
    resourceVersionMatch: "NotOlderThan",
  });
  let items = 0;
  try {
    for (;;) {
      const batch = stream.nextBatch ? await stream.nextBatch() : undefined;
      if (!batch) return { items, error: "the stream ended before the initial-events-end bookmark" };
      for (const ev of batch) {
        if (ev.type === "ADDED") items++;
        else if (ev.type === "ERROR") return { items, error: ev.object.message };
        else if (ev.type === "BOOKMARK" && ev.object.metadata?.annotations?.["k8s.io/initial-events-end"])
          return { items };
      }
    }
  } finally {
    await stream.return();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function benchApiServerWatch(counts = [10_000, 50_000], rounds = 5): Promise<BenchRow[]> {
  const server = await startAPIServer();
  const client = newRESTClient(server.restConfig());
  const rows: BenchRow[] = [];
  try {
    for (const count of counts) {
      const namespace = `w${count}`;
      await client.create(resourceOf(kinds.Namespace), { metadata: { name: namespace } });
      // Filled through storage: the HTTP creates are not what is measured.
      for (let i = 0; i < count; i++) {
        server.storage.put("/configmaps", {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: {
            name: `cm-${String(i).padStart(6, "0")}`,
            namespace,
            uid: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
            creationTimestamp: "2024-01-01T00:00:00Z",
            labels: { app: "bench" },
          },
          data: { payload },
        });
      }
      const list: Sample[] = [];
      const streamed: Sample[] = [];
      const errors = new Set<string>();
      for (let r = 0; r < rounds; r++) {
        // Alternate the order so that neither always runs on a warmer heap.
        const pair = r % 2 === 0 ? ["list", "stream"] : ["stream", "list"];
        for (const which of pair) {
          const s = await timed(() =>
            which === "list" ? plainList(client, namespace) : streamedList(client, namespace),
          );
          if (s.items !== count && !s.error) s.error = `got ${s.items} of ${count} objects`;
          if (s.error) errors.add(s.error);
          (which === "list" ? list : streamed).push(s);
        }
      }
      const lm = median(list.map((s) => s.ms));
      const sm = median(streamed.map((s) => s.ms));
      const lc = median(list.map((s) => s.cpuMs));
      const sc = median(streamed.map((s) => s.cpuMs));
      rows.push(
        {
          name: `plain list GET of ${count} ConfigMaps`,
          value: lm,
          unit: "ms",
          note: `CPU ${lc.toFixed(0)} ms`,
        },
        {
          name: `streamed list of ${count} ConfigMaps, to the initial-events-end bookmark`,
          value: sm,
          unit: "ms",
          note: `CPU ${sc.toFixed(0)} ms; ${(sm / lm).toFixed(2)}× wall, ${(sc / lc).toFixed(2)}× CPU the list; ${
            errors.size ? `ERRORS: ${[...errors].join("; ")}` : "no cut-off"
          }`,
        },
      );
    }
  } finally {
    await server.stop();
  }
  return rows;
}

/** `npm run bench` runs every module's `run`: the default counts and rounds. */
export function run(): Promise<BenchRow[]> {
  return benchApiServerWatch();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const args = process.argv.slice(2);
  const ri = args.indexOf("--rounds");
  const rounds = ri >= 0 ? Number(args.splice(ri, 2)[1]) : 5;
  const counts = args.length ? args.map(Number) : undefined;
  printRows(await benchApiServerWatch(counts, rounds));
}
