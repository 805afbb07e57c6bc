// `npm start`: the main job. Starts the embedded Kubernetes API server on loopback, writes a
// kubeconfig for kubectl, and runs until Ctrl-C. The example operators join it as they land.
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { startApiServer } from "../src/apiserver/index.js";

const args = process.argv.slice(2);
const portFlag = args.find((a) => a.startsWith("--port="));
const port = portFlag ? Number(portFlag.slice("--port=".length)) : 0;
const dir = resolve(".tmp");
mkdirSync(dir, { recursive: true });
const kubeconfigPath = resolve(dir, "kubeconfig");

const server = await startApiServer({ port, kubeconfigPath });
process.stdout.write(
  [
    `Embedded Kubernetes API server at ${server.url}`,
    `  kubeconfig: ${kubeconfigPath}`,
    `  try:        KUBECONFIG=${kubeconfigPath} kubectl get namespaces`,
    "Press Ctrl-C to stop.",
    "",
  ].join("\n"),
);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) process.exit(1); // a second signal: exit at once
  stopping = true;
  process.stdout.write(`\n${signal}: stopping\n`);
  await server.stop();
  process.exit(0);
};
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
