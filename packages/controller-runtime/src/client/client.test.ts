// The Client's verbs and options against the embedded API server, over HTTP through envtest:
// CRUD, status isolation, optimistic locking, patches, deletes and their options, errors.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { type KubeObject, kinds } from "../api/index.js";
import { metadataOnly } from "../cache/index.js";
import {
  newRESTClient,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type RESTClient,
  StatusError,
} from "../rest/index.js";
import type { RESTConfig } from "../rest/config.js";
import {
  type Client,
  FieldOwnerRequiredError,
  jsonPatch,
  MissingKindError,
  mergeFrom,
  newAPIReader,
  newClient,
  OptimisticLockError,
  rawPatch,
  strategicMergeFrom,
} from "./index.js";
import { newNamespace, until } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
let rest: RESTClient;
let client: Client;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  client = newClient(config);
});

after(async () => {
  await client.close();
  await rest.close();
  await env.stop();
});

function configMap(namespace: string, name: string, data: Record<string, string> = {}): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data };
}

function deployment(namespace: string, name: string, replicas = 1): Deployment {
  const labels = { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: "main", image: "nginx:1" }] },
      },
    },
  };
}

test("create, get, update and delete round-trip a ConfigMap and never change their arguments", async () => {
  const ns = await newNamespace(rest, "crud");
  const obj = Object.freeze(configMap(ns, "a", { k: "v" }));
  const created = await client.create(obj);
  assert.equal(created.metadata?.name, "a");
  assert.ok(created.metadata?.resourceVersion, "the server's object comes back");
  assert.equal(obj.metadata?.resourceVersion, undefined, "the argument is left alone");

  const got = await client.get(kinds.ConfigMap, { namespace: ns, name: "a" });
  assert.deepEqual(got.data, { k: "v" });
  assert.equal(got.kind, "ConfigMap");

  const changed = { ...structuredClone(got), data: { k: "w" } };
  const updated = await client.update(changed);
  assert.deepEqual(updated.data, { k: "w" });
  assert.notEqual(updated.metadata?.resourceVersion, got.metadata?.resourceVersion);
  assert.equal(changed.metadata?.resourceVersion, got.metadata?.resourceVersion);

  await client.delete(updated);
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "a" }), isNotFound);
  assert.equal(
    await client.get(kinds.ConfigMap, { namespace: ns, name: "a" }).catch(ignoreNotFound),
    undefined,
  );
  await assert.rejects(
    client.create(obj).then(() => client.create(obj)),
    isAlreadyExists,
  );
});

test("generateName creates a fresh name; a missing name, kind or namespace is refused before sending", async () => {
  const ns = await newNamespace(rest, "names");
  const created = await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { generateName: "gen-", namespace: ns },
  });
  assert.match(created.metadata?.name ?? "", /^gen-/);
  await assert.rejects(client.create({ metadata: { name: "x", namespace: ns } }), MissingKindError);
  await assert.rejects(
    client.update({ apiVersion: "v1", kind: "ConfigMap", metadata: {} }),
    /no metadata.name/,
  );
  await assert.rejects(client.create(configMap("", "x")), /ConfigMap is namespaced/);
  await assert.rejects(client.get(kinds.ConfigMap, { name: "x" }), /ConfigMap is namespaced/);
});

test("list filters by namespace, labels, label selector and field selector, and pages with limit/continue", async () => {
  const ns = await newNamespace(rest, "list");
  const other = await newNamespace(rest, "list-other");
  for (const [i, tier] of ["web", "web", "db"].entries()) {
    const cm = configMap(ns, `cm-${i}`);
    cm.metadata!.labels = { tier, index: String(i) };
    await client.create(cm);
  }
  // A name of its own: on a shared cluster other tests make ConfigMaps too.
  const elsewhere = `elsewhere-${other}`;
  await client.create(configMap(other, elsewhere));

  const all = await client.list(kinds.ConfigMap, { inNamespace: ns });
  assert.deepEqual(
    all.items.map((c) => c.metadata?.name).filter((n) => n?.startsWith("cm-")),
    ["cm-0", "cm-1", "cm-2"],
  );
  assert.ok(
    all.items.every((c) => c.kind === "ConfigMap" && c.apiVersion === "v1"),
    "items carry their kind",
  );

  const web = await client.list(kinds.ConfigMap, { inNamespace: ns, matchingLabels: { tier: "web" } });
  assert.deepEqual(
    web.items.map((c) => c.metadata?.name),
    ["cm-0", "cm-1"],
  );
  const both = await client.list(kinds.ConfigMap, {
    inNamespace: ns,
    matchingLabels: { tier: "web" },
    labelSelector: "index notin (0)",
  });
  assert.deepEqual(
    both.items.map((c) => c.metadata?.name),
    ["cm-1"],
  );
  const byName = await client.list(kinds.ConfigMap, {
    inNamespace: ns,
    matchingFields: { "metadata.name": "cm-2" },
  });
  assert.deepEqual(
    byName.items.map((c) => c.metadata?.name),
    ["cm-2"],
  );

  const everywhere = await client.list(kinds.ConfigMap, { matchingFields: { "metadata.name": elsewhere } });
  assert.deepEqual(
    everywhere.items.map((c) => c.metadata?.namespace),
    [other],
  );

  const first = await client.list(kinds.ConfigMap, { inNamespace: ns, labelSelector: "tier", limit: 2 });
  assert.equal(first.items.length, 2);
  assert.ok(first.metadata?.continue, "a continue token for the rest");
  const rest2 = await client.list(kinds.ConfigMap, {
    inNamespace: ns,
    labelSelector: "tier",
    limit: 2,
    continue: first.metadata?.continue,
  });
  assert.equal(rest2.items.length, 1);
  assert.ok(!rest2.metadata?.continue);
});

