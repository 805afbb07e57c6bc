// envtest's simulated resource quota controller (kube-controller-manager's): a quota's status.hard
// follows spec.hard and status.used is recomputed from the namespace's objects, so that what a
// deleted object used is given back and a status written by hand is set right again. It runs as
// a client of the API server, so these tests pass on kube-apiserver too, whose quota admission
// charges creates as the embedded server's does.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap, Pod, ResourceQuota } from "kubernetes-types/core/v1.js";
import { defineKind } from "controller-runtime/api";
import { type Client, mergeFrom, newClient, rawPatch } from "controller-runtime/client";
import { eventually } from "controller-runtime/envtest";
import { randomUUID } from "node:crypto";
import { testEnvironment } from "../support/environment.js";

const Quota = defineKind<ResourceQuota>({
  group: "",
  version: "v1",
  kind: "ResourceQuota",
  namespaced: true,
});
const env = testEnvironment({ simulate: { resourceQuota: true } });
let client: Client;

before(async () => {
  client = newClient(await env.start());
});
after(async () => {
  await client.close();
  await env.stop();
});

async function namespace(): Promise<string> {
  const name = `quota-ctl-${randomUUID().slice(0, 8)}`;
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** Waits until the quota's status is `used` (every name of it, and no other). */
async function statusBecomes(ns: string, name: string, used: Record<string, string>, what: string) {
  return eventually(
    what,
    async () => {
      const q = await client.get(Quota, { namespace: ns, name });
      assert.deepEqual(q.status?.used, used);
      assert.deepEqual(q.status?.hard, q.spec?.hard);
      return q;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

test("a new quota's status is computed from what the namespace holds; a deleted Pod's usage is given back", async () => {
  const ns = await namespace();
  await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: ns, name: "a" },
  });
  const hard = { configmaps: "5", pods: "3", "requests.cpu": "2", "count/replicasets.apps": "2" };
  await client.create<ResourceQuota>({
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { namespace: ns, name: "q" },
    spec: { hard },
  });
  // Envtest publishes no kube-root-ca.crt without the namespace simulation: one ConfigMap.
  await statusBecomes(
    ns,
    "q",
    { configmaps: "1", "count/replicasets.apps": "0", pods: "0", "requests.cpu": "0" },
    "the quota's first status",
  );

  const pod = await client.create<Pod>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: ns, name: "p" },
    spec: { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "500m" } } }] },
  });
  // Charged by admission as it was created.
  const charged = await client.get(Quota, { namespace: ns, name: "q" });
  assert.equal(charged.status?.used?.pods, "1");
  assert.equal(charged.status?.used?.["requests.cpu"], "500m");

  await client.delete(pod, { gracePeriodSeconds: 0 });
  await statusBecomes(
    ns,
    "q",
    { configmaps: "1", "count/replicasets.apps": "0", pods: "0", "requests.cpu": "0" },
    "the deleted Pod's usage given back",
  );
});

test("a status written by hand is set right again; a changed spec.hard is mirrored in status.hard", async () => {
  const ns = await namespace();
  await client.create<ResourceQuota>({
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { namespace: ns, name: "q" },
    spec: { hard: { secrets: "4", cpu: "1" } },
  });
  const computed = await statusBecomes(ns, "q", { cpu: "0", secrets: "0" }, "the quota's first status");

  await client
    .status()
    .patch(
      computed,
      rawPatch("merge", { status: { hard: { secrets: "40", cpu: "2" }, used: { secrets: "7" } } }),
    );
  await statusBecomes(ns, "q", { cpu: "0", secrets: "0" }, "the patched status reset by a resync");

  const current = await client.get(Quota, { namespace: ns, name: "q" });
  const changed = structuredClone(current) as ResourceQuota;
  changed.spec = { hard: { secrets: "5", cpu: "1", "count/configmaps": "3" } };
  await client.patch(changed, mergeFrom(current));
  await statusBecomes(
    ns,
    "q",
    { cpu: "0", secrets: "0", "count/configmaps": "0" },
    "status.hard following spec.hard",
  );
});
