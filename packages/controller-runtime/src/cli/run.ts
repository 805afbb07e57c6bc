// `run`: kubebuilder's `make run` — the project's manager, from its sources, on this machine until
// Ctrl-C. Against the embedded API server by default, started here with the cluster simulation
// (garbage collection, namespace lifecycle, Deployments → ReplicaSets → Pods that become ready),
// the project's CRDs installed, its webhooks pointed at the manager, and a kubeconfig written for
// kubectl; or, with --kubeconfig or KUBECONFIG, against that cluster as it is.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { kinds } from "../api/index.js";
import { EmbeddedServerMissingError } from "../envtest/embedded-server.js";
import { Environment } from "../envtest/environment.js";
import { isNotFound, newRESTClient, type RESTConfig, resourceOf } from "../rest/index.js";
import { CLIError } from "./errors.js";
import { clusterConfig, projectCRDs } from "./install.js";
import { readProject } from "./scaffold/project.js";

/** Where `run` writes the embedded server's kubeconfig, in the project (and .gitignore). */
export const RUN_KUBECONFIG = join(".controller-runtime", "kubeconfig");

export interface RunFlags {
  kubeconfig?: string;
  /** The embedded API server's port. Default: a free one. */
  port?: string;
}

export interface RunIO {
  log(line: string): void;
  env: NodeJS.ProcessEnv;
}

/** Runs the manager until it exits (Ctrl-C stops it cleanly); resolves with its exit status. */
export async function run(dir: string, flags: RunFlags, managerArgs: string[], io: RunIO): Promise<number> {
  // From the first moment: a Ctrl-C while the server starts must stop it, not kill this process.
  const signals = trapSignals();
  try {
    return await runTrapped(dir, flags, managerArgs, io, signals);
  } finally {
    signals.release();
  }
}

async function runTrapped(
  dir: string,
  flags: RunFlags,
  managerArgs: string[],
  io: RunIO,
  signals: Signals,
): Promise<number> {
  const project = readProject(dir);
  const entry = "src/main.ts";
  if (!existsSync(join(dir, entry)))
    throw new CLIError(`no ${entry} in ${dir}: run starts the manager from it`);
  try {
    createRequire(join(dir, "package.json")).resolve("tsx");
  } catch {
    throw new CLIError(`tsx is not installed for ${dir}: run npm install (the scaffold lists it)`);
  }
  const hasWebhooks = project.resources.some((r) => r.webhooks?.defaulting || r.webhooks?.validation);
  if (flags.kubeconfig !== undefined || io.env.KUBECONFIG) {
    // The user's cluster, as it is: `npm run install-crds` puts the CRDs there.
    const config = clusterConfig(flags.kubeconfig);
    io.log(`running against the cluster at ${config.host} (${flags.kubeconfig ?? "KUBECONFIG"})`);
    for (const line of await missingCRDs(dir, config)) io.log(line);
    if (signals.stopped.aborted) return 0;
    const env = { ...io.env };
    if (hasWebhooks && env.ENABLE_WEBHOOKS === undefined) {
      env.ENABLE_WEBHOOKS = "false";
      io.log(
        "webhooks are off (ENABLE_WEBHOOKS=false): that cluster cannot call a manager on this machine; set ENABLE_WEBHOOKS=true and --webhook-cert-path to serve them",
      );
    }
    const args = flags.kubeconfig ? [`--kubeconfig=${flags.kubeconfig}`] : [];
    return runManager(dir, entry, [...args, ...managerArgs], env, io, signals);
  }

  const port = flags.port === undefined ? 0 : Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new CLIError(`--port ${JSON.stringify(flags.port)}: a port number (0 for a free one)`);
  }
  const crds = existsSync(join(dir, "config/crd")) ? projectCRDs(dir, undefined, true) : [];
  // ENABLE_WEBHOOKS=false leaves them out of the manager: then out of the server too.
  const serveWebhooks = hasWebhooks && io.env.ENABLE_WEBHOOKS !== "false";
  const env = new Environment({
    // The embedded server whatever KUBEBUILDER_ASSETS or USE_EXISTING_CLUSTER say: they choose
    // the tests' server, not this one.
    env: {},
    useExistingCluster: false,
    apiServer: { port },
    crds,
    crdInstallTimeoutMs: 60_000,
    ...(serveWebhooks ? { webhookInstallOptions: { paths: [join(dir, "config/webhook")] } } : {}),
    simulate: { garbageCollection: true, namespaceLifecycle: true, workloads: true, resourceQuota: true },
  });
  try {
    await env.start();
  } catch (err) {
    if (err instanceof EmbeddedServerMissingError) throw new CLIError(err.message, { cause: err });
    throw err;
  }
  const kubeconfig = join(dir, RUN_KUBECONFIG);
  try {
    mkdirSync(join(dir, ".controller-runtime"), { recursive: true });
    writeFileSync(kubeconfig, env.started.kubeconfig, { mode: 0o600 });
    const shown = relative(process.cwd(), kubeconfig) || kubeconfig;
    io.log(
      `embedded API server at ${env.config.host}, with the cluster simulation (garbage collection, namespace lifecycle, workloads, resource quotas)`,
    );
    io.log(
      crds.length > 0
        ? `installed ${crds.map((c) => c.metadata?.name).join(", ")}`
        : "no CRDs in config/crd yet (create api, then npm run generate)",
    );
    io.log(`kubeconfig written to ${shown}: kubectl --kubeconfig ${shown} get all -A`);
    const args = [`--kubeconfig=${kubeconfig}`];
    if (serveWebhooks) {
      const { server } = env.webhookInstallOptions;
      args.push(`--webhook-cert-path=${server.certDir}`, `--webhook-port=${server.port}`);
      io.log(`webhooks of config/webhook pointed at https://${server.host}:${server.port}`);
    }
    if (signals.stopped.aborted) return 0;
    return await runManager(dir, entry, [...args, ...managerArgs], io.env, io, signals);
  } finally {
    rmSync(kubeconfig, { force: true });
    await env.stop();
  }
}

