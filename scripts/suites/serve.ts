// `tsx scripts/suites/serve.ts --kubeconfig PATH [--simulate]`: starts an API server through
// envtest, as a test of ours would get it, writes its admin kubeconfig to PATH once it is ready,
// and serves until SIGTERM or SIGINT. The server is envtest's choice: the embedded one, or
// kube-apiserver and etcd from KUBEBUILDER_ASSETS. Others' suites (scripts/suites/) run against it.
// `--simulate` starts the cluster simulation (garbage collection, namespace lifecycle, workloads,
// resource quotas)
// as `npm start` and envtest run it.
import { renameSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Environment } from "controller-runtime/envtest";

const { values } = parseArgs({
  options: {
    kubeconfig: { type: "string" },
    simulate: { type: "boolean", default: false },
  },
});
if (!values.kubeconfig) {
  console.error("usage: tsx scripts/suites/serve.ts --kubeconfig PATH [--simulate]");
  process.exit(2);
}

const env = new Environment(
  values.simulate
    ? {
        simulate: { garbageCollection: true, namespaceLifecycle: true, workloads: true, resourceQuota: true },
      }
    : {},
);
await env.start();
const started = env.started;
// Written whole and then renamed: a reader polling for the file never sees half of it.
writeFileSync(`${values.kubeconfig}.tmp`, started.kubeconfig, { mode: 0o600 });
renameSync(`${values.kubeconfig}.tmp`, values.kubeconfig);
console.log(`${started.mode} API server ready; kubeconfig at ${values.kubeconfig}`);

// envtest's kube-apiserver and etcd do not hold the event loop open (a test that forgets stop()
// must not hang its runner); without this timer, serving the real binaries would end here.
const keepAlive = setInterval(() => {}, 1 << 30);

let stopping = false;
const shutdown = async () => {
  if (stopping) process.exit(1);
  stopping = true;
  clearInterval(keepAlive);
  await env.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
