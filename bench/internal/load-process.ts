// A load generator in a child process: bursts of ConfigMap creates from N keep-alive REST
// clients, one request at a time each, as fast as the server takes them. Kept out of the process
// under test so that its CPU time is the controller's alone. The child is this file, forked with tsx.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { RESTConfig } from "../../packages/controller-runtime/src/rest/config.js";

export interface BurstResult {
  /** Wall time of the burst in the child. */
  ms: number;
  /** CPU milliseconds the child used during the burst. */
  cpuMs: number;
}

export interface LoadProcess {
  /** Creates ConfigMaps `${prefix}-0` … `${prefix}-${total - 1}` in `namespace`. */
  burst(namespace: string, prefix: string, total: number): Promise<BurstResult>;
  stop(): Promise<void>;
}

interface Setup {
  restConfig: RESTConfig;
  clients: number;
  /** Bytes of `data.payload` in each ConfigMap. */
  payloadBytes: number;
}
type ToChild = { type: "burst"; namespace: string; prefix: string; total: number } | { type: "stop" };
type FromChild = { type: "ready" } | ({ type: "done" } & BurstResult) | { type: "failed"; error: string };

const CHILD_ENV = "BENCH_LOAD_CHILD";

export function startLoadProcess(setup: Setup): Promise<LoadProcess> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(setup) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting: Array<(m: FromChild) => void> = [];
  const next = () => new Promise<FromChild>((resolve) => waiting.push(resolve));
  child.on("message", (m: FromChild) => waiting.shift()?.(m));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`load process exited with ${code} before it was ready`)));
    void next().then(() =>
      resolve({
        async burst(namespace, prefix, total) {
          const reply = next();
          child.send({ type: "burst", namespace, prefix, total } satisfies ToChild);
          const r = await reply;
          if (r.type === "failed") throw new Error(`load process: ${r.error}`);
          if (r.type !== "done") throw new Error(`load process answered ${r.type} to burst`);
          return { ms: r.ms, cpuMs: r.cpuMs };
        },
        async stop() {
          if (child.exitCode !== null) return;
          child.send({ type: "stop" } satisfies ToChild);
          await exited;
        },
      }),
    );
  });
}

async function childMain(setup: Setup): Promise<void> {
  const { kinds } = await import("controller-runtime/api");
  const { newRESTClient, resourceOf } = await import("controller-runtime/rest");
  const configMaps = resourceOf(kinds.ConfigMap);
  const payload = "x".repeat(setup.payloadBytes);
  // One keep-alive connection each, as the parent's clients.
  const clients = Array.from({ length: setup.clients }, () =>
    newRESTClient(setup.restConfig, { connections: 1 }),
  );
  const send = (m: FromChild) => process.send?.(m);
  process.on("message", async (m: ToChild) => {
    if (m.type === "stop") {
      await Promise.all(clients.map((c) => c.close()));
      process.disconnect();
      process.exit(0);
    }
    try {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        clients.map(async (c) => {
          for (let i = next++; i < m.total; i = next++) {
            const obj = {
              apiVersion: "v1",
              kind: "ConfigMap",
              metadata: { name: `${m.prefix}-${i}` },
              data: { payload },
            };
            await c.create(configMaps, obj, { namespace: m.namespace });
          }
        }),
      );
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      send({ type: "done", ms, cpuMs: (cpu.user + cpu.system) / 1000 });
    } catch (err) {
      send({ type: "failed", error: String(err) });
    }
  });
  process.on("disconnect", () => process.exit(0));
  send({ type: "ready" });
}

const childSetup = process.env[CHILD_ENV];
if (childSetup && process.send) await childMain(JSON.parse(childSetup) as Setup);
