// The kubectl binaries the kubectl suites run under, and a runner for each. The current one is
// $KUBECTL, else the kubectl built beside the run's kube-apiserver (scripts/referee/build.sh puts
// it in KUBEBUILDER_ASSETS: the same release as the server), else the one on PATH; Debian's
// kubectl 1.20 (the `kubernetes-client` package) runs when it is found at $KUBECTL_1_20 or
// .tmp/kubectl-1.20/usr/bin/kubectl (.ci/run unpacks it there). A binary that is absent or does
// not start makes its tests skip, never fail.
import { type ChildProcessWithoutNullStreams, execFile, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface KubectlClient {
  /** The minor version the binary stands for: "1.37" or "1.20". */
  version: string;
  /** A short name-safe id for the version ("k137"), to keep each version's objects apart. */
  id: string;
  /** Path (or name on PATH) of the binary; undefined when it was not found. */
  bin: string | undefined;
}

function kubectl120(): string | undefined {
  const fromEnv = process.env.KUBECTL_1_20;
  if (fromEnv) return fromEnv;
  const local = fileURLToPath(new URL("../../.tmp/kubectl-1.20/usr/bin/kubectl", import.meta.url));
  return existsSync(local) ? local : undefined;
}

function currentKubectl(): string {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  const assets = process.env.KUBEBUILDER_ASSETS;
  if (assets && existsSync(join(assets, "kubectl"))) return join(assets, "kubectl");
  return "kubectl";
}

/** The binary's "major.minor", from `kubectl version --client`; undefined when it does not run. */
function minorOf(bin: string): string | undefined {
  try {
    const printed = execFileSync(bin, ["version", "--client", "-o", "json"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    const info = JSON.parse(printed) as { clientVersion?: { major?: string; minor?: string } };
    const minor = info.clientVersion?.minor?.replace(/\D+$/, "");
    return info.clientVersion?.major && minor ? `${info.clientVersion.major}.${minor}` : undefined;
  } catch {
    return undefined;
  }
}

let clients: KubectlClient[] | undefined;

/** Every kubectl version the suites run under, found or not. */
export function kubectlClients(): KubectlClient[] {
  if (clients) return clients;
  const bin = currentKubectl();
  const version = minorOf(bin);
  clients = [
    version
      ? { version, id: `k${version.replace(".", "")}`, bin }
      : { version: "current", id: "kcur", bin: undefined },
    { version: "1.20", id: "k120", bin: kubectl120() },
  ];
  return clients;
}

/** Whether the client's binary exists and starts. */
export async function isUsable(client: KubectlClient): Promise<boolean> {
  if (!client.bin) return false;
  try {
    await run(client.bin, ["version", "--client"]);
    return true;
  } catch {
    return false;
  }
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlRunner {
  /** Runs kubectl to its end; a non-zero exit is a result, not a rejection. */
  (...args: string[]): Promise<KubectlResult>;
  /** Starts a long-running kubectl (`get -w`, `wait`); the caller kills it. */
  spawn(...args: string[]): ChildProcessWithoutNullStreams;
}

/**
 * A runner of `client`'s binary against the cluster of `kubeconfigPath`, with its discovery
 * cache in `cacheDir` (never the user's ~/.kube).
 */
export function kubectlRunner(
  client: KubectlClient,
  kubeconfigPath: string,
  cacheDir: string,
): KubectlRunner {
  const bin = client.bin;
  if (!bin) throw new Error(`kubectl ${client.version} was not found; check isUsable() first`);
  const env = { ...process.env, KUBECONFIG: kubeconfigPath };
  const fullArgs = (args: string[]) => ["--cache-dir", join(cacheDir, `cache-${client.id}`), ...args];
  const runner = async (...args: string[]): Promise<KubectlResult> => {
    try {
      const { stdout, stderr } = await run(bin, fullArgs(args), { env });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return {
        code: typeof err.code === "number" ? err.code : 1,
        stdout: err.stdout ?? "",
        stderr: err.stderr ?? "",
      };
    }
  };
  runner.spawn = (...args: string[]) => spawn(bin, fullArgs(args), { env });
  return runner;
}