test("dryRun persists nothing; fieldOwner names the manager; fieldValidation Strict refuses unknown fields", async () => {
  const ns = await newNamespace(rest, "opts");
  const dry = await client.create(configMap(ns, "dry"), { dryRun: true });
  assert.equal(dry.metadata?.name, "dry");
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "dry" }), isNotFound);

  const owned = await client.create(configMap(ns, "owned", { a: "1" }), { fieldOwner: "my-controller" });
  assert.deepEqual(
    owned.metadata?.managedFields?.map((m) => [m.manager, m.operation]),
    [["my-controller", "Update"]],
  );

  const withDefault = newClient(config, { fieldOwner: "default-owner", fieldValidation: "Strict" });
  try {
    // A manager is recorded for the fields it set: an object with no fields of its own has none.
    const cm = await withDefault.create(configMap(ns, "defaults", { a: "1" }));
    assert.deepEqual(
      cm.metadata?.managedFields?.map((m) => m.manager),
      ["default-owner"],
    );
    const bogus = { ...configMap(ns, "bogus", { a: "1" }), bogus: true };
    await assert.rejects(
      withDefault.create(bogus),
      (err: unknown) => err instanceof StatusError && /bogus/.test(err.message),
    );
    // The call's options win over the client's.
    const warned = await withDefault.create(bogus, { fieldValidation: "Ignore", fieldOwner: "call-owner" });
    assert.deepEqual(
      warned.metadata?.managedFields?.map((m) => m.manager),
      ["call-owner"],
    );
  } finally {
    await withDefault.close();
  }
});

test("update ignores status; status().update changes only the status", async () => {
  const ns = await newNamespace(rest, "status");
  const created = await client.create(deployment(ns, "web"));
  const withStatus = { ...structuredClone(created), status: { replicas: 7, observedGeneration: 1 } };
  withStatus.spec!.replicas = 3;

  const updated = await client.update(withStatus);
  assert.equal(updated.spec?.replicas, 3);
  assert.notEqual(updated.status?.replicas, 7, "the main endpoint drops status changes");

  const statusChange = structuredClone(updated);
  statusChange.status = { replicas: 7, observedGeneration: 1 };
  statusChange.spec!.replicas = 9;
  const afterStatus = await client.status().update(statusChange);
  assert.equal(afterStatus.status?.replicas, 7);
  assert.equal(afterStatus.spec?.replicas, 3, "the status endpoint drops spec changes");

  const patched = await client.status().patch(afterStatus, rawPatch("merge", { status: { replicas: 8 } }));
  assert.equal(patched.status?.replicas, 8);
  const read = await client.status().get<Deployment>(patched);
  assert.equal(read.status?.replicas, 8);
});

test("update with a stale resourceVersion is a 409 Conflict", async () => {
  const ns = await newNamespace(rest, "conflict");
  const v1 = await client.create(configMap(ns, "c", { n: "1" }));
  await client.update({ ...v1, data: { n: "2" } });
  await assert.rejects(client.update({ ...v1, data: { n: "3" } }), isConflict);
  // Without a resourceVersion, update is unconditional.
  const { resourceVersion: _, ...meta } = v1.metadata!;
  const forced = await client.update({ ...v1, metadata: meta, data: { n: "4" } });
  assert.deepEqual(forced.data, { n: "4" });
});

