// ConfigMaps and Secrets as kube's ValidateConfigMap and ValidateSecret refuse them: keys that
// are no config keys (empty, other characters, too long, `.`/`..`), a key in both data and
// binaryData, and Secrets of a known type without the keys the type needs.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("cfg");
});
after(() => target.close());

const KEY_RULE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

const secret = (body: Record<string, unknown>) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { name: "s" },
  ...body,
});

async function causes(
  path: string,
  body: unknown,
): Promise<{ field: string; message: string; reason: string }[]> {
  const r = await api.post(path, body);
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.reason, "Invalid");
  return r.body.details.causes;
}

describe("ConfigMap and Secret keys and types", () => {
  test("keys must be config keys, in data and in stringData", async () => {
    const path = `/api/v1/namespaces/${ns}/secrets`;
    const long = "k".repeat(254);
    assert.deepEqual(await causes(path, secret({ data: { "": "eA==" } })), [
      { reason: "FieldValueInvalid", message: `Invalid value: "": ${KEY_RULE}`, field: "data[]" },
    ]);
    assert.deepEqual(await causes(path, secret({ stringData: { "a b": "x" } })), [
      { reason: "FieldValueInvalid", message: `Invalid value: "a b": ${KEY_RULE}`, field: "data[a b]" },
    ]);
    assert.deepEqual(await causes(path, secret({ data: { [long]: "eA==" } })), [
      {
        reason: "FieldValueInvalid",
        message: `Invalid value: "${long}": must be no more than 253 characters`,
        field: `data[${long}]`,
      },
    ]);
    const r = await api.post(path, secret({ data: { "": "eA==" } }));
    assert.equal(r.body.message, `Secret "s" is invalid: data[]: Invalid value: "": ${KEY_RULE}`);
    assert.deepEqual(await causes(path, secret({ data: { "..x": "eA==" } })), [
      {
        reason: "FieldValueInvalid",
        message: `Invalid value: "..x": must not start with '..'`,
        field: "data[..x]",
      },
    ]);
  });

  test("a ConfigMap's keys in data and binaryData, each at most once", async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const cm = (body: Record<string, unknown>) => ({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "c" },
      ...body,
    });
    assert.deepEqual(await causes(path, cm({ data: { "a/b": "x" } })), [
      { reason: "FieldValueInvalid", message: `Invalid value: "a/b": ${KEY_RULE}`, field: "data[a/b]" },
    ]);
    assert.deepEqual(await causes(path, cm({ binaryData: { ".": "eA==" } })), [
      { reason: "FieldValueInvalid", message: `Invalid value: ".": must not be '.'`, field: "binaryData[.]" },
    ]);
    assert.deepEqual(await causes(path, cm({ data: { k: "x" }, binaryData: { k: "eA==" } })), [
      {
        reason: "FieldValueInvalid",
        message: `Invalid value: "k": duplicate of key present in binaryData`,
        field: "data[k]",
      },
    ]);
    const ok = await api.post(path, cm({ data: { "a.b_c-D": "x" }, binaryData: { e: "eA==" } }));
    assert.equal(ok.status, 201, ok.text);
  });

  test("Secrets of a known type need its keys", async () => {
    const path = `/api/v1/namespaces/${ns}/secrets`;
    const required = (field: string) => ({ reason: "FieldValueRequired", message: "Required value", field });
    assert.deepEqual(await causes(path, secret({ type: "kubernetes.io/tls", data: {} })), [
      required("data[tls.crt]"),
      required("data[tls.key]"),
    ]);
    assert.deepEqual(await causes(path, secret({ type: "kubernetes.io/basic-auth" })), [
      required("data[username]"),
      required("data[password]"),
    ]);
    assert.deepEqual(
      await causes(path, secret({ type: "kubernetes.io/ssh-auth", data: { "ssh-privatekey": "" } })),
      [required("data[ssh-privatekey]")],
    );
    assert.deepEqual(await causes(path, secret({ type: "kubernetes.io/service-account-token" })), [
      required("metadata.annotations[kubernetes.io/service-account.name]"),
    ]);
    assert.deepEqual(await causes(path, secret({ type: "kubernetes.io/dockerconfigjson", data: {} })), [
      required("data[.dockerconfigjson]"),
    ]);
    const bad = await causes(
      path,
      secret({
        type: "kubernetes.io/dockerconfigjson",
        data: { ".dockerconfigjson": Buffer.from("{").toString("base64") },
      }),
    );
    assert.equal(bad[0].field, "data[.dockerconfigjson]");
    assert.match(bad[0].message, /^Invalid value: "<secret contents redacted>": /);
    const basic = await api.post(
      path,
      secret({ type: "kubernetes.io/basic-auth", stringData: { username: "u" } }),
    );
    assert.equal(basic.status, 201, basic.text);
  });
});
