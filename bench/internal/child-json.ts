// Runs a benchmark file again in a child process (so that each side of a comparison has a process
// of its own) and returns the JSON the child printed last on stdout. The child finds its task in
// the environment variable the caller names.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface ChildOptions {
  /** The benchmark module's `import.meta.url`: the file the child runs. */
  moduleUrl: string;
  /** The variable that tells the child what to do, and its value. */
  env: Record<string, string>;
  /** Node flags besides `--import tsx`. Default: none. */
  execArgv?: string[];
  /** Names the child in an error. */
  what: string;
}

export function runChildJSON<T>(opts: ChildOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    const args = [...(opts.execArgv ?? []), "--import", "tsx", fileURLToPath(opts.moduleUrl)];
    const proc = spawn(process.execPath, args, {
      env: { ...process.env, ...opts.env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    proc.on("error", reject);
    proc.on("exit", (code) => {
      if (code !== 0) reject(new Error(`${opts.what} exited with ${code}: ${out}`));
      else resolve(JSON.parse(out.trim().split("\n").pop() ?? "{}") as T);
    });
  });
}
