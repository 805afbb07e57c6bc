// The admission webhook's options over real HTTPS: recoverPanic off lets a throw reach the server,
// the builder's context function and log constructor reach the defaulter and validator, and a
// converter's bug is counted in controller_runtime_conversion_webhook_panics_total.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { defineKind, kinds, type KubeObject } from "../../api/index.js";
import { post, type RunningServer, startServer } from "../../../../../test/support/webhook-server.js";
import { webhookFor } from "../builder.js";
import { newConversionWebhook } from "../conversion/index.js";
import { allowed } from "./response.js";
import type { AdmissionReview } from "./types.js";
import { newAdmissionWebhook } from "./webhook.js";

interface Gadget extends KubeObject {
  spec?: { size?: number };
}
const v1 = defineKind<Gadget>({ group: "toys.example.com", version: "v1", kind: "Gadget" });

let run: RunningServer;
const seen: string[] = [];
before(async () => {
  run = await startServer((server) => {
    server.register(
      "/unrecovered",
      newAdmissionWebhook(
        {
          handle: () => {
            throw new TypeError("bug");
          },
        },
        { recoverPanic: false },
      ),
    );
    server.register(
      "/recovered",
      newAdmissionWebhook({ handle: () => ((undefined as unknown as { x: 1 }).x ? allowed() : allowed()) }),
    );
    webhookFor(server, kinds.ConfigMap)
      .withContextFunc((req) => ({ type: req.headers["content-type"] }))
      .withLogConstructor((base, req) => {
        seen.push(`logger for ${req?.operation}`);
        return base;
      })
      .withDefaulter({
        default(cm: ConfigMap, _req, _signal, ctx) {
          cm.data = { ...cm.data, type: String(ctx?.values.type) };
        },
      })
      .withValidator({
        validateCreate(_cm, _req, _signal, ctx) {
          seen.push(`validated with ${ctx?.values.type}`);
        },
      })
      .complete();
    const conversion = newConversionWebhook();
    conversion.registerConversion(v1, {
      hub: "v1",
      spokes: {
        v2: {
          toHub: (o) => o,
          fromHub: (o) =>
            (o as unknown as { spec: { missing: { x: number } } }).spec.missing.x as unknown as KubeObject,
        },
      },
    });
    server.register("/convert", conversion);
  });
});
after(() => run.stop());

const review = (operation: "CREATE", object: KubeObject): AdmissionReview => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "u1",
    kind: { group: "", version: "v1", kind: "ConfigMap" },
    resource: { group: "", version: "v1", resource: "configmaps" },
    name: object.metadata?.name,
    namespace: "ns",
    operation,
    userInfo: { username: "alice" },
    object,
  },
});

const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ns" } };

test("with recoverPanic off a throw reaches the server: a plain 500, not a review", async () => {
  const res = await post(run, "/unrecovered", review("CREATE", cm));
  assert.equal(res.status, 500);
  const recovered = await post(run, "/recovered", review("CREATE", cm));
  assert.equal(recovered.status, 200);
  assert.equal(recovered.json<AdmissionReview>().response?.status?.code, 500);
  assert.match(recovered.json<AdmissionReview>().response?.status?.message ?? "", /\[recovered\]/);
});

test("the builder's context function and log constructor reach the defaulter and the validator", async () => {
  const mutated = await post(run, "/mutate--v1-configmap", review("CREATE", cm));
  const patch = JSON.parse(
    Buffer.from(mutated.json<AdmissionReview>().response?.patch ?? "", "base64").toString(),
  );
  assert.deepEqual(patch, [{ op: "add", path: "/data", value: { type: "application/json" } }]);
  const validated = await post(run, "/validate--v1-configmap", review("CREATE", cm));
  assert.equal(validated.json<AdmissionReview>().response?.allowed, true);
  assert.deepEqual(seen, ["logger for CREATE", "logger for CREATE", "validated with application/json"]);
});

test("a converter's bug is counted in controller_runtime_conversion_webhook_panics_total", async () => {
  const before = await run.registry.metrics();
  assert.match(before, /controller_runtime_conversion_webhook_panics_total 0/);
  const res = await post(run, "/convert", {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: {
      uid: "c1",
      desiredAPIVersion: "toys.example.com/v2",
      objects: [{ apiVersion: "toys.example.com/v1", kind: "Gadget", metadata: { name: "g" }, spec: {} }],
    },
  });
  assert.equal(res.json<{ response: { result: { status: string } } }>().response.result.status, "Failure");
  assert.match(await run.registry.metrics(), /controller_runtime_conversion_webhook_panics_total 1/);
});
