// What a write through /status may change besides status: kube's status strategies differ by
// kind. Built-ins take the request's labels, annotations, finalizers and owner references (a
// Deployment keeps its labels, a Pod its owner references); custom resources keep all metadata.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("status");
});
after(() => target.close());

const metadataPatch = {
  metadata: { labels: { added: "by-status" }, annotations: { note: "by-status" } },
  status: {},
};

function deployment(name: string) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: name } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
  };
}

test("a status patch of a Service keeps its label and annotation changes, owned by the status manager", async () => {
  const path = `/api/v1/namespaces/${ns}/services`;
  const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { ports: [{ port: 80 }] } };
  assert.equal((await api.post(path, svc)).status, 201);
  const r = await api.call("PATCH", `${path}/s/status?fieldManager=status-writer`, metadataPatch, {
    contentType: "application/merge-patch+json",
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.metadata.labels, { added: "by-status" });
  assert.deepEqual(r.body.metadata.annotations, { note: "by-status" });
  const entry = r.body.metadata.managedFields.find((m: { manager: string }) => m.manager === "status-writer");
  assert.deepEqual(entry.fieldsV1, {
    "f:metadata": { "f:annotations": { ".": {}, "f:note": {} }, "f:labels": { ".": {}, "f:added": {} } },
  });
  assert.equal(entry.subresource, "status");
});

test("a status patch of a Deployment keeps annotation changes and not label changes", async () => {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  assert.equal((await api.post(path, deployment("d"))).status, 201);
  const r = await api.patch(`${path}/d/status`, metadataPatch);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.metadata.labels, { app: "d" });
  assert.deepEqual(r.body.metadata.annotations, { note: "by-status" });
});

test("a status patch of a custom resource changes no metadata", async () => {
  const group = `status${Date.now().toString(36)}.example.com`;
  const crd = customResourceDefinition(group, { plural: "gadgets", kind: "Gadget" });
  crd.spec.versions[0] = { ...crd.spec.versions[0], subresources: { status: {} } } as never;
  assert.equal((await api.post(CRDS, crd)).status, 201);
  const path = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  const gadget = { apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name: "g" } };
  for (let i = 0; i < 100 && (await api.post(path, gadget)).status !== 201; i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const r = await api.patch(`${path}/g/status`, metadataPatch);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.metadata.labels, undefined);
  assert.equal(r.body.metadata.annotations, undefined);
  await api.delete(`${CRDS}/gadgets.${group}`);
});
