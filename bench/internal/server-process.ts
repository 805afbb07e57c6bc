// An embedded API server in a child process, so that a benchmark's clients and controllers do not
// share its event loop (on a 2-core machine, the server gets one core, the process under test the
// other). The parent gets the server's rest config and kubeconfig, can ask for the child's CPU
// time, can record CPU profiles of chosen phases, and stops it. The child is this file, forked with tsx.
import { fork } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";
import type { FaultRule } from "../../packages/controller-runtime/src/envtest/faults/faults.js";
import type { APIServerOptions } from "controller-runtime-apiserver";
import type { RESTConfig } from "../../packages/controller-runtime/src/rest/config.js";

export interface ServerProcess {
  restConfig: RESTConfig;
  kubeconfig: string;
  /** The server process's id (its main thread's CPU time is in /proc/<pid>/schedstat). */
  pid: number;
  /** CPU milliseconds (user + system) the server process has used since it started. */
  cpuMs(): Promise<number>;
  /** The same, split into user and system (kernel: sockets, TLS writes' syscalls) time. */
  cpuUsage(): Promise<{ userMs: number; systemMs: number }>;
  /** Adds a fault rule in the server process (`RunningAPIServer.faults.inject`). */
  injectFault(rule: FaultRule): Promise<void>;
  /** Starts a write log in the server process (`faults.recordWrites()`), kept until it stops. */
  recordWrites(): Promise<void>;
  /** Starts the V8 sampling profiler in the server process (`intervalUs` default 200 µs). */
  startProfile(intervalUs?: number): Promise<void>;
  /** Stops it and writes the `.cpuprofile` (Chrome DevTools format) to `path`. */
  stopProfile(path: string): Promise<void>;
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  /** Node flags for the child besides `--import tsx` (for example `--cpu-prof`). Default: none. */
  execArgv?: string[];
}

type ToChild =
  | { type: "cpu" }
  | { type: "fault"; rule: FaultRule }
  | { type: "record-writes" }
  | { type: "stop" }
  | { type: "profile-start"; intervalUs: number }
  | { type: "profile-stop"; path: string };
type FromChild =
  | { type: "ready"; restConfig: RESTConfig; kubeconfig: string }
  | { type: "cpu"; ms: number; userMs: number; systemMs: number }
  | { type: "profiled" }
  | { type: "faulted" };

const CHILD_ENV = "BENCH_APISERVER_CHILD";

/** Starts `startAPIServer(options)` in a child process and resolves once it serves. */
export function startServerProcess(
  options: APIServerOptions = {},
  processOptions: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx", ...(processOptions.execArgv ?? [])],
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
        pid: child.pid!,
        async cpuMs() {
          const reply = next();
          send({ type: "cpu" });
          const r = await reply;
          if (r.type !== "cpu") throw new Error(`API server process answered ${r.type} to cpu`);
          return r.ms;
        },
        async cpuUsage() {
          const reply = next();
          send({ type: "cpu" });
          const r = await reply;
          if (r.type !== "cpu") throw new Error(`API server process answered ${r.type} to cpu`);
          return { userMs: r.userMs, systemMs: r.systemMs };
        },
        async injectFault(rule) {
          const reply = next();
          send({ type: "fault", rule });
          if ((await reply).type !== "faulted") throw new Error("API server process: no fault injected");
        },
        async recordWrites() {
          const reply = next();
          send({ type: "record-writes" });
          if ((await reply).type !== "faulted") throw new Error("API server process: no write log started");
        },
        async startProfile(intervalUs = 200) {
          const reply = next();
          send({ type: "profile-start", intervalUs });
          if ((await reply).type !== "profiled") throw new Error("API server process: no profile started");
        },
        async stopProfile(path) {
          const reply = next();
          send({ type: "profile-stop", path });
          if ((await reply).type !== "profiled") throw new Error("API server process: no profile written");
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

async function childMain(options: APIServerOptions): Promise<void> {
  const { startAPIServer } = await import("controller-runtime-apiserver");
  const server = await startAPIServer(options);
  const send = (m: FromChild) => process.send?.(m);
  let session: Session | undefined;
  process.on("message", async (m: ToChild) => {
    if (m.type === "cpu") {
      const u = process.cpuUsage();
      send({ type: "cpu", ms: (u.user + u.system) / 1000, userMs: u.user / 1000, systemMs: u.system / 1000 });
    } else if (m.type === "fault") {
      server.faults.inject(m.rule);
      send({ type: "faulted" });
    } else if (m.type === "record-writes") {
      server.faults.recordWrites();
      send({ type: "faulted" });
    } else if (m.type === "profile-start") {
      session = new Session();
      session.connect();
      await session.post("Profiler.enable");
      await session.post("Profiler.setSamplingInterval", { interval: m.intervalUs });
      await session.post("Profiler.start");
      send({ type: "profiled" });
    } else if (m.type === "profile-stop") {
      const { profile } = await session!.post("Profiler.stop");
      session!.disconnect();
      await writeFile(m.path, JSON.stringify(profile));
      send({ type: "profiled" });
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
if (childOptions && process.send) await childMain(JSON.parse(childOptions) as APIServerOptions);
