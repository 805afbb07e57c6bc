#!/usr/bin/env node
// `npx controller-runtime-apiserver --port N --kubeconfig PATH [--simulate]` (the package's bin;
// in this repository `npm run apiserver -- ...` runs it from source): runs the embedded API server
// until Ctrl-C. `--simulate` also runs what kube-controller-manager and the kubelet would (garbage
// collection, namespace lifecycle, Deployments → ReplicaSets → Pods that become ready, resource
// quotas' status), as
// envtest's `simulate` option does.
import { parseArgs } from "node:util";
import { type RunningSimulation, startSimulation } from "controller-runtime/envtest";
import { startAPIServer } from "./server.js";

const USAGE = `usage: npx controller-runtime-apiserver [--port N] [--host ADDR] [--kubeconfig PATH] [--garbage-collection] [--simulate]

Runs the embedded API server until Ctrl-C. --simulate also runs garbage collection, namespace
lifecycle, Deployments -> ReplicaSets -> Pods that become ready and ResourceQuotas' status. For an operator's manager
against it with its CRDs installed, run \`npx controller-runtime run\` in the operator's project.`;

const options = {
  port: { type: "string", default: "0" },
  host: { type: "string", default: "127.0.0.1" },
  kubeconfig: { type: "string" },
  "garbage-collection": { type: "boolean", default: false },
  simulate: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;
let parsed: ReturnType<typeof parseArgs<{ options: typeof options }>>;
try {
  parsed = parseArgs({ options });
} catch (err) {
  console.error(`controller-runtime-apiserver: ${(err as Error).message}\n\n${USAGE}`);
  process.exit(2);
}
const { values } = parsed;

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`controller-runtime-apiserver: --port must be a port number, got ${values.port}`);
  process.exit(2);
}

const server = await startAPIServer({
  port,
  host: values.host,
  kubeconfigPath: values.kubeconfig,
  // The simulation collects garbage as kube-controller-manager does, from outside the server.
  garbageCollection: values["garbage-collection"] && !values.simulate,
});
let simulation: RunningSimulation | undefined;
// Handled before anything is printed: whoever reads "listening" may stop it at once.
let stopping = false;
const shutdown = async () => {
  if (stopping) process.exit(1);
  stopping = true;
  await simulation?.stop();
  await server.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
if (values.simulate) {
  simulation = await startSimulation(server.restConfig(), {
    garbageCollection: true,
    namespaceLifecycle: true,
    workloads: true,
    resourceQuota: true,
  });
  console.log(
    "cluster simulation running: garbage collection, namespace lifecycle, workloads, resource quotas",
  );
}
console.log(`embedded API server listening on ${server.url}`);
if (server.kubeconfigPath) console.log(`kubeconfig written to ${server.kubeconfigPath}`);
else console.log("no --kubeconfig given; admin token:", server.adminToken);
