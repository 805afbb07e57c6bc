// Admission webhooks made of several handlers (multiMutatingHandler, multiValidatingHandler), with
// a context function and a log constructor, called by the API server: the handlers' patches and
// warnings are joined, the first denial answers, and the context function's values reach them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { nullLogger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import {
  newRESTClient,
  type RESTClient,
  resourceOf,
  StatusError,
  type Warning,
} from "controller-runtime/rest";
import {
  allowed,
  denied,
  multiMutatingHandler,
  multiValidatingHandler,
  newAdmissionWebhook,
  patched,
  withWarnings,
} from "controller-runtime/webhook";
import { newNamespace } from "./harness.js";
import { testEnvironment } from "../support/environment.js";

const manifests = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: multi-mutating
webhooks:
- name: multi.mutating.example.com
  admissionReviewVersions: [v1]
  clientConfig:
    service: { name: webhook-service, namespace: system, path: /mutate-multi }
  failurePolicy: Fail
  sideEffects: None
  namespaceSelector: { matchLabels: { webhooks-test: multi } }
  rules:
  - { apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps] }
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: multi-validating
webhooks:
- name: multi.validating.example.com
  admissionReviewVersions: [v1]
  clientConfig:
    service: { name: webhook-service, namespace: system, path: /validate-multi }
  failurePolicy: Fail
  sideEffects: None
  namespaceSelector: { matchLabels: { webhooks-test: multi } }
  rules:
  - { apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps] }
`;

const configMaps = resourceOf(kinds.ConfigMap);
const dir = mkdtempSync(join(tmpdir(), "webhook-multi-"));
writeFileSync(join(dir, "manifests.yaml"), manifests);
const env = testEnvironment({ webhookInstallOptions: { paths: [dir] } });
let client: RESTClient;
const stop = new AbortController();
let running: Promise<void> | undefined;
const logged: string[] = [];

before(async () => {
  const config = await env.start();
  client = newRESTClient(config);
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    webhookServer: env.webhookInstallOptions.server,
  });
  const server = mgr.getWebhookServer();
  // Each handler sees the object as sent, so each patches a field of its own (as in Go, patches
  // of one field from two handlers would overwrite each other).
  const label = (
    field: "labels" | "annotations",
    key: string,
    value: (cm: ConfigMap, agent: string) => string,
  ) =>
    ({
      handle(req, _signal, ctx) {
        const cm = req.object as ConfigMap;
        const out = {
          ...cm,
          metadata: {
            ...cm.metadata,
            [field]: { ...cm.metadata?.[field], [key]: value(cm, String(ctx?.values.agent)) },
          },
        };
        return withWarnings(patched(cm, out), `${key} set`);
      },
    }) satisfies Parameters<typeof multiMutatingHandler>[0];
  server.register(
    "/mutate-multi",
    newAdmissionWebhook(
      multiMutatingHandler(
        label("labels", "first", () => "1"),
        label("annotations", "caller", (_cm, type) => (type.startsWith("application/json") ? "json" : type)),
      ),
      {
        contextFunc: (httpRequest) => ({ agent: httpRequest.headers["content-type"] ?? "" }),
        logConstructor: (base, req) => {
          logged.push(`${req?.operation} ${req?.name}`);
          return base;
        },
      },
    ),
  );
  server.register(
    "/validate-multi",
    newAdmissionWebhook(
      multiValidatingHandler(
        { handle: () => withWarnings(allowed(), "checked by one") },
        {
          handle: (req) =>
            (req.object as ConfigMap).data?.deny
              ? denied("two says no")
              : withWarnings(allowed(), "checked by two"),
        },
        { handle: () => withWarnings(allowed(), "checked by three") },
      ),
    ),
  );
  running = mgr.start(stop.signal);
  await server.listening();
});

after(async () => {
  stop.abort();
  await running;
  await client?.close();
  await env.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the mutating handlers' patches and warnings are joined; the context function's values reach them", async () => {
  const ns = await newNamespace(client, "multi", { "webhooks-test": "multi" });
  const warnings: Warning[] = [];
  const created = await client.create<ConfigMap>(
    configMaps,
    { metadata: { name: "m1" }, data: { a: "1" } },
    { namespace: ns, onWarning: (w) => warnings.push(w) },
  );
  assert.equal(created.metadata?.labels?.first, "1");
  assert.equal(created.metadata?.annotations?.caller, "json", "a header of the call, through contextFunc");
  assert.deepEqual(
    warnings.map((w) => w.text),
    ["first set", "caller set", "checked by one", "checked by two", "checked by three"],
  );
  assert.ok(logged.includes("CREATE m1"), "the log constructor made the request's logger");
});

test("the first validating handler that denies answers", async () => {
  const ns = await newNamespace(client, "multi", { "webhooks-test": "multi" });
  const err = await client
    .create(configMaps, { metadata: { name: "m2" }, data: { deny: "yes" } }, { namespace: ns })
    .catch((e: unknown) => e);
  assert.ok(err instanceof StatusError);
  assert.equal(
    err.message,
    'admission webhook "multi.validating.example.com" denied the request: two says no',
  );
});
