// The fuzzed servers, in a process of their own so that a crash is seen as the process ending:
// the embedded API server (with canary objects and a custom resource), and a Manager's webhook,
// metrics and health probe servers. Reports its addresses, then its memory and the errors its
// servers reported as bugs, whenever the fuzzer asks (over IPC).
import { startAPIServer } from "controller-runtime-apiserver";
import { ping } from "controller-runtime/healthz";
import { kinds } from "controller-runtime";
import { newLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { newWebhookServer, withDefaulter, withValidator } from "controller-runtime/webhook";
import { newConversionWebhook } from "controller-runtime/webhook";
import { makeCertDir } from "../support/webhook-server.js";
import { CANARY_NAMESPACE, FUZZ_GROUP } from "./generators.js";
import { BLOBS } from "./invariants.js";

const errors: string[] = [];
const onError = (e: unknown) => errors.push((e as Error)?.stack ?? String(e));

const server = await startAPIServer({ storageQuotaBytes: 64 * 1024 * 1024, onError });
const config = server.restConfig();
const auth = { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" };

async function create(path: string, body: unknown): Promise<void> {
  const { Agent } = await import("undici");
  const agent = new Agent({ connect: { ca: server.caPem } });
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify(body),
    dispatcher: agent,
  } as unknown as RequestInit);
  if (res.status !== 201) throw new Error(`creating ${path}: ${res.status} ${await res.text()}`);
  await agent.close();
}

await create("/api/v1/namespaces", {
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: CANARY_NAMESPACE },
});
await create("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "fuzz" } });
await create(`/api/v1/namespaces/${CANARY_NAMESPACE}/configmaps`, {
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "canary", labels: { app: "canary" } },
  data: { k: "v", unicode: "grüße 🌍" },
});
await create(`/api/v1/namespaces/${CANARY_NAMESPACE}/secrets`, {
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "canary" },
  stringData: { password: "hunter2" },
});
await create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${FUZZ_GROUP}` },
  spec: {
    group: FUZZ_GROUP,
    names: { plural: "widgets", kind: "Widget" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas" },
        },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: { s: { type: "string", pattern: "^(a+)+$" }, replicas: { type: "integer" } },
              },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
});

// A custom resource that keeps whatever it is given: deep bodies are stored, served and watched.
await create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${BLOBS}.${FUZZ_GROUP}` },
  spec: {
    group: FUZZ_GROUP,
    names: { plural: BLOBS, kind: "Blob" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
});

const certs = await makeCertDir();
const mgr = await Manager.create(config, {
  metrics: { bindAddress: "127.0.0.1:0" },
  healthProbeBindAddress: "127.0.0.1:0",
  webhookServer: newWebhookServer({ host: "127.0.0.1", port: 0, certDir: certs.dir }),
  logger: newLogger({ level: "error" }),
});
// The manager runs the webhook server once it is asked for, as controller-runtime's.
const webhookServer = mgr.getWebhookServer();
mgr.addHealthzCheck("ping", ping);
mgr.addReadyzCheck("ping", ping);
webhookServer.register(
  "/validate-configmap",
  withValidator(kinds.ConfigMap, { validateCreate() {}, validateUpdate() {} }),
);
webhookServer.register(
  "/mutate-configmap",
  withDefaulter(kinds.ConfigMap, {
    default(obj) {
      obj.metadata ??= {};
      obj.metadata.labels = { ...obj.metadata.labels, defaulted: "true" };
    },
  }),
);
webhookServer.register("/convert", newConversionWebhook());
const stopping = new AbortController();
const started = mgr.start(stopping.signal);
started.catch((e) => {
  onError(e);
});
const webhookAddr = await webhookServer.listening();
const until = Date.now() + 10_000;
while ((!mgr.getMetricsServer().address() || !mgr.getHealthProbeServer().address()) && Date.now() < until) {
  await new Promise((r) => setTimeout(r, 20));
}
const url = (a: { address: string; port: number } | undefined) => `http://127.0.0.1:${a?.port}`;

process.send?.({
  type: "ready",
  api: { url: server.url, token: server.adminToken, ca: server.caPem },
  webhook: { url: `https://127.0.0.1:${webhookAddr.port}`, ca: certs.ca.certPem },
  metrics: url(mgr.getMetricsServer().address()),
  health: url(mgr.getHealthProbeServer().address()),
});

process.on("message", (m: { type: string }) => {
  if (m.type === "status") {
    const mem = process.memoryUsage();
    process.send?.({ type: "status", heapUsed: mem.heapUsed, rss: mem.rss, errors: errors.splice(0) });
  } else if (m.type === "stop") {
    stopping.abort();
    void Promise.allSettled([started, server.stop(), certs.cleanup()]).then(() => process.exit(0));
  }
});