test("mergeFrom patches the difference; with optimisticLock a stale original is a 409", async () => {
  const ns = await newNamespace(rest, "merge");
  const original = await client.create(configMap(ns, "m", { keep: "1", drop: "2" }));
  const modified = structuredClone(original);
  modified.data = { keep: "1", add: "3" };
  // Someone else changes another key meanwhile: a plain merge patch does not care.
  await client.patch(original, rawPatch("merge", { data: { other: "x" } }));
  const merged = await client.patch(modified, mergeFrom(original));
  assert.deepEqual(merged.data, { keep: "1", add: "3", other: "x" });

  await assert.rejects(client.patch(modified, mergeFrom(original, { optimisticLock: true })), isConflict);
  const locked = await client.patch(
    { ...merged, data: { only: "1" } },
    mergeFrom(merged, { optimisticLock: true }),
  );
  assert.deepEqual(locked.data, { only: "1" });
  await assert.rejects(
    client.patch(configMap(ns, "m"), mergeFrom(configMap(ns, "m"), { optimisticLock: true })),
    OptimisticLockError,
  );
});

test("jsonPatch and strategicMergeFrom; strategic patches of custom resources are refused", async () => {
  const ns = await newNamespace(rest, "patches");
  const cm = await client.create(configMap(ns, "j", { a: "1" }));
  const patched = await client.patch(cm, jsonPatch([{ op: "add", path: "/data/b", value: "2" }]));
  assert.deepEqual(patched.data, { a: "1", b: "2" });
  await assert.rejects(
    client.patch(cm, jsonPatch([{ op: "test", path: "/data/a", value: "nope" }])),
    (err: unknown) => err instanceof StatusError,
  );

  const d = await client.create(deployment(ns, "sm"));
  const withSidecar = structuredClone(d);
  withSidecar.spec!.template.spec!.containers.push({ name: "sidecar", image: "busybox" });
  // Another writer changes the main container's image meanwhile; the strategic patch merges by name.
  await client.patch(
    d,
    rawPatch("strategic", {
      spec: { template: { spec: { containers: [{ name: "main", image: "nginx:2" }] } } },
    }),
  );
  const merged = await client.patch(withSidecar, strategicMergeFrom(d));
  assert.deepEqual(
    merged.spec?.template.spec?.containers.map((c) => [c.name, c.image]),
    [
      ["main", "nginx:2"],
      ["sidecar", "busybox"],
    ],
  );

  const cr = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: ns } };
  assert.throws(
    () => strategicMergeFrom(cr).data({ ...cr, metadata: { ...cr.metadata, labels: {} } }),
    /not a built-in kind/,
  );
});

test("apply patches need a field owner", async () => {
  const ns = await newNamespace(rest, "applyowner");
  await assert.rejects(
    client.apply({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: ns } }),
    FieldOwnerRequiredError,
  );
  const applied = await client.apply<ConfigMap>(
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: ns }, data: { x: "1" } },
    { fieldOwner: "applier" },
  );
  assert.deepEqual(applied.data, { x: "1" });
});

test("delete honours preconditions, dryRun and propagationPolicy Orphan", async () => {
  const ns = await newNamespace(rest, "delete");
  const cm = await client.create(configMap(ns, "p"));
  await assert.rejects(client.delete(cm, { preconditions: { uid: "not-the-uid" } }), isConflict);
  await client.delete(cm, { dryRun: true });
  await client.get(kinds.ConfigMap, { namespace: ns, name: "p" });
  const { uid, resourceVersion } = cm.metadata ?? {};
  await client.delete(cm, { preconditions: { uid, resourceVersion }, gracePeriodSeconds: 0 });
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "p" }), isNotFound);

  const owner = await client.create(configMap(ns, "owner"));
  const child = configMap(ns, "child");
  child.metadata!.ownerReferences = [
    { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata!.uid! },
  ];
  await client.create(child);
  await client.delete(owner, { propagationPolicy: "Orphan" });
  // No garbage collector runs in envtest (as with a real kube-apiserver without a controller
  // manager): the owner waits on the "orphan" finalizer, which shows the policy reached the server.
  const deleting = await client.get(kinds.ConfigMap, { namespace: ns, name: "owner" });
  assert.ok(deleting.metadata?.deletionTimestamp);
  assert.deepEqual(deleting.metadata?.finalizers, ["orphan"]);
  assert.ok(await client.get(kinds.ConfigMap, { namespace: ns, name: "child" }));

  const fg = await client.create(configMap(ns, "foreground"));
  await client.delete(fg, { propagationPolicy: "Foreground" });
  const fgDeleting = await client.get(kinds.ConfigMap, { namespace: ns, name: "foreground" });
  assert.deepEqual(fgDeleting.metadata?.finalizers, ["foregroundDeletion"]);
});

