// controllerutil: owner references and finalizers (pure), and createOrUpdate / createOrPatch
// against the embedded API server, with a client reading from a cache (frozen objects) as a
// reconciler's does.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { type Cache, newCache, deepFreeze } from "../cache/index.js";
import { type Client, newClient } from "../client/index.js";
import { newNamespace } from "../../../../test/support/objects.js";
import type { RESTConfig } from "../rest/config.js";
import { newRESTClient, type RESTClient } from "../rest/index.js";
import {
  AlreadyOwnedError,
  addFinalizer,
  containsFinalizer,
  createOrPatch,
  createOrUpdate,
  getControllerOf,
  hasControllerReference,
  hasOwnerReference,
  InvalidOwnerError,
  MutatedKeyError,
  OwnerReferenceNotFoundError,
  removeControllerReference,
  removeFinalizer,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./index.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const owner = deepFreeze({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "owner", namespace: "ns", uid: "uid-owner" },
});
const other = deepFreeze({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "other", namespace: "ns", uid: "uid-other" },
});
const cm = deepFreeze<ConfigMap>({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "cm", namespace: "ns" },
});

test("setControllerReference adds one controller reference and refuses a second controller", () => {
  const owned = setControllerReference(owner, cm);
  assert.deepEqual(owned.metadata?.ownerReferences, [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "owner",
      uid: "uid-owner",
      blockOwnerDeletion: true,
      controller: true,
    },
  ]);
  assert.equal(cm.metadata?.ownerReferences, undefined, "the frozen argument is untouched");
  assert.ok(hasControllerReference(owned));
  assert.equal(getControllerOf(owned)?.name, "owner");
  assert.ok(hasOwnerReference(owned, owner));

  // Again with the same owner (another version, no blocking): updated, not duplicated.
  const again = setControllerReference({ ...owner, apiVersion: "apps/v1beta1" }, owned, {
    blockOwnerDeletion: false,
  });
  assert.equal(again.metadata?.ownerReferences?.length, 1);
  assert.equal(again.metadata?.ownerReferences?.[0]?.blockOwnerDeletion, false);

  assert.throws(
    () => setControllerReference(other, owned),
    (err: unknown) => {
      assert.ok(err instanceof AlreadyOwnedError);
      assert.equal(err.owner.name, "owner");
      assert.match(err.message, /Object ns\/cm is already owned by another Deployment controller owner/);
      return true;
    },
  );
  // A non-controlling owner alongside the controller is fine.
  const both = setOwnerReference(other, owned);
  assert.deepEqual(
    both.metadata?.ownerReferences?.map((r) => [r.name, r.controller]),
    [
      ["owner", true],
      ["other", undefined],
    ],
  );
  const removed = removeOwnerReference(owner, both);
  assert.deepEqual(
    removed.metadata?.ownerReferences?.map((r) => r.name),
    ["other"],
  );
  assert.equal(hasControllerReference(removed), false);
  assert.equal(hasOwnerReference(removed, owner), false);
  assert.throws(() => removeOwnerReference(owner, removed), OwnerReferenceNotFoundError);
  assert.equal(removeOwnerReference(other, removed).metadata?.ownerReferences, undefined);
});

