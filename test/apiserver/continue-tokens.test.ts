// A list's continue token as kube-apiserver 1.37's storage decodes it (storage.DecodeContinue):
// base64url without padding, then JSON of a version, a resource version and a start key; each
// failure is a 400 "invalid continue token" in its words, a start key that would leave the list's
// prefix is refused, and a negative version lists the latest.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("cont");
  for (const name of ["a", "b", "c"])
    assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(name))).status, 201);
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const token = (json: unknown) => Buffer.from(JSON.stringify(json)).toString("base64url");
const list = (continueToken: string) =>
  api.get(`/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${encodeURIComponent(continueToken)}`);

test("a token that does not decode is refused in storage's words", async () => {
  const cases: [string, string][] = [
    ["garbage", "invalid character '\\u0081' looking for beginning of value"],
    ["ab!d", "illegal base64 data at input byte 2"],
    [
      token({ v: "meta.k8s.io/v2", rv: 5, start: "a\u0000" }),
      "server does not recognize this encoded version meta.k8s.io/v2",
    ],
    [
      token({ v: "meta.k8s.io/v1", rv: 0, start: "a\u0000" }),
      "incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    ],
    [token({ v: "meta.k8s.io/v1", rv: 5, start: "" }), "encoded start key empty (version meta.k8s.io/v1)"],
    [token({ v: "meta.k8s.io/v1", rv: 5, start: "../other/x" }), "../other/x"],
    [
      token({ v: "meta.k8s.io/v1", rv: "5", start: "a" }),
      "json: cannot unmarshal string into Go struct field continueToken.rv of type int64",
    ],
  ];
  for (const [t, why] of cases) {
    const r = await list(t);
    assert.equal(r.status, 400, `${t}: ${r.text}`);
    assert.equal(r.body.message, `invalid continue token: continue key is not valid: ${why}`, t);
  }
});

test("a negative resource version continues from the latest", async () => {
  const first = await api.get(`/api/v1/namespaces/${ns}/configmaps?limit=1`);
  assert.equal(first.status, 200, first.text);
  const r = await list(
    token({ v: "meta.k8s.io/v1", rv: -1, start: `${first.body.items[0].metadata.name}\u0000` }),
  );
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name),
    ["b"],
  );
});