/** The project's CRDs the cluster does not serve, as lines that say how to install them. */
async function missingCRDs(dir: string, config: RESTConfig): Promise<string[]> {
  if (!existsSync(join(dir, "config/crd"))) return [];
  const rest = newRESTClient(config);
  const missing: string[] = [];
  try {
    for (const crd of projectCRDs(dir, undefined, true)) {
      const name = crd.metadata?.name ?? "";
      try {
        await rest.get<CustomResourceDefinition>(resourceOf(kinds.CustomResourceDefinition), name);
      } catch (err) {
        // Anything but a 404 (a 403 for a user who may not read CRDs) leaves the manager to say.
        if (isNotFound(err)) missing.push(name);
      }
    }
  } finally {
    await rest.close();
  }
  return missing.length === 0
    ? []
    : [`not installed in that cluster: ${missing.join(", ")}; run npm run install-crds first`];
}

/** Ctrl-C and SIGTERM, held from the start: before the manager runs they stop `run`; then they are its. */
interface Signals {
  /** Aborted by a signal that came before the manager ran. */
  stopped: AbortSignal;
  /** From now on signals go to `child`. */
  forwardTo(child: ChildProcess): void;
  release(): void;
}

function trapSignals(): Signals {
  const stop = new AbortController();
  let child: ChildProcess | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (child && child.exitCode === null && child.signalCode === null) {
      // On Windows Ctrl-C reaches every process of the console: the manager has it already.
      if (process.platform !== "win32") child.kill(signal);
      return;
    }
    stop.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    stopped: stop.signal,
    forwardTo(c) {
      child = c;
    },
    release() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/**
 * Loaded into the manager's process before its entry: when `run` goes without stopping it (killed
 * with SIGKILL, crashed), the manager is re-parented, and stops as on SIGTERM rather than run on
 * against a server that went with `run`. Polled, unreferenced: it keeps nothing alive.
 */
const ORPHAN_WATCH = `data:text/javascript,${encodeURIComponent(
  'const parent = process.ppid; const t = setInterval(() => { if (process.ppid !== parent) { clearInterval(t); process.kill(process.pid, "SIGTERM"); } }, 1000); t.unref();',
)}`;

/**
 * `node --import tsx <entry> <args>` in the project, until it exits. Node runs it directly (not
 * through tsx's CLI, whose signal relay kills a child that is slow to acknowledge Ctrl-C). On
 * POSIX it gets a process group of its own, so that Ctrl-C reaches it once, from here, after
 * which the manager shuts down as it does on SIGINT; a second Ctrl-C is forwarded too (the
 * manager then exits at once, as Go's does).
 */
function runManager(
  dir: string,
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  io: RunIO,
  signals: Signals,
): Promise<number> {
  io.log(`starting the manager: node --import tsx ${entry} ${args.join(" ")}`.trimEnd());
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", ORPHAN_WATCH, "--import", "tsx", entry, ...args],
    {
      cwd: dir,
      env,
      stdio: ["ignore", "inherit", "inherit"],
      detached: process.platform !== "win32",
    },
  );
  signals.forwardTo(child);
  return new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? 1));
  });
}
