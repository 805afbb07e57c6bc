// A CRD served in two versions with a conversion webhook on a manager (hub v1, spoke v2):
// objects written through either version are read, listed, watched, updated and patched through
// both. Conversion failures and the Equivalent match policy of admission webhooks too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CustomResourceDefinition, JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import { defineKind, kinds, type KubeObject } from "controller-runtime/api";
import { webhookManagedBy } from "controller-runtime/builder";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import { newRESTClient, type RESTClient, resourceOf, StatusError } from "controller-runtime/rest";
import {
  answer,
  type Kubectl,
  kubectlFor,
  newNamespace,
  type RawWebhook,
  rule,
  startRawWebhook,
  untilWebhookCalled,
} from "./harness.js";
import { needs, testEnvironment, versionDifference } from "../support/environment.js";
import { eventually } from "controller-runtime/envtest";

interface WidgetV1 extends KubeObject {
  spec: { size: string };
}
interface WidgetV2 extends KubeObject {
  spec: { length: { value: number; unit: string } };
}
const V1 = defineKind<WidgetV1>({ group: "conv.example.com", version: "v1", kind: "Widget" });
const V2 = defineKind<WidgetV2>({ group: "conv.example.com", version: "v2", kind: "Widget" });
const v1 = resourceOf(V1);
const v2 = resourceOf(V2);

function crd(
  name: string,
  plural: string,
  kind: string,
  strategy: "Webhook" | "None",
): CustomResourceDefinition {
  const schema = (spec: Record<string, JSONSchemaProps>) => ({
    openAPIV3Schema: { type: "object", properties: { spec: { type: "object", properties: spec } } },
  });
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${name}` },
    spec: {
      group: name,
      scope: "Namespaced",
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [
        { name: "v1", served: true, storage: true, schema: schema({ size: { type: "string" } }) },
        {
          name: "v2",
          served: true,
          storage: false,
          schema: schema({
            length: { type: "object", properties: { value: { type: "integer" }, unit: { type: "string" } } },
          }),
        },
      ],
      conversion:
        strategy === "Webhook"
          ? {
              strategy: "Webhook",
              webhook: {
                conversionReviewVersions: ["v1"],
                clientConfig: { service: { name: "webhook-service", namespace: "system", path: "/convert" } },
              },
            }
          : { strategy: "None" },
    },
  };
}

const env = testEnvironment({
  crds: [
    crd("conv.example.com", "widgets", "Widget", "Webhook"),
    crd("raw.example.com", "gadgets", "Gadget", "Webhook"),
  ],
  webhookInstallOptions: {},
});
let client: RESTClient;
let kubectl: Kubectl;
let raw: RawWebhook;
const stop = new AbortController();
let running: Promise<void> | undefined;
const conversions: string[] = [];

// The failing-conversion test below is checked on the embedded server only (see there). The rest
// runs in every mode: the manager's shutdown used to hang against kube-apiserver 1.37, which
// keeps a connection to the webhook server open without a request (webhook/server.ts closes
// such connections at shutdown, as Go's server does).
const onEmbedded = needs("embedded-behaviour");

before(async () => {
  const config = await env.start();
  client = newRESTClient(config);
  kubectl = await kubectlFor(env.started.kubeconfigPath);
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    webhookServer: env.webhookInstallOptions.server,
  });
  webhookManagedBy(mgr)
    .for(V1)
    .withConverter<WidgetV1>({
      hub: "v1",
      spokes: {
        v2: {
          toHub(obj) {
            const w = obj as WidgetV2;
            conversions.push(`v2->v1 ${w.metadata?.name}`);
            const { spec, ...rest } = w;
            return {
              ...rest,
              apiVersion: V1.apiVersion,
              spec: { size: `${spec.length.value}${spec.length.unit}` },
            };
          },
          fromHub(hub) {
            conversions.push(`v1->v2 ${hub.metadata?.name}`);
            const m = /^(\d+)(\w*)$/.exec(hub.spec.size) ?? ["", "0", ""];
            const { spec: _spec, ...rest } = hub;
            return {
              ...rest,
              apiVersion: V2.apiVersion,
              spec: { length: { value: Number(m[1]), unit: m[2] } },
            };
          },
        },
      },
    })
    .complete();
  running = mgr.start(stop.signal);
  await mgr.getWebhookServer().listening();
  raw = await startRawWebhook(() => ({ body: "garbage" }));
});

after(async () => {
  stop.abort();
  try {
    await running;
  } finally {
    await raw?.close();
    await client?.close();
    kubectl?.cleanup();
    await env.stop();
  }
});

function widgetV1(name: string, size: string): WidgetV1 {
  return { apiVersion: V1.apiVersion, kind: "Widget", metadata: { name }, spec: { size } };
}

test("envtest points the CRD's conversion webhook at the local server", () => {
  const installed = env.started.crds.find((c) => c.spec.group === "conv.example.com");
  const cfg = installed?.spec.conversion?.webhook?.clientConfig;
  assert.equal(cfg?.url, `https://127.0.0.1:${env.webhookInstallOptions.localServingPort}/convert`);
  assert.equal(
    Buffer.from(cfg?.caBundle ?? "", "base64").toString(),
    env.webhookInstallOptions.localServingCAData,
  );
});

