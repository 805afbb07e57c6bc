// Definitions written with defineCRD, installed on the API server (the embedded one and, in the
// binaries mode, kube-apiserver): kube accepts every emitted CRD, and each definition's objects are
// accepted (with kube's defaults applied) or rejected at the field the schema guards.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Unstructured } from "../api/object.js";
import { newClient } from "../client/index.js";
import { installCRDs } from "../envtest/index.js";
import { isInvalid } from "../rest/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { Gadget, Memcached, Policy } from "../../../../test/support/crd-corpus.js";

const env = testEnvironment();
let client: ReturnType<typeof newClient>;

before(async () => {
  const config = await env.start();
  await installCRDs(config, [Memcached.crd, Gadget.crd, Policy.crd]);
  client = newClient(config);
});

after(async () => {
  await client.close();
  await env.stop();
});

let seq = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${seq++}`;

async function rejected(obj: Unstructured, field: RegExp): Promise<void> {
  await assert.rejects(client.create(obj), (err) => {
    assert.ok(isInvalid(err), `expected 422 Invalid, got ${err}`);
    assert.match(String((err as Error).message), field);
    return true;
  });
}

test("Memcached: defaults applied, bounds and enums enforced, the scale subresource served", async () => {
  const created = await client.create<Memcached>({
    apiVersion: Memcached.apiVersion,
    kind: Memcached.kind,
    metadata: { namespace: "default", name: unique("mc") },
    spec: { size: 2 },
  });
  assert.deepEqual(created.spec, { size: 2, containerPort: 11211, mode: "safe" });
  const bare = await client.create<Unstructured>({
    apiVersion: Memcached.apiVersion,
    kind: Memcached.kind,
    metadata: { namespace: "default", name: unique("mc") },
    spec: {},
  });
  assert.equal((bare.spec as { size: number }).size, 1, "size defaulted");

  const base = { apiVersion: Memcached.apiVersion, kind: Memcached.kind };
  await rejected({ ...base, metadata: { namespace: "default", name: unique("mc") } }, /spec: Required value/);
  await rejected(
    { ...base, metadata: { namespace: "default", name: unique("mc") }, spec: { size: 9 } },
    /spec\.size/,
  );
  await rejected(
    { ...base, metadata: { namespace: "default", name: unique("mc") }, spec: { size: 1, mode: "slow" } },
    /spec\.mode: Unsupported value: "slow"/,
  );
  await rejected(
    {
      ...base,
      metadata: { namespace: "default", name: unique("mc") },
      spec: { size: 1, containerPort: true },
    },
    /spec\.containerPort/,
  );
  await rejected(
    {
      ...base,
      metadata: { namespace: "default", name: unique("mc") },
      spec: { size: 1, labels: { a: "x".repeat(64) } },
    },
    /spec\.labels\.a/,
  );

  // The scale subresource reads spec.size.
  const scale = await client.subResource("scale").get<Unstructured>(created);
  assert.equal((scale.spec as { replicas: number }).replicas, 2);
});

test("Gadget: CEL rules, quantities, formats, list types, embedded and free-form fields", async () => {
  const base = { apiVersion: Gadget.apiVersion, kind: Gadget.kind };
  const good: Gadget = {
    ...base,
    metadata: { namespace: "default", name: unique("g") },
    spec: {
      minReplicas: 1,
      maxReplicas: 3,
      memory: "512Mi",
      note: null,
      since: "2026-01-01T00:00:00Z",
      id: "0a1b2c3d-0000-4000-8000-000000000000",
      template: { apiVersion: "v1", kind: "Pod", metadata: { name: "t" }, spec: { anything: 1 } },
      ports: [
        { name: "http", port: 80 },
        { name: "https", port: 443 },
      ],
      tags: ["a", "b"],
      args: ["--x", "--x"],
      extra: { nested: [1, { deep: true }] },
      plugin: { name: "p", kept: "yes" },
      immutable: "first",
      ratio: 0.5,
    },
  };
  const created = await client.create(good);
  assert.deepEqual(created.spec, good.spec, "every field kept as sent (unknown ones where preserved)");

  const spec = good.spec;
  const bad = (patch: Record<string, unknown>): Unstructured => ({
    ...base,
    metadata: { namespace: "default", name: unique("g") },
    spec: { ...spec, ...patch },
  });
  await rejected(bad({ minReplicas: 5 }), /minReplicas must not exceed maxReplicas/);
  await rejected(bad({ memory: "lots" }), /spec\.memory/);
  await rejected(bad({ since: "yesterday" }), /spec\.since/);
  await rejected(bad({ id: "not-a-uuid" }), /spec\.id/);
  await rejected(
    bad({
      ports: [
        { name: "a", port: 1 },
        { name: "a", port: 2 },
      ],
    }),
    /spec\.ports\[1\]: Duplicate value/,
  );
  await rejected(bad({ tags: ["a", "a"] }), /spec\.tags\[1\]: Duplicate value/);
  await rejected(bad({ ratio: 0 }), /spec\.ratio/);
  await rejected(bad({ template: { kind: "Pod", metadata: { name: "t" } } }), /spec\.template\.apiVersion/);

  // A transition rule: the value may not change once set.
  const current = structuredClone(created);
  current.spec = { ...current.spec, immutable: "second" };
  await assert.rejects(client.update(current), /immutable is immutable/);
});

test("Policy: cluster-scoped, two versions served, rules on the whole object", async () => {
  const name = unique("p");
  const v1 = await client.create<Unstructured>({
    apiVersion: Policy.versions.v1.apiVersion,
    kind: "Policy",
    metadata: { name },
    spec: { level: "high", weight: 3 },
  });
  assert.equal(v1.apiVersion, "policies.corpus.example.com/v1");
  const asV2 = await client.get(Policy, { name });
  assert.equal(asV2.apiVersion, "policies.corpus.example.com/v2");
  assert.deepEqual(asV2.spec, { level: "high", weight: 3 });
  await rejected(
    { apiVersion: Policy.apiVersion, kind: "Policy", metadata: { name: unique("x") }, spec: {} },
    /a policy's name starts with p-/,
  );
});
