// The apiVersion and kind in a custom resource's body, as kube-apiserver decodes it: an
// unstructured object must name its kind; only the URL's apiVersion is taken (not another version
// of the CRD, served or not); a wrong kind is a 422 on the field. A built-in body may leave both
// out. The embedded server took all of these until a test created objects without a kind.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const group = `typemeta${Date.now().toString(36)}.example.com`;
const path = `/apis/${group}/v1/namespaces/default/widgets`;
const schema = { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } };

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const created = await api.post(CRDS, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
      versions: [
        { name: "v1", served: true, storage: true, schema },
        { name: "v2", served: true, storage: false, schema },
        { name: "v3", served: false, storage: false, schema },
      ],
    },
  });
  assert.equal(created.status, 201);
  await eventually("the CRD served", async () => (await api.get(path)).status === 200, { timeoutMs: 30_000 });
});

after(async () => {
  await api.delete(`${CRDS}/widgets.${group}`);
  await target.close();
});

function message(reply: { body: unknown }): string {
  return (reply.body as { message?: string }).message ?? "";
}

test("a custom resource without a kind is refused with the body quoted, as kube's decoder does", async () => {
  const short = await api.post(path, { metadata: { name: "a" } });
  assert.equal(short.status, 400);
  assert.equal(
    message(short),
    `the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '{"metadata":{"name":"a"}}' ({"metadata":{"name":"a"}})`,
  );
  const body = { apiVersion: `${group}/v1`, metadata: { name: "long-enough-to-summarize" } };
  const long = await api.post(path, body);
  assert.equal(long.status, 400);
  const text = JSON.stringify(body); // the harness sends compact JSON; kube quotes the bytes it got
  assert.equal(
    message(long),
    `the object provided is unrecognized (must be of type Widget): Object 'Kind' is missing in '${text}' (${text.slice(0, 30)} ...)`,
  );
});

test("only the URL's apiVersion is taken: another version of the CRD, none, or another group is a 400", async () => {
  for (const apiVersion of [`${group}/v2`, `${group}/v3`, "other.example.com/v1", undefined]) {
    const reply = await api.post(path, { apiVersion, kind: "Widget", metadata: { name: "b" } });
    assert.equal(reply.status, 400, String(apiVersion));
    assert.equal(
      message(reply),
      `the API version in the data (${apiVersion ?? ""}) does not match the expected API version (${group}/v1)`,
    );
  }
});

test("a wrong kind is a 422 on the field, named by the kind given; on create and update", async () => {
  const create = await api.post(path, { apiVersion: `${group}/v1`, kind: "Gadget", metadata: { name: "c" } });
  assert.equal(create.status, 422);
  assert.equal(
    message(create),
    `Gadget.${group} "c" is invalid: kind: Invalid value: "Gadget": must be Widget`,
  );
  assert.deepEqual((create.body as { details?: unknown }).details, {
    name: "c",
    group,
    kind: "Gadget",
    causes: [
      { reason: "FieldValueInvalid", message: 'Invalid value: "Gadget": must be Widget', field: "kind" },
    ],
  });
  const made = await api.post(path, { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "d" } });
  assert.equal(made.status, 201);
  const rv = (made.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  const update = await api.put(`${path}/d`, { metadata: { name: "d", resourceVersion: rv } });
  assert.equal(update.status, 400);
  assert.match(
    message(update),
    /^the object provided is unrecognized \(must be of type Widget\): Object 'Kind' is missing/,
  );
  const wrong = await api.put(`${path}/d`, {
    apiVersion: `${group}/v1`,
    kind: "Gadget",
    metadata: { name: "d", resourceVersion: rv },
  });
  assert.equal(wrong.status, 422);
});

test("a built-in body may leave apiVersion and kind out", async () => {
  const name = `typemeta-${Date.now().toString(36)}`;
  const reply = await api.post("/api/v1/namespaces/default/configmaps", { metadata: { name } });
  assert.equal(reply.status, 201);
  assert.equal((reply.body as { kind?: string }).kind, "ConfigMap");
  await api.delete(`/api/v1/namespaces/default/configmaps/${name}`);
});