test("written through v1, read and listed through v2", async () => {
  const ns = await newNamespace(client, "conv");
  await client.create(v1, widgetV1("a", "3cm"), { namespace: ns });
  await client.create(v1, widgetV1("b", "5mm"), { namespace: ns });
  const a = await client.get<WidgetV2>(v2, "a", { namespace: ns });
  assert.equal(a.apiVersion, "conv.example.com/v2");
  assert.deepEqual(a.spec, { length: { value: 3, unit: "cm" } });
  const list = await client.list<WidgetV2>(v2, { namespace: ns });
  assert.deepEqual(
    list.items.map((w) => [w.apiVersion, w.metadata?.name, w.spec.length]),
    [
      ["conv.example.com/v2", "a", { value: 3, unit: "cm" }],
      ["conv.example.com/v2", "b", { value: 5, unit: "mm" }],
    ],
  );
  // Reading through the version an object was written in calls no webhook.
  const before = conversions.length;
  assert.deepEqual((await client.get<WidgetV1>(v1, "a", { namespace: ns })).spec, { size: "3cm" });
  assert.equal(conversions.length, before);
});

test("written through v2, updated through v2 and patched through v1", async () => {
  const ns = await newNamespace(client, "conv");
  const created = await client.create<WidgetV2>(
    v2,
    {
      apiVersion: V2.apiVersion,
      kind: "Widget",
      metadata: { name: "c" },
      spec: { length: { value: 7, unit: "in" } },
    },
    { namespace: ns },
  );
  assert.deepEqual(created.spec, { length: { value: 7, unit: "in" } });
  assert.deepEqual((await client.get<WidgetV1>(v1, "c", { namespace: ns })).spec, { size: "7in" });
  const patched = await client.patch<WidgetV1>(
    v1,
    "c",
    { spec: { size: "8in" } },
    { namespace: ns, patchType: "merge" },
  );
  assert.deepEqual(patched.spec, { size: "8in" });
  const asV2 = await client.get<WidgetV2>(v2, "c", { namespace: ns });
  assert.deepEqual(asV2.spec, { length: { value: 8, unit: "in" } });
  const updated = await client.update<WidgetV2>(
    v2,
    { ...asV2, spec: { length: { value: 9, unit: "in" } } },
    { namespace: ns },
  );
  assert.equal(updated.apiVersion, "conv.example.com/v2");
  assert.deepEqual((await client.get<WidgetV1>(v1, "c", { namespace: ns })).spec, { size: "9in" });
});

test("a watch through v2 receives objects written through v1, converted and in order", async () => {
  const ns = await newNamespace(client, "conv");
  const stream = await client.watch<WidgetV2>(v2, { namespace: ns });
  try {
    await client.create(v1, widgetV1("w1", "1cm"), { namespace: ns });
    await client.create(v1, widgetV1("w2", "2cm"), { namespace: ns });
    await client.patch(v1, "w1", { spec: { size: "10cm" } }, { namespace: ns, patchType: "merge" });
    const seen: string[] = [];
    for await (const ev of stream) {
      if (ev.type === "ERROR") assert.fail(JSON.stringify(ev.object));
      const w = ev.object as WidgetV2;
      seen.push(`${ev.type} ${w.apiVersion} ${w.metadata?.name} ${w.spec.length.value}`);
      if (seen.length === 3) break;
    }
    assert.deepEqual(seen, [
      "ADDED conv.example.com/v2 w1 1",
      "ADDED conv.example.com/v2 w2 2",
      "MODIFIED conv.example.com/v2 w1 10",
    ]);
  } finally {
    await stream.return?.();
  }
});

test("kubectl reads through either version", async (t) => {
  if (!kubectl.available) return t.skip("kubectl not on PATH");
  const ns = await newNamespace(client, "conv");
  await client.create(v1, widgetV1("k", "4cm"), { namespace: ns });
  const out = await kubectl.run("-n", ns, "get", "widgets.v2.conv.example.com", "k", "-o", "json");
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(JSON.parse(out.stdout).spec, { length: { value: 4, unit: "cm" } });
});

