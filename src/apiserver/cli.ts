// `npm run apiserver -- --port N --kubeconfig PATH`: runs the embedded API server until Ctrl-C.
import { parseArgs } from "node:util";
import { startAPIServer } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    kubeconfig: { type: "string" },
    "garbage-collection": { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(
    "usage: npm run apiserver -- [--port N] [--host ADDR] [--kubeconfig PATH] [--garbage-collection]",
  );
  process.exit(0);
}

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, got ${values.port}`);
  process.exit(2);
}

const server = await startAPIServer({
  port,
  host: values.host,
  kubeconfigPath: values.kubeconfig,
  garbageCollection: values["garbage-collection"],
});
console.log(`embedded API server listening on ${server.url}`);
if (server.kubeconfigPath) console.log(`kubeconfig written to ${server.kubeconfigPath}`);
else console.log("no --kubeconfig given; admin token:", server.adminToken);

let stopping = false;
const shutdown = async () => {
  if (stopping) process.exit(1);
  stopping = true;
  await server.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
