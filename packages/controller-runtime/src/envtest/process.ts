// One control-plane process (etcd or kube-apiserver): spawned, its output kept for error
// messages, stopped with SIGTERM and then SIGKILL after a timeout.
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";

/** Thrown when a control-plane binary is missing, exits early or does not become ready. */
export class ControlPlaneError extends Error {
  override readonly name = "ControlPlaneError";
  readonly code = "ERR_ENVTEST_CONTROL_PLANE";
}

const outputLimit = 64 * 1024;

export interface ManagedProcess {
  readonly name: string;
  /** Output so far (the last 64 KiB), for error messages. */
  output(): string;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<number | null>;
  stop(timeoutMs: number): Promise<void>;
}

export function checkBinary(name: string, path: string | undefined, hint: string): string {
  if (!path) throw new ControlPlaneError(`envtest: no path for ${name}: ${hint}`);
  try {
    accessSync(path, constants.X_OK);
  } catch {
    throw new ControlPlaneError(`envtest: ${name} binary not found or not executable at ${path}: ${hint}`);
  }
  return path;
}

export function startProcess(name: string, path: string, args: string[], attach: boolean): ManagedProcess {
  const child: ChildProcess = spawn(path, args, { stdio: ["ignore", "pipe", "pipe"] });
  let buffered = "";
  const collect = (chunk: Buffer) => {
    buffered = (buffered + chunk.toString("utf8")).slice(-outputLimit);
    if (attach) process.stderr.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  // A test that fails before it calls stop() must not leave the binary running nor keep the
  // runner waiting on it: the child does not hold the event loop open, and it is killed when
  // this process exits.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as { unref?: () => void } | null)?.unref?.();
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      process.off("exit", killOnExit);
      resolve(code);
    });
    child.on("error", (err) => {
      buffered += `\n${err.message}`;
      resolve(-1);
    });
  });
  return {
    name,
    output: () => buffered,
    exited,
    async stop(timeoutMs) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
