// An embedded API server in a child process, so that a benchmark's clients and controllers do not
// share its event loop (on a 2-core machine, the server gets one core, the process under test the
// other). The parent gets the server's rest config and kubeconfig, can ask for the child's CPU
// time, and stops it. The child is this file, forked with tsx.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ApiServerOptions } from "../../src/apiserver/index.js";
import type { RestConfig } from "../../src/rest/config.js";

export interface ServerProcess {
  restConfig: RestConfig;
  kubeconfig: string;
  /** CPU milliseconds (user + system) the server process has used since it started. */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

type ToChild = { type: "cpu" } | { type: "stop" };
type FromChild = { type: "ready"; restConfig: RestConfig; kubeconfig: string } | { type: "cpu"; ms: number };

const CHILD_ENV = "BENCH_APISERVER_CHILD";

/** Starts `startApiServer(options)` in a child process and resolves once it serves. */
export function startServerProcess(options: ApiServerOptions = {}): Promise<ServerProcess> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, [CHILD_ENV]: JSON.stringify(options) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting: Array<(m: FromChild) => void> = [];
  const next = () => new Promise<FromChild>((resolve) => waiting.push(resolve));
  child.on("message", (m: FromChild) => waiting.shift()?.(m));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      reject(new Error(`API server process exited with ${code} before it was ready`)),
    );
    void next().then((m) => {
      if (m.type !== "ready") return reject(new Error(`API server process sent ${m.type} first`));
      const send = (msg: ToChild) => child.send(msg);
      resolve({
        restConfig: m.restConfig,
        kubeconfig: m.kubeconfig,
        async cpuMs() {
          const reply = next();
          send({ type: "cpu" });
          const r = await reply;
          if (r.type !== "cpu") throw new Error(`API server process answered ${r.type} to cpu`);
          return r.ms;
        },
        async stop() {
          if (child.exitCode !== null) return;
          send({ type: "stop" });
          await exited;
        },
      });
    });
  });
}

async function childMain(options: ApiServerOptions): Promise<void> {
  const { startApiServer } = await import("../../src/apiserver/index.js");
  const server = await startApiServer(options);
  const send = (m: FromChild) => process.send?.(m);
  process.on("message", async (m: ToChild) => {
    if (m.type === "cpu") {
      const u = process.cpuUsage();
      send({ type: "cpu", ms: (u.user + u.system) / 1000 });
    } else {
      await server.stop();
      process.disconnect();
      process.exit(0);
    }
  });
  // If the parent dies, do not linger.
  process.on("disconnect", () => process.exit(0));
  send({ type: "ready", restConfig: server.restConfig(), kubeconfig: server.kubeconfig });
}

const childOptions = process.env[CHILD_ENV];
if (childOptions && process.send) await childMain(JSON.parse(childOptions) as ApiServerOptions);
