// The embedded API server calls a manager's defaulter and validator, installed by envtest from a
// manifest file: mutations, warnings and denials reach the REST client and kubectl as from a
// real cluster; updates, deletes and dry runs go through the same webhooks.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { webhookManagedBy } from "controller-runtime/builder";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import {
  newRESTClient,
  type RESTClient,
  resourceOf,
  StatusError,
  type Warning,
} from "controller-runtime/rest";
import { type Kubectl, kubectlFor, newNamespace } from "./harness.js";
import { testEnvironment } from "../support/environment.js";

const manifests = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- name: mconfigmap.kb.io
  admissionReviewVersions: [v1]
  clientConfig:
    service: { name: webhook-service, namespace: system, path: /mutate--v1-configmap }
  failurePolicy: Fail
  sideEffects: None
  namespaceSelector: { matchLabels: { webhooks-test: admission } }
  rules:
  - { apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps] }
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- name: vconfigmap.kb.io
  admissionReviewVersions: [v1]
  clientConfig:
    service: { name: webhook-service, namespace: system, path: /validate--v1-configmap }
  failurePolicy: Fail
  sideEffects: None
  namespaceSelector: { matchLabels: { webhooks-test: admission } }
  rules:
  - { apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE, DELETE], resources: [configmaps] }
`;

const configMaps = resourceOf(kinds.ConfigMap);
const dir = mkdtempSync(join(tmpdir(), "webhook-manifests-"));
writeFileSync(join(dir, "manifests.yaml"), manifests);
const env = testEnvironment({ webhookInstallOptions: { paths: [dir] } });
let client: RESTClient;
let kubectl: Kubectl;
const stop = new AbortController();
let running: Promise<void> | undefined;

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
    .for(kinds.ConfigMap)
    .withDefaulter({
      default(cm: ConfigMap) {
        cm.data = { ...cm.data, defaulted: "yes" };
      },
    })
    .withValidator({
      validateCreate(cm: ConfigMap) {
        if (cm.data?.forbidden !== undefined) throw new Error('the key "forbidden" is not allowed');
        return [`configmap ${cm.metadata?.name} looks fine`];
      },
      validateUpdate(_old: ConfigMap, cm: ConfigMap) {
        if (cm.data?.forbidden !== undefined) throw new Error('the key "forbidden" is not allowed');
      },
      validateDelete(cm: ConfigMap) {
        if (cm.metadata?.labels?.protected === "true") throw new Error("this configmap is protected");
      },
    })
    .complete();
  running = mgr.start(stop.signal);
  await mgr.getWebhookServer().listening();
});

after(async () => {
  stop.abort();
  await running;
  await client?.close();
  kubectl?.cleanup();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

function cm(name: string, data: Record<string, string>, labels?: Record<string, string>): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(labels ? { labels } : {}) }, data };
}

test("envtest installs the configurations pointed at the local server with its CA", () => {
  const installed = env.webhookInstallOptions;
  const [mutating] = installed.mutatingWebhooks;
  const clientConfig = mutating?.webhooks?.[0]?.clientConfig;
  assert.equal(clientConfig?.url, `https://127.0.0.1:${installed.localServingPort}/mutate--v1-configmap`);
  assert.equal(clientConfig?.service, undefined);
  assert.equal(Buffer.from(clientConfig?.caBundle ?? "", "base64").toString(), installed.localServingCAData);
});

test("a create through the REST client is defaulted, and the validator's warning arrives", async () => {
  const ns = await newNamespace(client, "adm", { "webhooks-test": "admission" });
  const warnings: Warning[] = [];
  const created = await client.create(configMaps, cm("c1", { a: "1" }), {
    namespace: ns,
    onWarning: (w) => warnings.push(w),
  });
  assert.deepEqual(created.data, { a: "1", defaulted: "yes" });
  assert.deepEqual(
    warnings.map((w) => w.text),
    ["configmap c1 looks fine"],
  );
  const read = await client.get<ConfigMap>(configMaps, "c1", { namespace: ns });
  assert.equal(read.data?.defaulted, "yes");
});

test("namespaces the selectors leave out are not sent to the webhooks", async () => {
  const ns = await newNamespace(client, "plain");
  const created = await client.create(configMaps, cm("c1", { forbidden: "x" }), { namespace: ns });
  assert.deepEqual(created.data, { forbidden: "x" });
});