test("deleteAllOf deletes what the label selector selects, in one namespace", async () => {
  const ns = await newNamespace(rest, "delall");
  const other = await newNamespace(rest, "delall-other");
  for (const [name, tier] of [
    ["a", "x"],
    ["b", "x"],
    ["c", "y"],
  ] as const) {
    const cm = configMap(ns, name);
    cm.metadata!.labels = { tier };
    await client.create(cm);
    await client.create({ ...cm, metadata: { ...cm.metadata, namespace: other } });
  }
  await client.deleteAllOf(kinds.ConfigMap, { inNamespace: ns, matchingLabels: { tier: "x" } });
  const left = await client.list(kinds.ConfigMap, { inNamespace: ns, labelSelector: "tier" });
  assert.deepEqual(
    left.items.map((c) => c.metadata?.name),
    ["c"],
  );
  const untouched = await client.list(kinds.ConfigMap, { inNamespace: other, labelSelector: "tier" });
  assert.equal(untouched.items.length, 3);
  await client.deleteAllOf(kinds.ConfigMap, {
    inNamespace: other,
    labelSelector: "tier in (x,y)",
    dryRun: true,
  });
  assert.equal(
    (await client.list(kinds.ConfigMap, { inNamespace: other, labelSelector: "tier" })).items.length,
    3,
  );
});

test("cluster-scoped kinds ignore namespaces", async () => {
  const name = `ns-${Date.now().toString(36)}`;
  const created = await client.create<KubeObject>({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name },
  });
  const got = await client.get(kinds.Namespace, { name });
  assert.equal(got.metadata?.uid, created.metadata?.uid);
  assert.equal(await client.isObjectNamespaced(got), false);
  const listed = await client.list(kinds.Namespace, { matchingFields: { "metadata.name": name } });
  assert.equal(listed.items.length, 1);
  await client.delete(got);
});

test('subResource("scale") reads and writes a Scale', async () => {
  const ns = await newNamespace(rest, "sub");
  const d = await client.create(deployment(ns, "scaled", 2));
  const scale = await client
    .subResource("scale")
    .get<{ apiVersion: string; kind: string; spec?: { replicas?: number } }>(d);
  assert.equal(scale.kind, "Scale");
  assert.equal(scale.spec?.replicas, 2);
  const rescaled = await client
    .subResource("scale")
    .update(d, { body: { ...scale, spec: { replicas: 5 } } as never });
  assert.equal((rescaled as { spec?: { replicas?: number } }).spec?.replicas, 5);
  assert.equal((await client.get(kinds.Deployment, { namespace: ns, name: "scaled" })).spec?.replicas, 5);
});

test('subResource("eviction").create evicts a pod when the server serves evictions', async (t) => {
  const ns = await newNamespace(rest, "evict");
  const pod = await client.create<Pod>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "evictee", namespace: ns },
    spec: { containers: [{ name: "main", image: "busybox" }] },
  });
  const eviction = {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "evictee", namespace: ns },
  };
  try {
    await client.subResource("eviction").create(pod, eviction);
  } catch (err) {
    if (isNotFound(err) || (err instanceof StatusError && err.status.code === 405)) {
      t.skip("this API server does not serve pods/eviction");
      return;
    }
    throw err;
  }
  await until("the evicted pod is gone", async () =>
    client.get(kinds.Pod, { namespace: ns, name: "evictee" }).then(
      (p) => p.metadata?.deletionTimestamp !== undefined,
      (e) => isNotFound(e),
    ),
  );
});

test("newAPIReader reads from the server; invalid objects are the server's 422", async () => {
  const ns = await newNamespace(rest, "reader");
  const reader = newAPIReader(config);
  try {
    await client.create(configMap(ns, "r", { a: "1" }));
    assert.deepEqual((await reader.get(kinds.ConfigMap, { namespace: ns, name: "r" })).data, { a: "1" });
    assert.equal((await reader.list(kinds.ConfigMap, { inNamespace: ns })).items.length >= 1, true);
  } finally {
    await reader.close();
  }
  await assert.rejects(client.create(configMap(ns, "Not_Valid")), isInvalid);
});

test("an aborted signal stops reads and writes before anything is written", async () => {
  const ns = await newNamespace(rest, "abort");
  const aborted = AbortSignal.abort(new Error("stop"));
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "x" }, { signal: aborted }));
  await assert.rejects(client.list(kinds.ConfigMap, { inNamespace: ns, signal: aborted }));
  await assert.rejects(client.create(configMap(ns, "x"), { signal: aborted }));
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "x" }), isNotFound);
});

test("metadata-only kinds read PartialObjectMetadata that still say their kind", async () => {
  const ns = await newNamespace(rest, "meta");
  await client.create(configMap(ns, "m", { big: "value" }));
  const meta = await client.get(metadataOnly(kinds.ConfigMap), { namespace: ns, name: "m" });
  assert.equal(meta.metadata.name, "m");
  assert.equal(meta.kind, "ConfigMap");
  assert.equal((meta as { data?: unknown }).data, undefined);
  const list = await client.list(metadataOnly(kinds.ConfigMap), { inNamespace: ns });
  assert.deepEqual(
    list.items.filter((i) => i.metadata.name === "m").map((i) => [i.kind, (i as { data?: unknown }).data]),
    [["ConfigMap", undefined]],
  );
});