test("owner references never cross namespaces, nor point from cluster-scoped objects to namespaced owners", () => {
  const elsewhere = { ...cm, metadata: { ...cm.metadata, namespace: "elsewhere" } };
  assert.throws(() => setControllerReference(owner, elsewhere), InvalidOwnerError);
  assert.throws(() => setOwnerReference(owner, elsewhere), /cross-namespace owner references are disallowed/);
  const clusterScoped = { apiVersion: "v1", kind: "Namespace", metadata: { name: "n", uid: "uid-n" } };
  assert.throws(
    () => setOwnerReference(owner, clusterScoped),
    /cluster-scoped resource must not have a namespace-scoped owner/,
  );
  // A cluster-scoped owner may own namespaced and cluster-scoped objects.
  assert.equal(setControllerReference(clusterScoped, cm).metadata?.ownerReferences?.[0]?.kind, "Namespace");
  assert.throws(() => setOwnerReference({ metadata: { name: "x", uid: "u" } }, cm), /no apiVersion or kind/);
  assert.throws(
    () => setOwnerReference({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x" } }, cm),
    /metadata.uid/,
  );
});

test("removeControllerReference removes only the controller's reference, and says why it cannot", () => {
  const owned = setOwnerReference(other, setControllerReference(owner, cm));
  const removed = removeControllerReference(owner, owned);
  assert.deepEqual(
    removed.metadata?.ownerReferences?.map((r) => r.name),
    ["other"],
  );
  assert.equal(owned.metadata?.ownerReferences?.length, 2, "the argument is left alone");
  assert.throws(
    () => removeControllerReference(owner, removed),
    /does not have an owner reference with controller/,
  );
  assert.throws(
    () => removeControllerReference(other, owned),
    /Deployment other is not the controller reference/,
  );
  const stranger = { ...owner, metadata: { ...owner.metadata, name: "stranger" } };
  assert.throws(() => removeControllerReference(stranger, owned), OwnerReferenceNotFoundError);
  // As Go: matching needs no uid.
  const noUid = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "owner" } };
  assert.equal(hasOwnerReference(owned, noUid), true);
});

test("setOwnerReference takes blockOwnerDeletion and controller, as Go's OwnerReferenceOptions", () => {
  const plain = setOwnerReference(owner, cm);
  assert.deepEqual(plain.metadata?.ownerReferences?.[0], {
    apiVersion: "apps/v1",
    kind: "Deployment",
    name: "owner",
    uid: "uid-owner",
  });
  const blocking = setOwnerReference(owner, plain, { blockOwnerDeletion: true, controller: false });
  assert.deepEqual(
    blocking.metadata?.ownerReferences?.map((r) => [r.blockOwnerDeletion, r.controller]),
    [[true, false]],
  );
});

test("finalizers: add and remove return copies only when something changes", () => {
  const withF = addFinalizer(cm, "example.com/cleanup");
  assert.notEqual(withF, cm);
  assert.ok(containsFinalizer(withF, "example.com/cleanup"));
  assert.equal(containsFinalizer(cm, "example.com/cleanup"), false);
  assert.equal(addFinalizer(withF, "example.com/cleanup"), withF, "already there: the same object");
  const two = addFinalizer(withF, "other");
  assert.deepEqual(two.metadata?.finalizers, ["example.com/cleanup", "other"]);
  const one = removeFinalizer(two, "example.com/cleanup");
  assert.deepEqual(one.metadata?.finalizers, ["other"]);
  assert.equal(removeFinalizer(one, "absent"), one);
  assert.equal(removeFinalizer(one, "other").metadata?.finalizers, undefined);
});

const env = testEnvironment();
const stop = new AbortController();
let config: RESTConfig;
let rest: RESTClient;
let cache: Cache;
let cacheDone: Promise<void>;
let client: Client;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  cache = newCache(config);
  cacheDone = cache.start(stop.signal);
  // Reads from the server: createOrUpdate's result must not depend on how fast the cache follows.
  client = newClient(config);
});

after(async () => {
  stop.abort();
  await cacheDone;
  await client.close();
  await rest.close();
  await env.stop();
});

test("createOrUpdate: created, then unchanged, then updated; mutate gets a mutable copy", async () => {
  const ns = await newNamespace(rest, "cou");
  const key = { namespace: ns, name: "settings" };
  const want = (v: string) => (obj: ConfigMap) => {
    obj.data = { ...obj.data, v };
  };
  const first = await createOrUpdate(client, kinds.ConfigMap, key, want("1"));
  assert.equal(first.result, "created");
  assert.deepEqual(first.object.data, { v: "1" });
  assert.equal((await createOrUpdate(client, kinds.ConfigMap, key, want("1"))).result, "unchanged");
  const noop = await createOrUpdate(client, kinds.ConfigMap, key, (obj) => {
    obj.binaryData = undefined; // absent before, absent on the wire: no change
  });
  assert.equal(noop.result, "unchanged");
  const third = await createOrUpdate(client, kinds.ConfigMap, key, want("2"));
  assert.equal(third.result, "updated");
  assert.deepEqual(third.object.data, { v: "2" });

  // Through a cache-backed client, mutate still gets a copy it may change.
  const cached = newClient(config, { cache });
  try {
    await cache.getInformer(kinds.ConfigMap);
    const viaCache = await createOrUpdate(
      cached,
      kinds.ConfigMap,
      { namespace: ns, name: "fresh" },
      want("x"),
    );
    assert.equal(viaCache.result, "created");
  } finally {
    await cached.close();
  }

  await assert.rejects(
    createOrUpdate(client, kinds.ConfigMap, key, (obj) => {
      obj.metadata!.name = "renamed";
    }),
    MutatedKeyError,
  );
});

