// Our REST client over HTTP/1.1 and over HTTP/2 (issue 21: measure both, choose the default by
// the figures). The embedded API server runs in its own process (HTTP/2 offered by ALPN, as
// kube-apiserver does); each client side runs in a process of its own against it, the same work
// on the same data: a warm-up, then
//   gets     2 000 GETs of one ConfigMap, 16 at a time;
//   watches  50 watches opened at once, then 100 ConfigMaps created: until every watch has seen
//            every event (50 × 100 deliveries).
// Sides alternate (h1, h2, h2, h1, ...), 3 repetitions each; reported: median wall time with
// min–max, the client process's CPU beside it, and h2/h1 ratios from this run.
// `npx tsx bench/client-http2.ts`, or `npm run bench -- client-http2`.
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { kinds } from "controller-runtime/api";
import type { RESTConfig } from "../packages/controller-runtime/src/rest/config.js";
import { newRESTClient, resourceOf } from "controller-runtime/rest";
import { startServerProcess } from "./internal/server-process.js";
import { type BenchRow, printRows } from "./report.js";

const CHILD = "BENCH_CLIENT_HTTP2_CHILD";
const configMaps = resourceOf(kinds.ConfigMap);
const GETS = 2000;
const CONCURRENCY = 16;
const WATCHES = 50;
const EVENTS = 100;

interface Sample {
  getsMs: number;
  getsCpuMs: number;
  watchesMs: number;
  watchesCpuMs: number;
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

async function measure(config: RESTConfig, http2: boolean, namespace: string): Promise<Sample> {
  const client = newRESTClient(config, { http2 });
  try {
    const getAll = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < n) await client.get(configMaps, "target", { namespace });
        }),
      );
    };
    await getAll(200); // warm-up: connections, TLS, JIT
    let cpu = process.cpuUsage();
    let t0 = performance.now();
    await getAll(GETS);
    const getsMs = performance.now() - t0;
    const getsCpuMs = cpuMs(process.cpuUsage(cpu));

    const list = (await client.list(configMaps, { namespace })) as { metadata: { resourceVersion: string } };
    const prefix = `w${Date.now().toString(36)}`;
    cpu = process.cpuUsage();
    t0 = performance.now();
    const streams = await Promise.all(
      Array.from({ length: WATCHES }, () =>
        client.watch(configMaps, { namespace, resourceVersion: list.metadata.resourceVersion }),
      ),
    );
    const seen = streams.map(async (stream) => {
      let n = 0;
      for await (const ev of stream) {
        if (ev.type === "ADDED" && ev.object.metadata?.name?.startsWith(prefix) && ++n === EVENTS) break;
      }
    });
    for (let i = 0; i < EVENTS; i++) {
      await client.create(
        configMaps,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${prefix}-${i}` }, data: { i: String(i) } },
        { namespace },
      );
    }
    await Promise.all(seen);
    const watchesMs = performance.now() - t0;
    const watchesCpuMs = cpuMs(process.cpuUsage(cpu));
    return { getsMs, getsCpuMs, watchesMs, watchesCpuMs };
  } finally {
    await client.close();
  }
}

/** Runs one side in a process of its own. */
function side(config: RESTConfig, http2: boolean, namespace: string): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [], {
      execArgv: ["--import", "tsx"],
      env: { ...process.env, [CHILD]: JSON.stringify({ config, http2, namespace }) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.once("message", (m) => resolve(m as Sample));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`client process exited with ${code}`));
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

export async function run(): Promise<BenchRow[]> {
  const server = await startServerProcess();
  try {
    const admin = newRESTClient(server.restConfig);
    const namespace = "bench-h2";
    await admin.request({
      method: "POST",
      path: "/api/v1/namespaces",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
    });
    await admin.create(
      configMaps,
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "target" }, data: { a: "x".repeat(1000) } },
      { namespace },
    );
    await admin.close();
    const samples: Record<"h1" | "h2", Sample[]> = { h1: [], h2: [] };
    const order: ("h1" | "h2")[] = ["h1", "h2", "h2", "h1", "h1", "h2"];
    for (const s of order) samples[s].push(await side(server.restConfig, s === "h2", namespace));
    const rows: BenchRow[] = [];
    for (const [metric, what] of [
      ["gets", `${GETS} GETs, ${CONCURRENCY} at a time`],
      ["watches", `${WATCHES} watches × ${EVENTS} events`],
    ] as const) {
      for (const s of ["h1", "h2"] as const) {
        const wall = samples[s].map((x) => x[`${metric}Ms`]);
        const cpu = samples[s].map((x) => x[`${metric}CpuMs`]);
        rows.push({
          name: `${metric} over ${s === "h1" ? "HTTP/1.1" : "HTTP/2"}: wall`,
          value: median(wall),
          unit: "ms",
          note: `${range(wall)}; client CPU ${median(cpu).toFixed(0)} ms (${range(cpu)}); ${what}`,
        });
      }
      const ratio =
        median(samples.h2.map((x) => x[`${metric}Ms`])) / median(samples.h1.map((x) => x[`${metric}Ms`]));
      const cpuRatio =
        median(samples.h2.map((x) => x[`${metric}CpuMs`])) /
        median(samples.h1.map((x) => x[`${metric}CpuMs`]));
      rows.push({
        name: `${metric}: HTTP/2 ÷ HTTP/1.1`,
        value: ratio,
        unit: "× wall",
        note: `${cpuRatio.toFixed(2)} × client CPU`,
      });
    }
    return rows;
  } finally {
    await server.stop();
  }
}

const childArgs = process.env[CHILD];
if (childArgs) {
  const { config, http2, namespace } = JSON.parse(childArgs) as {
    config: RESTConfig;
    http2: boolean;
    namespace: string;
  };
  const sample = await measure(config, http2, namespace);
  process.send?.(sample, () => process.exit(0));
} else if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  printRows(await run());
}