test("a denial reaches the REST client with the webhook's name, code and reason", async () => {
  const ns = await newNamespace(client, "adm", { "webhooks-test": "admission" });
  const err = await client.create(configMaps, cm("c2", { forbidden: "x" }), { namespace: ns }).then(
    () => assert.fail("the create was admitted"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof StatusError);
  assert.equal(err.statusCode, 403);
  assert.equal(err.reason, "Forbidden");
  assert.equal(
    err.message,
    'admission webhook "vconfigmap.kb.io" denied the request: the key "forbidden" is not allowed',
  );
  await assert.rejects(
    client.get(configMaps, "c2", { namespace: ns }),
    (e: unknown) => (e as StatusError).statusCode === 404,
  );
});

test("kubectl shows the defaulted object and the warning, and kube's words for a denial", async (t) => {
  if (!kubectl.available) return t.skip("kubectl not on PATH");
  const ns = await newNamespace(client, "adm", { "webhooks-test": "admission" });
  const ok = await kubectl.run("-n", ns, "create", "configmap", "k1", "--from-literal=a=1", "-o", "json");
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).data.defaulted, "yes");
  assert.match(ok.stderr, /^Warning: configmap k1 looks fine$/m);
  const denied = await kubectl.run("-n", ns, "create", "configmap", "k2", "--from-literal=forbidden=1");
  assert.notEqual(denied.code, 0);
  assert.match(
    denied.stderr,
    /error: failed to create configmap: admission webhook "vconfigmap.kb.io" denied the request: the key "forbidden" is not allowed/,
  );
});

test("updates, patches and deletes are validated as well", async () => {
  const ns = await newNamespace(client, "adm", { "webhooks-test": "admission" });
  const created = await client.create(configMaps, cm("c3", { a: "1" }, { protected: "true" }), {
    namespace: ns,
  });
  await assert.rejects(
    client.update(configMaps, { ...created, data: { ...created.data, forbidden: "x" } }, { namespace: ns }),
    /admission webhook "vconfigmap.kb.io" denied the request: the key "forbidden" is not allowed/,
  );
  await assert.rejects(
    client.patch(configMaps, "c3", { data: { forbidden: "x" } }, { namespace: ns, patchType: "merge" }),
    /denied the request: the key "forbidden" is not allowed/,
  );
  // The defaulter runs on updates too: a patch that drops the key gets it back.
  const patched = await client.patch<ConfigMap>(
    configMaps,
    "c3",
    [{ op: "remove", path: "/data/defaulted" }],
    {
      namespace: ns,
      patchType: "json",
    },
  );
  assert.equal(patched.data?.defaulted, "yes");
  await assert.rejects(
    client.delete(configMaps, "c3", { namespace: ns }),
    /admission webhook "vconfigmap.kb.io" denied the request: this configmap is protected/,
  );
  await client.patch(
    configMaps,
    "c3",
    { metadata: { labels: { protected: null } } },
    { namespace: ns, patchType: "merge" },
  );
  await client.delete(configMaps, "c3", { namespace: ns });
  await assert.rejects(client.get(configMaps, "c3", { namespace: ns }), /not found/);
});

test("a dry run is admitted by webhooks without side effects and stores nothing", async () => {
  const ns = await newNamespace(client, "adm", { "webhooks-test": "admission" });
  const answered = await client.create(configMaps, cm("dry", { a: "1" }), { namespace: ns, dryRun: true });
  assert.equal(answered.data?.defaulted, "yes");
  await assert.rejects(client.get(configMaps, "dry", { namespace: ns }), /not found/);
  await assert.rejects(
    client.create(configMaps, cm("dry", { forbidden: "1" }), { namespace: ns, dryRun: true }),
    /denied the request/,
  );
});

test("a webhook that may have side effects is refused when written: v1 allows None and NoneOnDryRun", async () => {
  const base = env.webhookInstallOptions.validatingWebhooks[0]?.webhooks?.[0];
  assert.ok(base);
  const configs = resourceOf(kinds.ValidatingWebhookConfiguration);
  for (const sideEffects of ["Some", "Unknown"]) {
    const err: StatusError = await client
      .create(configs, {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "side-effects" },
        webhooks: [{ ...base, name: "side-effects.kb.io", sideEffects }],
      })
      .then(
        () => assert.fail(`sideEffects ${sideEffects} was accepted`),
        (e: unknown) => e as StatusError,
      );
    assert.equal(err.statusCode, 422);
    assert.equal(
      err.message,
      `ValidatingWebhookConfiguration.admissionregistration.k8s.io "side-effects" is invalid: webhooks[0].sideEffects: Unsupported value: "${sideEffects}": supported values: "None", "NoneOnDryRun"`,
    );
  }
});

test("server-side apply passes the webhooks, on create and on update", async () => {
  const ns = await newNamespace(client, "adm", { "webhooks-test": "admission" });
  const apply = (data: Record<string, string>) =>
    client.patch<ConfigMap>(configMaps, "applied", cm("applied", data), {
      namespace: ns,
      patchType: "apply",
      fieldManager: "applier",
    });
  const created = await apply({ a: "1" });
  assert.deepEqual(created.data, { a: "1", defaulted: "yes" });
  await assert.rejects(
    apply({ a: "1", forbidden: "x" }),
    /denied the request: the key "forbidden" is not allowed/,
  );
  const read = await client.get<ConfigMap>(configMaps, "applied", { namespace: ns });
  assert.equal(read.data?.forbidden, undefined);
});
