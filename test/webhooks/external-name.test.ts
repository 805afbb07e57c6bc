// envtest's localServingHostExternalName: the API server reaches the test's webhook server by
// another name than the address it listens on; the URL and the serving certificate carry it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { newAdmissionWebhook, patched } from "controller-runtime/webhook";
import { newNamespace, rule } from "./harness.js";
import { testEnvironment } from "../support/environment.js";

const env = testEnvironment({
  webhookInstallOptions: {
    localServingHostExternalName: "localhost",
    mutatingWebhooks: [
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingWebhookConfiguration",
        metadata: { name: "external-name" },
        webhooks: [
          {
            name: "external.name.example.com",
            admissionReviewVersions: ["v1"],
            clientConfig: { service: { name: "svc", namespace: "system", path: "/mutate" } },
            failurePolicy: "Fail",
            sideEffects: "None",
            namespaceSelector: { matchLabels: { "webhooks-test": "external-name" } },
            rules: [
              rule({
                apiGroups: [""],
                apiVersions: ["v1"],
                operations: ["CREATE"],
                resources: ["configmaps"],
              }),
            ],
          },
        ],
      },
    ],
  },
});
let client: RESTClient;
const stop = new AbortController();
let running: Promise<void> | undefined;

before(async () => {
  const config = await env.start();
  client = newRESTClient(config);
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    webhookServer: env.webhookInstallOptions.server,
  });
  mgr.getWebhookServer().register(
    "/mutate",
    newAdmissionWebhook({
      handle(req) {
        const cm = req.object as ConfigMap;
        return patched(cm, { ...cm, data: { ...cm.data, reached: "by name" } });
      },
    }),
  );
  running = mgr.start(stop.signal);
  await mgr.getWebhookServer().listening();
});
after(async () => {
  stop.abort();
  await running;
  await client?.close();
  await env.stop();
});

test("the webhook's URL names the external host, and the API server reaches it there", async () => {
  const url = env.webhookInstallOptions.mutatingWebhooks[0]?.webhooks?.[0]?.clientConfig.url ?? "";
  assert.match(url, /^https:\/\/localhost:\d+\/mutate$/);
  assert.equal(env.webhookInstallOptions.localServingHost, "127.0.0.1", "it still listens on the address");
  const ns = await newNamespace(client, "external", { "webhooks-test": "external-name" });
  const created = await client.create<ConfigMap>(
    resourceOf(kinds.ConfigMap),
    { metadata: { name: "c" }, data: {} },
    { namespace: ns },
  );
  assert.equal(created.data?.reached, "by name");
});
