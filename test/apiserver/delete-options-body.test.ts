// A DELETE's body as kube-apiserver 1.37 decodes it: the kind is read first (a body that is not an
// object has none; a kind that is not an options kind is unknown to the options' scheme), and a
// precondition that is stated is checked even when empty.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, configMap, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("delbody");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

let n = 0;
async function deleteWith(body: unknown): Promise<Reply & { uid: string }> {
  const name = `d${n++}`;
  const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(name));
  assert.equal(created.status, 201, created.text);
  const r = await api.call("DELETE", `/api/v1/namespaces/${ns}/configmaps/${name}`, JSON.stringify(body), {
    contentType: "application/json",
  });
  return Object.assign(r, { uid: created.body.metadata.uid as string });
}

const KIND_STRUCT =
  'Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

test("a body that is not an object is a 400 from the kind's decoding", async () => {
  for (const [body, type] of [
    ["not an object", "string"],
    [[1, 2], "array"],
  ] as const) {
    const r = await deleteWith(body);
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.body.message,
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${type} into ${KIND_STRUCT}`,
    );
  }
  // null decodes into nothing: a delete with no options.
  assert.equal((await deleteWith(null)).status, 200);
});

test("a body of another kind is one the options' scheme does not know", async () => {
  const r = await deleteWith({ kind: "Pod", apiVersion: "v1" });
  assert.equal(r.status, 400, r.text);
  assert.equal(
    r.body.message,
    'no kind "Pod" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"',
  );
  // DeleteOptions of any version (a group's own, as older clients send) is read.
  assert.equal((await deleteWith({ kind: "DeleteOptions", apiVersion: "v2" })).status, 200);
});

test("an empty UID precondition is checked, not ignored; a null one is none", async () => {
  const r = await deleteWith({ preconditions: { uid: "" } });
  assert.equal(r.status, 409, r.text);
  assert.equal(
    r.body.message,
    `Operation cannot be fulfilled on ConfigMap "${`d${n - 1}`}": the UID in the precondition () does not match the UID in record (${r.uid}). The object might have been deleted and then recreated`,
  );
  assert.equal((await deleteWith({ preconditions: { uid: null } })).status, 200);
});