// Against kube-apiserver 1.37 a conversion that fails keeps its watch cache re-listing: the webhook
// is called continuously (39 calls where the test made 4 requests), and those calls hold the
// webhook server's connections past the manager's graceful shutdown. Checked on the embedded
// server only until the embedded server's storage models the watch cache's retries.
test(
  "a failing conversion webhook fails the read with kube's message; a list converts item by item",
  onEmbedded,
  async () => {
    const gadgets = { group: "raw.example.com", version: "v1", resource: "gadgets", namespaced: true };
    const ns = await newNamespace(client, "conv");
    await client.create(
      gadgets,
      { apiVersion: "raw.example.com/v1", kind: "Gadget", metadata: { name: "g" }, spec: { size: "1" } },
      { namespace: ns },
    );
    const crds = resourceOf(kinds.CustomResourceDefinition);
    const current = await client.get<CustomResourceDefinition>(crds, "gadgets.raw.example.com");
    current.spec.conversion = {
      strategy: "Webhook",
      webhook: {
        conversionReviewVersions: ["v1"],
        clientConfig: { url: `${raw.url}/convert`, caBundle: raw.caBundle },
      },
    };
    await client.update(crds, current);
    // kube-apiserver swaps a CRD's conversion when its handler catches up with the update.
    const err = await eventually(
      "the new conversion webhook to be called",
      () =>
        client.get({ ...gadgets, version: "v2" }, "g", { namespace: ns }).then(
          () => assert.fail("converted"),
          (e: unknown) =>
            e instanceof StatusError && e.message.includes("json parse error") ? e : undefined,
        ),
      { timeoutMs: 30_000 },
    );
    assert.equal(err.statusCode, 500);
    if (versionDifference("kube <1.37 (1.26 checked): the converter's bare error, a 500 without reason")) {
      // kube 1.37 converts while decoding from etcd: the object is corrupt, an internal error.
      assert.equal(err.reason, "InternalError");
      assert.match(
        err.message,
        new RegExp(
          `^Internal error occurred: StorageError: corrupt object, Code: 7, Key: /raw\\.example\\.com/gadgets/${ns}/g, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=\\d+: conversion webhook for raw.example.com/v1, Kind=Gadget failed: couldn't get version/kind; json parse error`,
        ),
      );
    } else {
      // Not an apierror in kube: the generic Status, reason Unknown (omitted), the bare message.
      assert.equal(err.reason, "");
      assert.match(
        err.message,
        /^conversion webhook for raw.example.com\/v1, Kind=Gadget failed: couldn't get version\/kind; json parse error/,
      );
    }
    // The version the object was written in needs no conversion.
    await client.get(gadgets, "g", { namespace: ns });
    await client.create(
      gadgets,
      { apiVersion: "raw.example.com/v1", kind: "Gadget", metadata: { name: "h" } },
      { namespace: ns },
    );
    const before = raw.calls.length;
    await assert.rejects(
      client.list({ ...gadgets, version: "v2" }, { namespace: ns }),
      /conversion webhook for/,
    );
    // kube's storage decodes each item into the request's version on its own: one review per
    // object, and the first failure fails the list.
    assert.equal(raw.calls.length, before + 1);
    const request = raw.calls[before]?.review.request;
    assert.equal(request.desiredAPIVersion, "raw.example.com/v2");
    assert.deepEqual(
      request.objects.map((o: KubeObject) => o.metadata?.name),
      ["g"],
    );
    assert.equal(raw.calls[before]?.path, "/convert?timeout=30s");
  },
);

test("matchPolicy Equivalent: a webhook for v1 sees a v2 request converted to v1", async () => {
  const ns = await newNamespace(client, "conv");
  const seen = await startRawWebhook((review) => answer(review, { allowed: true }));
  const configs = resourceOf(kinds.ValidatingWebhookConfiguration);
  const hook = (name: string, matchPolicy: string, more: object = {}) => ({
    name,
    matchPolicy,
    ...more,
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    clientConfig: { url: `${seen.url}/${name}`, caBundle: seen.caBundle },
    rules: [
      rule({
        apiGroups: ["conv.example.com"],
        apiVersions: ["v1"],
        operations: ["CREATE"],
        resources: ["widgets"],
      }),
    ],
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
  });
  await client.create(configs, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "equivalent" },
    webhooks: [
      hook("equivalent.example.com", "Equivalent"),
      hook("exact.example.com", "Exact"),
      // Its match condition reads v1's field: it holds only on the object converted to v1.
      hook("conditioned.example.com", "Equivalent", {
        matchConditions: [{ name: "v1-shape", expression: "has(object.spec.size)" }],
      }),
    ],
  });
  const widget = (name: string, dryRun: boolean) =>
    client.create<WidgetV2>(
      v2,
      {
        apiVersion: V2.apiVersion,
        kind: "Widget",
        metadata: { name },
        spec: { length: { value: 2, unit: "m" } },
      },
      { namespace: ns, dryRun },
    );
  try {
    // kube-apiserver takes up a new configuration a moment after it is written.
    await untilWebhookCalled(seen, () => widget("probe", true));
    await widget("e", false);
  } finally {
    await client.delete(configs, "equivalent");
    await seen.close();
  }
  const calls = seen.calls.filter((c) => c.review.request?.name === "e");
  assert.deepEqual(calls.map((c) => c.path.split("?")[0]).sort(), [
    "/conditioned.example.com",
    "/equivalent.example.com",
  ]);
  const request = calls.find((c) => c.path.startsWith("/equivalent"))?.review.request;
  assert.deepEqual(request.kind, { group: "conv.example.com", version: "v1", kind: "Widget" });
  assert.deepEqual(request.requestKind, { group: "conv.example.com", version: "v2", kind: "Widget" });
  assert.equal(request.object.apiVersion, "conv.example.com/v1");
  assert.deepEqual(request.object.spec, { size: "2m" });
});
