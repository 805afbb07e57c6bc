// `npm start`: the examples at work. With no flags it starts the embedded API server (kubeconfig
// in .tmp/kubeconfig, garbage collection on), installs the CRDs, creates sample objects, runs the
// simulator (kube-controller-manager and kubelet stand-in) and two replicas of a Manager running
// all three examples with leader election, and prints how to look once the start-up logs calm
// down (Enter prints it again). Ports are free ones unless flags fix them, so two demos (or a demo
// and anything on 8080) share a machine. Ctrl-C stops it all gracefully.
//
//   npm start -- --kubeconfig ~/.kube/config [--install-crds]   the same replicas on a real cluster
//   npm start -- --metrics-bind-address :8080 --health-probe-bind-address :8081   fixed ports
//   npm start -- --zap-encoder json --zap-log-level debug                   other logs
import { setMaxListeners } from "node:events";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { loggerFromFlags } from "controller-runtime/log";
import { type Manager, setupSignalHandler } from "controller-runtime/manager";
import { getConfig, newRESTClient, type RESTConfig, resourceOf } from "controller-runtime/rest";
import { shardLabel } from "../packages/controller-runtime/src/sharding/index.js";
import { StorageBucket } from "./storagebucket/api.js";
import { banner } from "./demo/banner.js";
import { type EmbeddedCluster, installExampleCRDs, startEmbeddedCluster } from "./demo/embedded.js";
import { QuietOutput } from "./demo/quiet-output.js";
import { newReplica, offsetBindAddress, ring } from "./demo/replica.js";
import { managerFlags, parseDuration, parseFlags } from "./shared/flags.js";

// Every kind source of a controller waits on the same abort signal, and a replica here runs seven:
// more listeners than Node's default warning threshold (10), though none leaks.
setMaxListeners(50);

const argv = process.argv.slice(2);
const flags = parseFlags(
  {
    ...managerFlags,
    "metrics-bind-address": { type: "string", default: "127.0.0.1:0" },
    "health-probe-bind-address": { type: "string", default: "127.0.0.1:0" },
    "leader-elect": { type: "boolean", default: true },
    replicas: { type: "string", default: "2" },
    "install-crds": { type: "boolean", default: false },
    "apiserver-port": { type: "string", default: "0" },
    "probe-interval": { type: "string", default: "10s" },
  },
  argv,
);
// Readable in a terminal unless the flags ask otherwise (later flags win).
const output = new QuietOutput();
const logger = loggerFromFlags(["--zap-encoder=console", ...argv], { destination: output.destination });
const log = logger.withName("setup");

/** How many StorageBuckets each replica holds in the ring (by the shard label), of all. */
async function sharesOf(config: RESTConfig, count: number): Promise<{ held: number; total: number }[]> {
  const rest = newRESTClient(config);
  try {
    const buckets = await rest.list(resourceOf(StorageBucket));
    const label = shardLabel(ring);
    return Array.from({ length: count }, (_, i) => ({
      held: buckets.items.filter((b) => b.metadata?.labels?.[label] === `replica-${i + 1}`).length,
      total: buckets.items.length,
    }));
  } finally {
    await rest.close();
  }
}

// Ctrl-C under `npm start` reaches this process more than once at the same moment (from the
// terminal, and relayed by npm and by tsx); only a second Ctrl-C a moment later forces an exit.
const firstSignalAt = { ms: 0 };
const signal = setupSignalHandler({
  onSecondSignal: () => {
    if (Date.now() - firstSignalAt.ms > 1000) process.exit(1);
  },
});
signal.addEventListener("abort", () => {
  firstSignalAt.ms = Date.now();
  log.info("shutting down (Ctrl-C again to exit at once)");
});
// Stops everything on Ctrl-C, and also when a part fails (a port in use, say).
const stop = new AbortController();
signal.addEventListener("abort", () => stop.abort(), { once: true });

let cluster: EmbeddedCluster | undefined;
let exitCode = 0;
try {
  let config: RESTConfig;
  let kubeconfigPath: string;
  if (flags.kubeconfig) {
    kubeconfigPath = resolve(flags.kubeconfig);
    config = getConfig({ kubeconfig: kubeconfigPath });
    if (flags["install-crds"]) await installExampleCRDs(config);
  } else {
    mkdirSync(resolve(".tmp"), { recursive: true });
    kubeconfigPath = resolve(".tmp/kubeconfig");
    cluster = await startEmbeddedCluster({ port: Number(flags["apiserver-port"]), kubeconfigPath });
    config = cluster.server.restConfig();
  }

  // Each replica needs its own ports: with fixed ones, replica-2 takes the next two, and so on.
  const replicas: Manager[] = [];
  for (let i = 0; i < Number(flags.replicas); i++) {
    replicas.push(
      await newReplica(config, {
        name: `replica-${i + 1}`,
        logger,
        leaderElection: flags["leader-elect"],
        metricsBindAddress: offsetBindAddress(flags["metrics-bind-address"], 2 * i),
        healthProbeBindAddress: offsetBindAddress(flags["health-probe-bind-address"], 2 * i),
        probeIntervalMs: parseDuration("probe-interval", flags["probe-interval"]),
      }),
    );
  }
  const failed = (err: unknown) => {
    log.error(err, "stopping: a part failed");
    exitCode = 1;
    stop.abort();
  };
  const running = [
    ...replicas.map((mgr) => mgr.start(stop.signal).catch(failed)),
    ...(cluster ? [cluster.simulate(stop.signal).catch(failed)] : []),
  ];

  // Once every replica listens and one leads, say where everything is.
  let leader = -1;
  const elected = Promise.race(
    replicas.map((mgr, i) =>
      mgr.elected().then(() => {
        leader = i;
      }),
    ),
  );
  const stopped = new Promise<void>((r) => stop.signal.addEventListener("abort", () => r(), { once: true }));
  const addresses = Promise.all(
    replicas.map(async (mgr) => ({
      metrics: await mgr.getMetricsServer().listening(),
      probes: await mgr.getHealthProbeServer().listening(),
    })),
  );
  const ready = await Promise.race([Promise.all([addresses, elected]), stopped]);
  // The banner goes last: after the burst of start-up lines, which ends with the simulated Pods
  // turning ready a few seconds in (so: 3 s without a line, 15 s at most).
  if (ready) await output.quiet(3000, 15_000, stop.signal);
  if (ready && !stop.signal.aborted) {
    const [bound] = ready;
    const interactive = process.stdin.isTTY === true;
    const show = async () => {
      const shares = await sharesOf(config, replicas.length).catch(() => undefined);
      process.stdout.write(
        banner({
          apiServer: config.host,
          embedded: cluster !== undefined,
          kubeconfigPath,
          s3Endpoint: cluster?.s3.endpoint,
          replicas: bound.map((b, i) => ({
            name: `replica-${i + 1}`,
            ...b,
            leader: i === leader,
            share: shares?.[i],
          })),
          shardLabel: shardLabel(ring),
          interactive,
        }),
      );
    };
    await show();
    if (interactive) {
      // Enter shows it again, once log lines have pushed it away.
      process.stdin.on("data", () => void show());
      stop.signal.addEventListener("abort", () => process.stdin.pause(), { once: true });
    }
  }
  await Promise.all(running);
} catch (err) {
  log.error(err, "problem running the examples");
  exitCode = 1;
} finally {
  await cluster?.stop();
}
log.info("stopped", { exitCode });
// Everything has stopped; exit without waiting for stray handles (an idle keep-alive socket).
process.exit(exitCode);
