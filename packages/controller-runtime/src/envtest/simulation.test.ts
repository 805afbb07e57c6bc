// envtest's `simulate`: garbage collection, namespace deletion and workloads, as controllers of
// the library, in every mode. On kube-apiserver (and on the embedded server, whose own garbage
// collector is off by default) none of this happens without them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { DaemonSet, Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, PersistentVolumeClaim, Pod, Secret } from "kubernetes-types/core/v1.js";
import { type KubeObject, kinds } from "../api/index.js";
import { type Client, mergeFrom, newClient } from "../client/index.js";
import { isNotFound, newRESTClient, type RESTClient } from "../rest/index.js";
import { newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { eventually } from "./index.js";
import { ControllerRevisionKind } from "./simulation/daemonset.js";

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

test("garbage collection: a foreground deletion through a circle of owners (each blocking the next) completes", async () => {
  const ns = await newNamespace(rest, "sim-circle");
  const names = ["c1", "c2", "c3"];
  const made = [];
  for (const name of names) {
    made.push(
      await client.create<ConfigMap>({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: ns, name },
      }),
    );
  }
  // c1 is owned by c3, c2 by c1, c3 by c2: each blocks its owner's deletion.
  for (let i = 0; i < 3; i++) {
    const owner = made[(i + 2) % 3];
    const current = await client.get(kinds.ConfigMap, { namespace: ns, name: names[i] });
    await client.update<ConfigMap>({
      ...current,
      metadata: {
        ...current.metadata,
        ownerReferences: [
          {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: owner.metadata?.name ?? "",
            uid: owner.metadata?.uid ?? "",
            blockOwnerDeletion: true,
          },
        ],
      },
    });
  }
  await client.delete(made[0], { propagationPolicy: "Foreground" });
  await eventually(
    "every object of the circle is gone",
    async () =>
      (await client.list(kinds.ConfigMap, { inNamespace: ns })).items.every(
        (cm) => !names.includes(cm.metadata?.name ?? ""),
      ),
    { timeoutMs: 30_000 },
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

test("storage protection: a deleted claim, volume and volume attributes class nothing uses go (their finalizers lifted)", async () => {
  const ns = await newNamespace(rest, "sim-storage");
  const claim = await client.create<PersistentVolumeClaim>({
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { namespace: ns, name: "data" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  });
  assert.ok(
    claim.metadata?.finalizers?.includes("kubernetes.io/pvc-protection"),
    "the server protects the claim",
  );
  const volume = await rest.create<KubeObject>(
    { group: "", version: "v1", resource: "persistentvolumes", namespaced: false },
    {
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name: `${ns}-pv` },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv" } },
    } as KubeObject,
  );
  const vacs = {
    group: "storage.k8s.io",
    version: "v1",
    resource: "volumeattributesclasses",
    namespaced: false,
  };
  const vac = await rest.create<KubeObject>(vacs, {
    apiVersion: "storage.k8s.io/v1",
    kind: "VolumeAttributesClass",
    metadata: { name: `${ns}-vac` },
    driverName: "example.com/driver",
    parameters: { iops: "1000" },
  } as KubeObject);
  await client.delete(claim);
  await rest.delete(
    { group: "", version: "v1", resource: "persistentvolumes", namespaced: false },
    volume.metadata?.name ?? "",
  );
  await rest.delete(vacs, vac.metadata?.name ?? "");
  await eventually(
    "all three gone",
    async () =>
      (await gone(client.get(kinds.PersistentVolumeClaim, { namespace: ns, name: "data" }))) &&
      (await gone(
        rest.get({ group: "", version: "v1", resource: "persistentvolumes", namespaced: false }, `${ns}-pv`),
      )) &&
      (await gone(rest.get(vacs, `${ns}-vac`))),
    { timeoutMs: 30_000 },
  );
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

test("namespace lifecycle: Pods go first; the namespace's conditions say what remains and which finalizers hold it", async () => {
  const ns = await newNamespace(rest, "sim-order");
  await client.create<Pod>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: ns, name: "held", finalizers: ["example.com/hold"] },
    spec: { containers: [{ name: "c", image: "pause" }] },
  });
  await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: ns, name: "c" },
  });
  await client.delete({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
  const conditions = async () =>
    new Map(
      ((await client.get(kinds.Namespace, { name: ns })).status?.conditions ?? []).map((c) => [c.type, c]),
    );
  // While the Pod is held, nothing else is deleted, and the five conditions read "ok" (kube ends
  // the pass at the Pods before counting).
  await eventually(
    "the Pod deleted first",
    async () =>
      (await client.get(kinds.Pod, { namespace: ns, name: "held" })).metadata?.deletionTimestamp !==
        undefined && (await conditions()).get("NamespaceDeletionContentFailure")?.reason === "ContentDeleted",
    { timeoutMs: 30_000 },
  );
  assert.equal((await conditions()).size, 5);
  assert.equal((await conditions()).get("NamespaceContentRemaining")?.status, "False");
  const cm = await client.get(kinds.ConfigMap, { namespace: ns, name: "c" });
  assert.equal(cm.metadata?.deletionTimestamp, undefined, "the ConfigMap waits for the Pods");
  // Held by a finalizer of its own, the ConfigMap is named once the Pod is gone.
  await client.patch(
    { ...cm, metadata: { ...cm.metadata, finalizers: ["example.com/keep"] } },
    mergeFrom(cm),
  );
  const pod = await client.get(kinds.Pod, { namespace: ns, name: "held" });
  await client.patch({ ...pod, metadata: { ...pod.metadata, finalizers: [] } }, mergeFrom(pod));
  await eventually(
    "the ConfigMap's finalizer named",
    async () => {
      const c = await conditions();
      return (
        c.get("NamespaceContentRemaining")?.message ===
          "Some resources are remaining: configmaps. has 1 resource instances" &&
        c.get("NamespaceFinalizersRemaining")?.message ===
          "Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances"
      );
    },
    { timeoutMs: 30_000 },
  );
  const held = await client.get(kinds.ConfigMap, { namespace: ns, name: "c" });
  await client.patch({ ...held, metadata: { ...held.metadata, finalizers: [] } }, mergeFrom(held));
  await eventually("the namespace is gone", () => gone(client.get(kinds.Namespace, { name: ns })), {
    timeoutMs: 30_000,
  });
});

test("namespace defaults: every namespace gets its default ServiceAccount and kube-root-ca.crt, made again when deleted, set back when changed", async () => {
  const ns = await newNamespace(rest, "sim-defaults");
  const rootCA = () => client.get(kinds.ConfigMap, { namespace: ns, name: "kube-root-ca.crt" });
  await eventually(
    "the default ServiceAccount and the root CA ConfigMap",
    async () => {
      const [sa, cm] = await Promise.all([
        client.get(kinds.ServiceAccount, { namespace: ns, name: "default" }).catch(() => undefined),
        rootCA().catch(() => undefined),
      ]);
      return sa !== undefined && (cm?.data?.["ca.crt"] ?? "").includes("BEGIN CERTIFICATE");
    },
    { timeoutMs: 30_000 },
  );
  const ca = (await rootCA()).data?.["ca.crt"];
  await client.delete(await rootCA());
  await client.delete(await client.get(kinds.ServiceAccount, { namespace: ns, name: "default" }));
  await eventually(
    "both made again",
    async () =>
      !(await gone(client.get(kinds.ServiceAccount, { namespace: ns, name: "default" }))) &&
      !(await gone(rootCA())),
    { timeoutMs: 30_000 },
  );
  const cm = await rootCA();
  await client.update<ConfigMap>({ ...cm, data: { "ca.crt": "" } });
  await eventually("the CA set back", async () => (await rootCA()).data?.["ca.crt"] === ca, {
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
  // Revision 1, on the Deployment and on its ReplicaSet, as kube's controller numbers them.
  const revision = "deployment.kubernetes.io/revision";
  const web = await client.get(kinds.Deployment, { namespace: ns, name: "web" });
  assert.equal(web.metadata?.annotations?.[revision], "1");
  const sets = await client.list(kinds.ReplicaSet, { inNamespace: ns });
  assert.deepEqual(
    sets.items.map((rs) => rs.metadata?.annotations?.[revision]),
    ["1"],
  );
});

test("workloads: a ReplicaSet adopts a matching orphan Pod and releases one that stops matching", async () => {
  const ns = await newNamespace(rest, "sim-adopt");
  await client.create<Pod>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: ns, name: "orphan", labels: { app: "adopt" } },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  });
  const rs = await client.create<ReplicaSet>({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { namespace: ns, name: "adopter" },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: "adopt" } },
      template: {
        metadata: { labels: { app: "adopt" } },
        spec: { containers: [{ name: "c", image: "nginx" }] },
      },
    },
  });
  const controllerOf = async (name: string) =>
    (await client.get(kinds.Pod, { namespace: ns, name })).metadata?.ownerReferences?.find(
      (r) => r.controller,
    )?.uid;
  await eventually("the orphan adopted", async () => (await controllerOf("orphan")) === rs.metadata?.uid, {
    timeoutMs: 30_000,
  });
  // Adopted, it counts: no second Pod is made.
  assert.equal((await client.list(kinds.Pod, { inNamespace: ns })).items.length, 1);

  const pod = await client.get(kinds.Pod, { namespace: ns, name: "orphan" });
  await client.patch({ ...pod, metadata: { ...pod.metadata, labels: { app: "released" } } }, mergeFrom(pod));
  await eventually(
    "released, and replaced by a Pod of the ReplicaSet",
    async () => {
      const pods = (await client.list(kinds.Pod, { inNamespace: ns })).items;
      return (
        (await controllerOf("orphan")) === undefined &&
        pods.filter((p) => p.metadata?.ownerReferences?.some((r) => r.uid === rs.metadata?.uid)).length === 1
      );
    },
    { timeoutMs: 30_000 },
  );
});

