// JSON patches as kube-apiserver 1.37 applies them, with gopkg.in/evanphx/json-patch.v4: its
// quirks are what clients meet (a copy of a missing member copies null, an operation without a
// value uses null, a path's first segment is skipped, indices are strconv.Atoi's and may count from
// the end), a patch past 10 000 operations is refused before it runs, and a patched object that no
// longer names itself is refused as kube's checkName refuses it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { needs } from "../support/environment.js";
import { Api, configMap, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("jp");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

let n = 0;
/** A fresh ConfigMap holding `data` and `finalizers`, patched with `ops`. */
async function patched(ops: unknown, finalizers?: string[]): Promise<Reply & { name: string }> {
  const name = `p${n++}`;
  const body = { ...configMap(name, { x: "1" }), metadata: { name, ...(finalizers ? { finalizers } : {}) } };
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, body)).status, 201);
  const r = await api.call("PATCH", `/api/v1/namespaces/${ns}/configmaps/${name}`, JSON.stringify(ops), {
    contentType: "application/json-patch+json",
  });
  if (finalizers) {
    await api.call(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/${name}`,
      '{"metadata":{"finalizers":null}}',
      {
        contentType: "application/merge-patch+json",
      },
    );
  }
  return Object.assign(r, { name });
}

const GENERIC_422 = "the server rejected our request due to an error in our request";

function applied(r: Reply, data: Record<string, string>) {
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.data, data);
}

function notApplied(r: Reply) {
  assert.equal(r.status, 422, r.text);
  assert.equal(r.body.message, GENERIC_422);
}

describe("evanphx/json-patch v4's reading of operations", () => {
  test("a missing member reads as null: copied, replaced, added without a value", async () => {
    applied(await patched([{ op: "copy", from: "/data/nope", path: "/data/z" }]), { x: "1", z: "" });
    applied(await patched([{ op: "replace", path: "/data/nope", value: "2" }]), { nope: "2", x: "1" });
    applied(await patched([{ op: "add", path: "/data/x" }]), { x: "" });
    applied(await patched([{ op: "replace", path: "/data/x" }]), { x: "" });
    // A test without a value passes on a missing member, fails on one that is there.
    applied(await patched([{ op: "test", path: "/data/nope" }]), { x: "1" });
    notApplied(await patched([{ op: "test", path: "/data/x" }]));
    // What is missing is a container on the way, or a member a move or remove needs.
    notApplied(await patched([{ op: "copy", from: "/nope/deeper", path: "/data/z" }]));
    notApplied(await patched([{ op: "move", from: "/data/nope", path: "/data/z" }]));
  });

  test("a path's first segment is skipped: 'data/x' adds x at the top, an unknown field", async () => {
    const r = await patched([{ op: "add", path: "data/x", value: "1" }]);
    applied(r, { x: "1" });
    assert.equal(r.headers.get("warning"), '299 - "unknown field \\"x\\""');
  });

  test("array indices: leading zeros and signs, and counting from the end", async () => {
    const fin = (r: Reply) => {
      assert.equal(r.status, 200, r.text);
      return r.body.metadata.finalizers;
    };
    const two = ["a/b", "c/d"];
    const at = (path: string) => `/metadata/finalizers/${path}`;
    assert.deepEqual(fin(await patched([{ op: "add", path: at("01"), value: "e/f" }], two)), [
      "a/b",
      "e/f",
      "c/d",
    ]);
    assert.deepEqual(fin(await patched([{ op: "add", path: at("+1"), value: "e/f" }], two)), [
      "a/b",
      "e/f",
      "c/d",
    ]);
    assert.deepEqual(fin(await patched([{ op: "add", path: at("-1"), value: "e/f" }], two)), [
      "a/b",
      "c/d",
      "e/f",
    ]);
    assert.deepEqual(fin(await patched([{ op: "remove", path: at("-1") }], two)), ["a/b"]);
    assert.deepEqual(fin(await patched([{ op: "replace", path: at("-2"), value: "x/y" }], two)), [
      "x/y",
      "c/d",
    ]);
    assert.deepEqual(fin(await patched([{ op: "move", from: at("0"), path: at("-") }], two)), ["c/d", "a/b"]);
    notApplied(await patched([{ op: "add", path: at("-4"), value: "e/f" }], two));
  });

  test("the whole document: replaced by an object, not added to or removed", async () => {
    const name = `p${n}`;
    const whole = { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { r: "1" } };
    applied(await patched([{ op: "replace", path: "", value: whole }]), { r: "1" });
    const nameless = await patched([{ op: "replace", path: "", value: {} }]);
    assert.equal(nameless.status, 400, nameless.text);
    assert.equal(
      nameless.body.message,
      `the name of the object (${nameless.name} based on URL) was undeterminable: name must be provided`,
    );
    notApplied(await patched([{ op: "replace", path: "", value: "str" }]));
    notApplied(await patched([{ op: "add", path: "", value: {} }]));
    notApplied(await patched([{ op: "remove", path: "" }]));
    notApplied(await patched([{ op: "test", path: "", value: { a: 1 } }]));
  });
});

describe("bounds", () => {
  test("more than 10 000 operations are refused before any is applied", async () => {
    const ops = Array.from({ length: 10_001 }, () => ({ op: "test", path: "/data/x", value: "1" }));
    const r = await patched(ops);
    assert.equal(r.status, 413, r.text);
    assert.equal(r.body.reason, "RequestEntityTooLarge");
    assert.equal(
      r.body.message,
      "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
    );
    applied(await patched(ops.slice(0, 10_000)), { x: "1" });
  });

  // kube-apiserver sets its json-patch no bound on copies (AccumulatedCopySizeLimit 0) and would
  // build the document; sixty copies of a document into itself ask for 2^60 times its size.
  test(
    "a patch that copies a document into itself sixty times is refused, and the server goes on",
    needs("embedded-behaviour"),
    async () => {
      const ops = Array.from({ length: 60 }, (_, i) => ({ op: "copy", from: "/data", path: `/data/c${i}` }));
      notApplied(await patched(ops));
      assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps`)).status, 200);
    },
  );
});
