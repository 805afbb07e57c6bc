// ConfigMaps and Secrets marked `immutable: true`: kube's ValidateConfigMapUpdate and
// ValidateSecretUpdate refuse any change of their data (kubelets stop watching them), and
// `immutable` cannot be turned off again; metadata stays writable and the object deletable.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("immut");
});
after(() => target.close());

const IMMUTABLE = "Forbidden: field is immutable when `immutable` is set";

function refused(r: Reply, kind: string, name: string, fields: string[]): void {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.reason, "Invalid");
  assert.deepEqual(
    r.body.details.causes,
    fields.map((field) => ({ reason: "FieldValueForbidden", message: IMMUTABLE, field })),
  );
  const listed = fields.map((f) => `${f}: ${IMMUTABLE}`);
  const summary = listed.length === 1 ? listed[0] : `[${listed.join(", ")}]`;
  assert.equal(r.body.message, `${kind} "${name}" is invalid: ${summary}`);
}

describe("immutable ConfigMaps", () => {
  const path = () => `/api/v1/namespaces/${ns}/configmaps`;

  test("data, binaryData and immutable itself are refused; labels are not", async () => {
    const c = await api.post(path(), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "frozen" },
      data: { a: "1" },
      immutable: true,
    });
    assert.equal(c.status, 201, c.text);
    refused(await api.patch(`${path()}/frozen`, { data: { a: "2" } }), "ConfigMap", "frozen", ["data"]);
    refused(await api.patch(`${path()}/frozen`, { binaryData: { b: "eA==" } }), "ConfigMap", "frozen", [
      "binaryData",
    ]);
    refused(await api.patch(`${path()}/frozen`, { immutable: false }), "ConfigMap", "frozen", ["immutable"]);
    refused(await api.patch(`${path()}/frozen`, { immutable: null, data: null }), "ConfigMap", "frozen", [
      "immutable",
      "data",
    ]);
    const put = await api.put(`${path()}/frozen`, { ...c.body, data: { a: "1", b: "2" } });
    refused(put, "ConfigMap", "frozen", ["data"]);
    const json = await api.patch(
      `${path()}/frozen`,
      [{ op: "replace", path: "/data/a", value: "3" }],
      "application/json-patch+json",
    );
    refused(json, "ConfigMap", "frozen", ["data"]);

    const labelled = await api.patch(`${path()}/frozen`, { metadata: { labels: { x: "y" } } });
    assert.equal(labelled.status, 200, labelled.text);
    assert.deepEqual(labelled.body.data, { a: "1" });
    const same = await api.put(`${path()}/frozen`, labelled.body);
    assert.equal(same.status, 200, same.text);
    const gone = await api.delete(`${path()}/frozen`);
    assert.equal(gone.status, 200, gone.text);
  });

  test("a mutable ConfigMap may become immutable, and immutable: false changes nothing", async () => {
    const c = await api.post(path(), {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "thawed" },
      data: { a: "1" },
      immutable: false,
    });
    assert.equal(c.status, 201, c.text);
    const changed = await api.patch(`${path()}/thawed`, { data: { a: "2" }, immutable: true });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.immutable, true);
    refused(await api.patch(`${path()}/thawed`, { data: { a: "3" } }), "ConfigMap", "thawed", ["data"]);
  });
});

describe("immutable Secrets", () => {
  const path = () => `/api/v1/namespaces/${ns}/secrets`;

  test("data and stringData are refused as data; the type is immutable always", async () => {
    const c = await api.post(path(), {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "sealed" },
      data: { a: "eA==" },
      immutable: true,
    });
    assert.equal(c.status, 201, c.text);
    refused(await api.patch(`${path()}/sealed`, { stringData: { b: "y" } }), "Secret", "sealed", ["data"]);
    refused(await api.patch(`${path()}/sealed`, { data: { a: "eQ==" } }), "Secret", "sealed", ["data"]);
    refused(await api.patch(`${path()}/sealed`, { immutable: false }), "Secret", "sealed", ["immutable"]);
    // The same value again is no change.
    const same = await api.patch(`${path()}/sealed`, { stringData: { a: "x" } });
    assert.equal(same.status, 200, same.text);

    const typed = await api.patch(`${path()}/sealed`, { type: "kubernetes.io/basic-auth" });
    assert.equal(typed.status, 422, typed.text);
    assert.deepEqual(typed.body.details.causes[0], {
      reason: "FieldValueInvalid",
      message: 'Invalid value: "kubernetes.io/basic-auth": field is immutable',
      field: "type",
    });
  });
});