test("workloads: a DaemonSet runs a ready Pod on the simulated Node, its templates kept as ControllerRevisions", async () => {
  const ns = await newNamespace(rest, "sim-daemonset");
  // The simulated kubelet registers its Node, Ready and untainted, once the simulation starts.
  await eventually(
    "the simulated Node ready and untainted",
    async () => {
      const node = (await client.list(kinds.Node)).items.find((n) => n.metadata?.name === "simulated-node");
      return (
        node?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True" &&
        !node.spec?.taints?.length
      );
    },
    { timeoutMs: 30_000 },
  );
  const template = (image: string) => ({
    metadata: { labels: { app: "agent" } },
    spec: { containers: [{ name: "agent", image }] },
  });
  await client.create<DaemonSet>({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { namespace: ns, name: "agent" },
    spec: { selector: { matchLabels: { app: "agent" } }, template: template("agent:1") },
  });
  await eventually(
    "the DaemonSet's Pod ready on the Node",
    async () => {
      const ds = await client.get(kinds.DaemonSet, { namespace: ns, name: "agent" });
      return ds.status?.desiredNumberScheduled === 1 && ds.status?.numberReady === 1;
    },
    { timeoutMs: 30_000 },
  );
  const pods = await client.list(kinds.Pod, { inNamespace: ns });
  assert.deepEqual(
    pods.items.map((p) => p.spec?.nodeName),
    ["simulated-node"],
  );
  const revisions = async () => (await client.list(ControllerRevisionKind, { inNamespace: ns })).items;
  const [first] = await revisions();
  assert.equal(first.revision, 1);
  assert.equal(
    first.metadata?.labels?.["controller-revision-hash"],
    pods.items[0].metadata?.labels?.["controller-revision-hash"],
  );

  // A new template: a second revision, numbered past the first, and the Pod replaced by one of it.
  const ds = await client.get(kinds.DaemonSet, { namespace: ns, name: "agent" });
  await client.patch({ ...ds, spec: { ...ds.spec!, template: template("agent:2") } }, mergeFrom(ds));
  await eventually(
    "a second revision and a Pod of the new template",
    async () => {
      const revs = await revisions();
      const current = await client.list(kinds.Pod, { inNamespace: ns });
      return (
        revs.length === 2 &&
        current.items.length === 1 &&
        current.items[0].spec?.containers[0]?.image === "agent:2" &&
        !current.items[0].metadata?.deletionTimestamp
      );
    },
    { timeoutMs: 30_000 },
  );
  assert.deepEqual((await revisions()).map((r) => r.revision).sort(), [1, 2]);
});
