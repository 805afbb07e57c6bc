// A webhook on a server of one's own (standaloneWebhook), and the converter registry a Manager
// hands out (getConverterRegistry), which is the webhook server's /convert.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { Registry } from "prom-client";
import { request } from "undici";
import { defineKind, type KubeObject } from "../api/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { allowed, denied, newAdmissionWebhook } from "./admission/index.js";
import { isConversionWebhook } from "./conversion/index.js";
import { convertPath } from "./paths.js";
import { standaloneWebhook } from "./standalone.js";

test("a standalone webhook answers on any HTTP server and records the webhook metrics", async () => {
  const registry = new Registry();
  const hook = standaloneWebhook(
    newAdmissionWebhook({ handle: (req) => (req.name === "bad" ? denied("no") : allowed()) }),
    { path: "/validate", registry },
  );
  const server = createServer((req, res) => void hook(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const review = (name: string) => ({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      request: { uid: name, name, operation: "CREATE", userInfo: {}, kind: {}, resource: {} },
    });
    const ask = async (name: string) => {
      const res = await request(`http://127.0.0.1:${port}/anything`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(review(name)),
      });
      return ((await res.body.json()) as { response: { allowed: boolean; uid: string } }).response;
    };
    assert.deepEqual([(await ask("good")).allowed, (await ask("bad")).allowed], [true, false]);
    assert.match(
      await registry.metrics(),
      /controller_runtime_webhook_requests_total\{webhook="\/validate",code="200"\} 2/,
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test("getConverterRegistry registers on the webhook server's /convert", async () => {
  const mgr = await Manager.create(
    { host: "https://127.0.0.1:1", tls: {}, auth: {} },
    { logger: nullLogger(), metrics: { bindAddress: "0" }, webhookServer: { port: 0 } },
  );
  const Gizmo = defineKind<KubeObject>({ group: "toys.example.com", version: "v1", kind: "Gizmo" });
  const registry = mgr.getConverterRegistry();
  assert.equal(registry.isConvertible(Gizmo), false);
  registry.registerConversion(Gizmo, { hub: "v1", spokes: { v2: { toHub: (o) => o, fromHub: (o) => o } } });
  assert.equal(registry.isConvertible(Gizmo), true);
  const hook = mgr.getWebhookServer().registered(convertPath);
  assert.ok(hook && isConversionWebhook(hook) && hook.isConvertible(Gizmo));
});
