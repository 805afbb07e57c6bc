// envtest's `simulate`: garbage collection, namespace deletion and workloads, as controllers of
// the library, in every mode. On kube-apiserver (and on the embedded server, whose own garbage
// collector is off by default) none of this happens without them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { type Client, newClient } from "../client/index.js";
import { isNotFound, newRESTClient, type RESTClient } from "../rest/index.js";
import { newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { eventually } from "./index.js";

const env = testEnvironment({
  simulate: { garbageCollection: true, namespaceLifecycle: true, workloads: { podStartupMs: 100 } },
});
let client: Client;
let rest: RESTClient;

before(async () => {
  const config = await env.start();
  client = newClient(config);
  rest = newRESTClient(config);
});

after(async () => {
  await client.close();
  await rest.close();
  await env.stop();
});

const gone = async (p: Promise<unknown>) =>
  p.then(
    () => false,
    (err) => (isNotFound(err) ? true : Promise.reject(err)),
  );

async function ownerAndDependent(ns: string, name: string, blockOwnerDeletion = false) {
  const owner = await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: ns, name },
  });
  const dependent = await client.create<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      namespace: ns,
      name: `${name}-dependent`,
      ownerReferences: [
        { apiVersion: "v1", kind: "ConfigMap", name, uid: owner.metadata?.uid ?? "", blockOwnerDeletion },
      ],
    },
  });
  return { owner, dependent };
}

test("garbage collection: background deletion takes the dependents with it", async () => {
  const ns = await newNamespace(rest, "sim-gc");
  const { owner, dependent } = await ownerAndDependent(ns, "bg");
  await client.delete(owner);
  await eventually("the dependent is collected", () =>
    gone(client.get(kinds.Secret, { namespace: ns, name: dependent.metadata?.name ?? "" })),
  );
});

test("garbage collection: orphaning keeps the dependents, without the reference", async () => {
  const ns = await newNamespace(rest, "sim-orphan");
  const { owner, dependent } = await ownerAndDependent(ns, "orphaned");
  await client.delete(owner, { propagationPolicy: "Orphan" });
  await eventually("the owner is gone", () =>
    gone(client.get(kinds.ConfigMap, { namespace: ns, name: "orphaned" })),
  );
  const kept = await client.get(kinds.Secret, { namespace: ns, name: dependent.metadata?.name ?? "" });
  assert.deepEqual(kept.metadata?.ownerReferences ?? [], []);
});

test("garbage collection: foreground deletion removes the dependents first", async () => {
  const ns = await newNamespace(rest, "sim-fg");
  const { owner, dependent } = await ownerAndDependent(ns, "fg", true);
  await client.delete(owner, { propagationPolicy: "Foreground" });
  await eventually(
    "the dependent, then the owner, are gone",
    async () =>
      (await gone(client.get(kinds.Secret, { namespace: ns, name: dependent.metadata?.name ?? "" }))) &&
      (await gone(client.get(kinds.ConfigMap, { namespace: ns, name: "fg" }))),
  );
});

test("garbage collection: an object whose owner never existed under that uid is collected; one with an owner left is not", async () => {
  const ns = await newNamespace(rest, "sim-dangling");
  const live = await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: ns, name: "live" },
  });
  await client.create<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      namespace: ns,
      name: "two-owners",
      ownerReferences: [
        { apiVersion: "v1", kind: "ConfigMap", name: "live", uid: live.metadata?.uid ?? "" },
        { apiVersion: "v1", kind: "ConfigMap", name: "never", uid: "00000000-0000-0000-0000-000000000001" },
      ],
    },
  });
  await client.create<Secret>({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      namespace: ns,
      name: "dangling",
      ownerReferences: [
        { apiVersion: "v1", kind: "ConfigMap", name: "never", uid: "00000000-0000-0000-0000-000000000002" },
      ],
    },
  });
  await eventually("the dangling one is collected", () =>
    gone(client.get(kinds.Secret, { namespace: ns, name: "dangling" })),
  );
  await eventually("the reference to the missing owner is dropped", async () => {
    const kept = await client.get(kinds.Secret, { namespace: ns, name: "two-owners" });
    return kept.metadata?.ownerReferences?.map((o) => o.name).join() === "live";
  });
});

test("namespace lifecycle: a deleted namespace is emptied and goes", async () => {
  const ns = await newNamespace(rest, "sim-ns");
  await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: ns, name: "inside" },
  });
  await client.delete({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  await eventually("the namespace is gone", () => gone(client.get(kinds.Namespace, { name: ns })), {
    timeoutMs: 30_000,
  });
});

test("workloads: a Deployment gets ready Pods and reports them available", async () => {
  const ns = await newNamespace(rest, "sim-workloads");
  await client.create<Deployment>({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: ns, name: "web" },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "web", image: "nginx" }] },
      },
    },
  });
  await eventually(
    "2 replicas available",
    async () => {
      const d = await client.get(kinds.Deployment, { namespace: ns, name: "web" });
      return d.status?.availableReplicas === 2;
    },
    { timeoutMs: 30_000 },
  );
  const pods = await client.list(kinds.Pod, { inNamespace: ns });
  assert.equal(pods.items.length, 2);
});
