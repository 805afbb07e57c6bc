// A PUT as kube-apiserver 1.37 answers it: a missing object is created (201) by the kinds whose
// strategy allows a create on update (Services, Endpoints, Leases, Events, LimitRanges,
// RuntimeClasses, RBAC's four kinds) and is a 404 for the rest; the body must name the object.
// And a deprecated resource (v1 Endpoints, ComponentStatus) carries kube's warning on every request.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, configMap, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("put");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const put = (path: string, body: unknown) =>
  api.call("PUT", path, JSON.stringify(body), { contentType: "application/json" });

describe("PUT of a missing object", () => {
  test("creates it where the kind allows a create on update", async () => {
    const lease = await put(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l1`, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "l1" },
      spec: { holderIdentity: "me" },
    });
    assert.equal(lease.status, 201, lease.text);
    assert.equal(lease.body.spec.holderIdentity, "me");
    assert.ok(lease.body.metadata.uid);
    const role = await put(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/r1`, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "r1" },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
    });
    assert.equal(role.status, 201, role.text);
    const service = await put(`/api/v1/namespaces/${ns}/services/s1`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "s1" },
      spec: { ports: [{ port: 80 }] },
    });
    assert.equal(service.status, 201, service.text);
    assert.ok(service.body.spec.clusterIP);
    // Once there, a PUT updates it.
    const again = await put(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l1`, {
      ...lease.body,
      spec: { holderIdentity: "you" },
    });
    assert.equal(again.status, 200, again.text);
  });

  test("is not found for the other kinds, and a dry run creates nothing", async () => {
    const cm = await put(`/api/v1/namespaces/${ns}/configmaps/c1`, configMap("c1", { a: "1" }));
    assert.equal(cm.status, 404, cm.text);
    assert.equal(cm.body.message, 'configmaps "c1" not found');
    const dry = await put(`/api/v1/namespaces/${ns}/endpoints/e-dry?dryRun=All`, {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "e-dry" },
    });
    assert.equal(dry.status, 201, dry.text);
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/endpoints/e-dry`)).status, 404);
  });

  test("a body that does not name the object is refused", async () => {
    assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c2"))).status, 201);
    const r = await put(`/api/v1/namespaces/${ns}/configmaps/c2`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {},
      data: { a: "2" },
    });
    assert.equal(r.status, 400, r.text);
    assert.equal(
      r.body.message,
      "the name of the object (c2 based on URL) was undeterminable: name must be provided",
    );
  });
});

describe("deprecated resources", () => {
  const ENDPOINTS = '299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"';
  const warned = (r: Reply, status: number) => {
    assert.equal(r.status, status, r.text);
    assert.equal(r.headers.get("warning"), ENDPOINTS);
  };

  test("every request for v1 Endpoints is warned, failed ones too", async () => {
    const path = `/api/v1/namespaces/${ns}/endpoints`;
    warned(await api.post(path, { apiVersion: "v1", kind: "Endpoints", metadata: { name: "e1" } }), 201);
    warned(await api.get(`${path}/e1`), 200);
    warned(await api.get(path), 200);
    warned(await api.get(`${path}/missing`), 404);
    warned(
      await api.call("PATCH", `${path}/e1`, '{"metadata":{"labels":{"a":"b"}}}', {
        contentType: "application/merge-patch+json",
      }),
      200,
    );
    warned(await api.delete(`${path}/e1`), 200);
    // EndpointSlices, their replacement, are not deprecated.
    const slices = await api.get(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`);
    assert.equal(slices.headers.get("warning"), null);
  });

  test("ComponentStatus is warned as deprecated since 1.19", async () => {
    const r = await api.get("/api/v1/componentstatuses");
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get("warning"), '299 - "v1 ComponentStatus is deprecated in v1.19+"');
  });
});

describe("a stated resourceVersion", () => {
  test("is a uint64: anything else is etcd's parse error; 0 is none (an unconditional update)", async () => {
    const path = `/api/v1/namespaces/${ns}/configmaps/rv`;
    assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("rv"))).status, 201);
    const withVersion = async (resourceVersion: string) => {
      const current = (await api.get(path)).body;
      return put(path, { ...current, metadata: { ...current.metadata, resourceVersion } });
    };
    for (const [rv, why] of [
      ["abc", "invalid syntax"],
      ["-1", "invalid syntax"],
      ["99999999999999999999999", "value out of range"],
    ]) {
      const r = await withVersion(rv);
      assert.equal(r.status, 500, r.text);
      assert.equal(r.body.reason, undefined);
      assert.equal(r.body.message, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`);
    }
    assert.equal((await withVersion("0")).status, 200);
    const current = (await api.get(path)).body;
    // Leading zeros name the same version.
    assert.equal((await withVersion(`00${current.metadata.resourceVersion}`)).status, 200);
    assert.equal((await withVersion("1")).status, 409);
  });
});
