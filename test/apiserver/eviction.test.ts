// pods/eviction: an Eviction deletes the Pod and is answered with a 201 Success Status; a name
// that differs from the URL's is a 400, and discovery lists the subresource.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

const pod = (name: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox" }], terminationGracePeriodSeconds: 0 },
});

const eviction = (name: string) => ({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name } });

test("an eviction deletes the pod and answers 201 with a Success Status", async () => {
  const ns = await api.namespace();
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/pods`, pod("p1"))).status, 201);
  const r = await api.post(`/api/v1/namespaces/${ns}/pods/p1/eviction`, eviction("p1"));
  assert.equal(r.status, 201);
  assert.equal(r.body.kind, "Status");
  assert.equal(r.body.status, "Success");
  // A real kubelet finishes the deletion; what the API shows is a pod being deleted or gone.
  const after = await api.get(`/api/v1/namespaces/${ns}/pods/p1`);
  assert.ok(after.status === 404 || after.body.metadata?.deletionTimestamp, "the pod is deleted or deleting");
});

test("an eviction naming another pod is a 400; one of a missing pod is a 404", async () => {
  const ns = await api.namespace();
  await api.post(`/api/v1/namespaces/${ns}/pods`, pod("p2"));
  const mismatch = await api.post(`/api/v1/namespaces/${ns}/pods/p2/eviction`, eviction("other"));
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.body.kind, "Status");
  const missing = await api.post(`/api/v1/namespaces/${ns}/pods/nope/eviction`, eviction("nope"));
  assert.equal(missing.status, 404);
});

test("discovery lists pods/eviction as policy/v1 Eviction with the create verb", async () => {
  const r = await api.get("/api/v1");
  const sub = r.body.resources.find((x: { name: string }) => x.name === "pods/eviction");
  assert.deepEqual(
    { group: sub?.group, version: sub?.version, kind: sub?.kind, verbs: sub?.verbs },
    { group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] },
  );
});
