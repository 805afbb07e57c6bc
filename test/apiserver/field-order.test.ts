// The order of fields in what the server answers, as kube-apiserver writes it: custom resources
// are unstructured JSON (Go maps), so every key at every depth comes sorted, metadata's too;
// built-ins keep their struct order, with their maps (labels, annotations, data) sorted.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, customResourceDefinition, startTarget, type Target } from "./harness.js";

const group = `order-${randomUUID().slice(0, 8)}.example.com`;
let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("order");
  const crd = customResourceDefinition(group, { plural: "gadgets", kind: "Gadget" });
  assert.equal((await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status, 201);
  await eventually(
    "the CRD is served",
    async () => (await api.get(`/apis/${group}/v1/namespaces/${ns}/gadgets`)).status === 200,
    { timeoutMs: 20_000 },
  );
});
after(async () => {
  await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

/** The keys of every object in `text`, in the order they were written. */
function keyOrders(text: string): string[][] {
  const orders: string[][] = [];
  JSON.parse(text, function (this: unknown, _key, value) {
    if (value && typeof value === "object" && !Array.isArray(value)) orders.push(Object.keys(value));
    return value;
  });
  return orders;
}

const sorted = (keys: string[]) => [...keys].sort();

test("a custom resource comes back with every key sorted, on create, patch, get and list", async () => {
  const path = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  const created = await api.post(path, {
    spec: { zeta: 1, alpha: { yankee: 2, bravo: [{ z: 1, a: 2 }] } },
    metadata: { name: "g", labels: { z: "1", a: "2" }, annotations: { y: "1", b: "2" } },
    kind: "Gadget",
    apiVersion: `${group}/v1`,
  });
  assert.equal(created.status, 201, created.text);
  const patched = await api.patch(`${path}/g`, { spec: { middle: { z: 1, a: 2 } } });
  assert.equal(patched.status, 200, patched.text);
  for (const reply of [created, patched, await api.get(`${path}/g`), await api.get(path)]) {
    for (const keys of keyOrders(reply.text)) assert.deepEqual(keys, sorted(keys), reply.text);
  }
});

test("a built-in keeps kind, apiVersion, metadata first, and sorts its labels and data", async () => {
  const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
    data: { z: "1", a: "2" },
    metadata: { labels: { z: "1", a: "2" }, name: "c" },
    apiVersion: "v1",
    kind: "ConfigMap",
  });
  assert.equal(r.status, 201);
  assert.deepEqual(Object.keys(r.body), ["kind", "apiVersion", "metadata", "data"]);
  assert.deepEqual(Object.keys(r.body.metadata).slice(0, 2), ["name", "namespace"]);
  assert.deepEqual(Object.keys(r.body.metadata.labels), ["a", "z"]);
  assert.deepEqual(Object.keys(r.body.data), ["a", "z"]);
});