test("createOrUpdate: mutate may return a replacement, e.g. with a controller reference", async () => {
  const ns = await newNamespace(rest, "couref");
  const parent = await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "parent", namespace: ns },
  });
  const res = await createOrUpdate(client, kinds.ConfigMap, { namespace: ns, name: "child" }, (obj) =>
    addFinalizer(setControllerReference(parent, obj), "example.com/f"),
  );
  assert.equal(res.result, "created");
  assert.equal(getControllerOf(res.object)?.uid, parent.metadata?.uid);
  assert.deepEqual(res.object.metadata?.finalizers, ["example.com/f"]);
  const again = await createOrUpdate(client, kinds.ConfigMap, { namespace: ns, name: "child" }, (obj) =>
    addFinalizer(setControllerReference(parent, obj), "example.com/f"),
  );
  assert.equal(again.result, "unchanged");
  const removed = await createOrUpdate(client, kinds.ConfigMap, { namespace: ns, name: "child" }, (obj) =>
    removeFinalizer(obj, "example.com/f"),
  );
  assert.equal(removed.result, "updated");
  assert.equal(removed.object.metadata?.finalizers, undefined);
});

test("createOrPatch: created, unchanged, updated, updatedStatus, updatedStatusOnly", async () => {
  const ns = await newNamespace(rest, "cop");
  const key = { namespace: ns, name: "web" };
  // Set only the fields this controller cares about: replacing the whole spec would drop the
  // server's defaults and count as a change every time.
  const spec = (replicas: number) => (d: Deployment) => {
    if (d.spec) {
      d.spec.replicas = replicas;
      return;
    }
    d.spec = {
      replicas,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { containers: [{ name: "main", image: "nginx:1" }] },
      },
    };
  };
  const created = await createOrPatch(client, kinds.Deployment, key, spec(1));
  assert.equal(created.result, "created");
  assert.equal((await createOrPatch(client, kinds.Deployment, key, spec(1))).result, "unchanged");

  const updated = await createOrPatch(client, kinds.Deployment, key, spec(2));
  assert.equal(updated.result, "updated");
  assert.equal(updated.object.spec?.replicas, 2);

  const both = await createOrPatch(client, kinds.Deployment, key, (d) => {
    spec(3)(d);
    d.status = { ...d.status, observedGeneration: 42 };
  });
  assert.equal(both.result, "updatedStatus");
  assert.equal(both.object.spec?.replicas, 3);
  assert.equal(both.object.status?.observedGeneration, 42);

  const statusOnly = await createOrPatch(client, kinds.Deployment, key, (d) => {
    d.status = { ...d.status, observedGeneration: 43 };
  });
  assert.equal(statusOnly.result, "updatedStatusOnly");
  const read = await client.get(kinds.Deployment, key);
  assert.equal(read.status?.observedGeneration, 43);
  assert.equal(read.spec?.replicas, 3);

  await assert.rejects(
    createOrPatch(client, kinds.Deployment, key, (d) => {
      d.metadata!.namespace = "default";
    }),
    MutatedKeyError,
  );
});

test("owner references made with options, and removed, are what the server stores", async () => {
  const ns = await newNamespace(rest, "owners");
  const parent = await client.create<ConfigMap>({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "parent", namespace: ns },
  });
  const child: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "child", namespace: ns },
  };
  const created = await client.create(
    setOwnerReference(parent, child, { blockOwnerDeletion: true, controller: true }),
  );
  assert.deepEqual(created.metadata?.ownerReferences, [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "parent",
      uid: parent.metadata?.uid,
      blockOwnerDeletion: true,
      controller: true,
    },
  ]);
  const released = await client.update(removeControllerReference(parent, created));
  assert.equal(released.metadata?.ownerReferences, undefined);
});
