// What a client may store is bounded as in a cluster: request bodies (3 MiB), ConfigMap and
// Secret data (1 MiB), objects as etcd takes them (1.5 MiB, and gRPC's 2 MiB), and the whole
// store (etcd's quota; on the embedded server `storageQuotaBytes`). Answers are kube-apiserver's.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Agent } from "undici";
import { startAPIServer } from "controller-runtime-apiserver";
import { needs } from "../support/environment.js";
import { Api, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const group = `limits${Date.now().toString(36)}.example.com`;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("limits");
  const crd = customResourceDefinition(group, { plural: "blobs", kind: "Blob" });
  assert.equal((await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status, 201);
});
after(async () => {
  await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/blobs.${group}`);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const x = (n: number) => "x".repeat(n);

test("a body over 3 MiB is a 413", async () => {
  const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "huge" },
    data: { a: x(3 * 1024 * 1024) },
  });
  assert.equal(r.status, 413);
  assert.equal(r.body.message, "Request entity too large: limit is 3145728");
  assert.equal(r.body.reason, "RequestEntityTooLarge");
});

test("ConfigMaps and Secrets hold at most 1 MiB of data", async () => {
  const cases = [
    {
      path: "configmaps",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big1" }, data: { a: x(1048577) } },
      field: "[]",
      kind: "ConfigMap",
    },
    {
      path: "configmaps",
      body: {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "big2" },
        data: { a: x(600_000) },
        binaryData: { b: "eHh4".repeat(200_000) },
      },
      field: "[]",
      kind: "ConfigMap",
    },
    {
      path: "secrets",
      body: { apiVersion: "v1", kind: "Secret", metadata: { name: "big3" }, stringData: { a: x(1048577) } },
      field: "data",
      kind: "Secret",
    },
    {
      path: "secrets",
      body: {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "big4" },
        data: { a: "eHh4".repeat(400_000) },
      },
      field: "data",
      kind: "Secret",
    },
  ];
  for (const c of cases) {
    const r = await api.post(`/api/v1/namespaces/${ns}/${c.path}`, c.body);
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.equal(
      r.body.message,
      `${c.kind} "${c.body.metadata.name}" is invalid: ${c.field}: Too long: may not be more than 1048576 bytes`,
    );
    assert.deepEqual(r.body.details.causes, [
      {
        reason: "FieldValueTooLong",
        message: "Too long: may not be more than 1048576 bytes",
        field: c.field,
      },
    ]);
  }
  const fits = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "fits" }, data: { a: x(1048576) } };
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, fits)).status, 201);
});

test("an object etcd would not take is a 500 in etcd's (or gRPC's) words", async () => {
  const path = `/apis/${group}/v1/namespaces/${ns}/blobs`;
  const blob = (name: string, size: number) => ({
    apiVersion: `${group}/v1`,
    kind: "Blob",
    metadata: { name },
    x: x(size),
  });
  let first = await api.post(path, blob("fits", 1_500_000));
  for (let i = 0; i < 100 && first.status === 404; i++) {
    await new Promise((r) => setTimeout(r, 100));
    first = await api.post(path, blob("fits", 1_500_000));
  }
  assert.equal(first.status, 201);
  const tooLarge = await api.post(path, blob("etcd", 1_600_000));
  assert.equal(tooLarge.status, 500);
  assert.deepEqual(
    [tooLarge.body.message, tooLarge.body.reason],
    ["etcdserver: request is too large", undefined],
  );
  const grpc = await api.post(path, blob("grpc", 2_100_000));
  assert.equal(grpc.status, 500);
  assert.match(
    grpc.body.message,
    /^rpc error: code = ResourceExhausted desc = trying to send message larger than max \(\d+ vs\. 2097152\)$/,
  );
  // An update may not grow an object past the limit either.
  const update = await api.patch(`${path}/fits`, { x: x(1_600_000) });
  assert.equal(update.status, 500, update.text.slice(0, 200));
  assert.equal(update.body.message, "etcdserver: request is too large");
});

test(
  "past the storage quota writes that grow fail as etcd's do; shrinking and deleting still work",
  needs("server-options"),
  async () => {
    const server = await startAPIServer({ storageQuotaBytes: 4 * 1024 * 1024 });
    const agent = new Agent({ connect: { ca: server.caPem } });
    const own = new Api({
      url: server.url,
      token: server.adminToken,
      caPem: server.caPem,
      embedded: true,
      agent,
      close: async () => {},
    });
    try {
      const cms = "/api/v1/namespaces/default/configmaps";
      let written = 0;
      let refused: { status: number; body: { message: string; reason?: string } } | undefined;
      for (let i = 0; i < 10 && !refused; i++) {
        const r = await own.post(cms, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: `fill-${i}` },
          data: { a: x(1_000_000) },
        });
        if (r.status === 201) written++;
        else refused = r;
      }
      assert.equal(written, 4);
      assert.ok(refused);
      assert.equal(refused.status, 500);
      assert.deepEqual(
        [refused.body.message, refused.body.reason],
        ["etcdserver: mvcc: database space exceeded", undefined],
      );
      assert.equal((await own.patch(`${cms}/fill-0`, { data: { a: "small" } })).status, 200);
      assert.equal((await own.delete(`${cms}/fill-1`)).status, 200);
      assert.equal(
        (
          await own.post(cms, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { name: "after" },
            data: { a: x(1_000_000) },
          })
        ).status,
        201,
      );
    } finally {
      await agent.close();
      await server.stop();
    }
  },
);

test("request lines and headers up to Go's 1 MiB are served: a label selector of 1 500 terms", async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  for (const terms of [1_500, 9_000]) {
    const selector = Array.from({ length: terms }, (_, i) => `key${String(i).padStart(6, "0")}!=v`).join(",");
    assert.ok(selector.length > 16 * 1024);
    const r = await api.raw("GET", `${path}?labelSelector=${selector}`);
    assert.equal(r.status, 200, r.text.slice(0, 200));
    assert.equal(r.body.kind, "ConfigMapList");
    const header = await api.get(path, { headers: { "x-long": "v".repeat(64 * 1024) } });
    assert.equal(header.status, 200, header.text.slice(0, 200));
  }
});
