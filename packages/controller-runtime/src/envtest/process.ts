// One control-plane process (etcd or kube-apiserver): spawned in a process group of its own, its
// output kept for error messages, stopped with SIGTERM and then SIGKILL after a timeout, sent to
// the whole group (controller-runtime v0.24: a wrapper script's children go too).
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

/** Process groups started and not yet stopped, killed if this process is interrupted. */
const liveGroups = new Set<() => void>();
let interruptsWatched = false;

/**
 * A process group of its own no longer gets the terminal's Ctrl-C with us: on SIGINT or SIGTERM
 * the groups are killed, and when nothing else listens for the signal it is raised again, so
 * that this process ends as it would have.
 */
function watchInterrupts(): void {
  if (interruptsWatched) return;
  interruptsWatched = true;
  for (const sig of ["SIGINT", "SIGTERM"] as const) {
    const onSignal = () => {
      for (const kill of liveGroups) kill();
      if (process.listenerCount(sig) === 1) {
        process.off(sig, onSignal);
        process.kill(process.pid, sig);
      }
    };
    process.on(sig, onSignal);
  }
}

export function startProcess(name: string, path: string, args: string[], attach: boolean): ManagedProcess {
  // A group of its own (not on Windows, which has none): signals reach what it starts too.
  const group = process.platform !== "win32";
  const child: ChildProcess = spawn(path, args, { stdio: ["ignore", "pipe", "pipe"], detached: group });
  const signal = (sig: NodeJS.Signals) => {
    if (group && child.pid !== undefined) {
      try {
        process.kill(-child.pid, sig);
        return;
      } catch {
        // The group is gone (or was never made): signal the child itself.
      }
    }
    child.kill(sig);
  };
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
  const killOnExit = () => signal("SIGKILL");
  process.once("exit", killOnExit);
  if (group) {
    liveGroups.add(killOnExit);
    watchInterrupts();
  }
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      process.off("exit", killOnExit);
      liveGroups.delete(killOnExit);
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
      if (child.exitCode !== null || child.signalCode !== null) {
        signal("SIGKILL"); // what it left behind in its group
        return;
      }
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), timeoutMs);
      await exited;
      clearTimeout(timer);
      // The child is gone; its group may not be (a child that ignored SIGTERM).
      signal("SIGKILL");
    },
  };
}
