// A manager serves its webhooks from the Webhooks group, on replicas that do not lead too.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { Agent, request } from "undici";
import { kinds } from "../api/index.js";
import { newCertificateAuthority } from "../certs/index.js";
import { nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import type { RESTConfig } from "../rest/config.js";
import { webhookManagedBy } from "./index.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

test("webhookManagedBy serves a defaulter and a validator on the default paths, leader or not", async () => {
  const ca = await newCertificateAuthority();
  const serving = await ca.issueServing();
  const certDir = mkdtempSync(join(tmpdir(), "webhook-builder-"));
  writeFileSync(join(certDir, "tls.crt"), serving.certPem);
  writeFileSync(join(certDir, "tls.key"), serving.keyPem);
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionID: "webhook-builder-test",
    // A lease held by someone else: this replica never leads, yet must serve webhooks.
    leaseDurationMs: 60_000,
    renewDeadlineMs: 40_000,
    retryPeriodMs: 5_000,
    webhookServer: { host: "127.0.0.1", port: 0, certDir },
  });
  webhookManagedBy(mgr)
    .for(kinds.ConfigMap)
    .withDefaulter({
      default(cm: ConfigMap) {
        cm.data = { ...cm.data, defaulted: "yes" };
      },
    })
    .withValidator({
      validateCreate(cm: ConfigMap) {
        if (cm.data?.forbidden) throw new Error("forbidden key");
        return ["a warning"];
      },
    })
    .complete();
  const blocker = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionID: "webhook-builder-test",
    leaseDurationMs: 60_000,
    renewDeadlineMs: 40_000,
    retryPeriodMs: 5_000,
  });
  const stopBlocker = new AbortController();
  const blockerDone = blocker.start(stopBlocker.signal);
  await blocker.elected();
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const address = await mgr.getWebhookServer().listening();
  const agent = new Agent({ connect: { ca: ca.certPem } });
  const review = (path: string, object: ConfigMap) =>
    request(`https://127.0.0.1:${address.port}${path}`, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        apiVersion: "admission.k8s.io/v1",
        kind: "AdmissionReview",
        request: {
          uid: "u1",
          operation: "CREATE",
          kind: { group: "", version: "v1", kind: "ConfigMap" },
          object,
        },
      }),
    }).then((r) => r.body.json() as Promise<{ response: Record<string, unknown> }>);
  try {
    const mutated = await review("/mutate--v1-configmap", { apiVersion: "v1", kind: "ConfigMap", data: {} });
    assert.equal(mutated.response.allowed, true);
    const patch = JSON.parse(Buffer.from(String(mutated.response.patch), "base64").toString());
    assert.deepEqual(patch, [{ op: "add", path: "/data/defaulted", value: "yes" }]);
    const denied = await review("/validate--v1-configmap", {
      apiVersion: "v1",
      kind: "ConfigMap",
      data: { forbidden: "x" },
    });
    assert.equal(denied.response.allowed, false);
    const ok = await review("/validate--v1-configmap", { apiVersion: "v1", kind: "ConfigMap", data: {} });
    assert.deepEqual(ok.response.warnings, ["a warning"]);
  } finally {
    await agent.close();
    stop.abort();
    await running;
    stopBlocker.abort();
    await blockerDone;
    rmSync(certDir, { recursive: true, force: true });
  }
});
