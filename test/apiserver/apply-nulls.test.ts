// A null in a server-side apply configuration, as kube-apiserver 1.37 applies it: structured-
// merge-diff keeps it as the applier's value, so a custom resource stores null (and the applier
// owns the field), while a built-in object's decoding gives it Go's meaning ("" in a map of strings).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const group = `applynull${process.pid}.example.com`;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("applynull");
  assert.equal(
    (await api.post(CRDS, customResourceDefinition(group, { plural: "things", kind: "Thing" }))).status,
    201,
  );
  await eventually("the custom resource to be served", async () => (await api.get(things())).status === 200, {
    timeoutMs: 30_000,
  });
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await api.delete(`${CRDS}/things.${group}`);
  await target.close();
});

const things = () => `/apis/${group}/v1/namespaces/${ns}/things`;
const apply = (path: string, body: unknown) =>
  api.call("PATCH", `${path}?fieldManager=m`, JSON.stringify(body), {
    contentType: "application/apply-patch+yaml",
  });

test("a custom resource keeps an applied null, and its applier owns it", async () => {
  const thing = (spec: unknown) => ({
    apiVersion: `${group}/v1`,
    kind: "Thing",
    metadata: { name: "t" },
    spec,
  });
  const created = await apply(`${things()}/t`, thing({ a: 1, d: null, n: { x: null } }));
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.body.spec, { a: 1, d: null, n: { x: null } });
  assert.deepEqual(created.body.metadata.managedFields[0].fieldsV1, {
    "f:spec": { ".": {}, "f:a": {}, "f:d": {}, "f:n": { ".": {}, "f:x": {} } },
  });
  const again = await apply(`${things()}/t`, thing({ a: null }));
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.body.spec, { a: null });
});

test("a ConfigMap's applied null is the empty string Go decodes it to", async () => {
  const r = await apply(`/api/v1/namespaces/${ns}/configmaps/c`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c" },
    data: { a: "1", d: null },
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body.data, { a: "1", d: "" });
});
