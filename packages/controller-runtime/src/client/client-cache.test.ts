// The Client with a cache: reads of cached kinds come from the informers (frozen objects), kinds
// in cacheDisableFor and the API reader from the server; writes go to the server and never touch
// the cached objects.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { deepCopy, kinds } from "../api/index.js";
import { removeFinalizer } from "../controllerutil/index.js";
import { type Cache, newCache, type Reader } from "../cache/index.js";
import type { RESTConfig } from "../rest/config.js";
import { newRESTClient, isNotFound, type RESTClient, resourceOf } from "../rest/index.js";
import { type Client, mergeFrom, newAPIReader, newClient } from "./index.js";
import { newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import type { DeepReadonly } from "../api/index.js";

const env = testEnvironment();
const stop = new AbortController();
let config: RESTConfig;
let rest: RESTClient;
let cache: Cache;
let cacheDone: Promise<void>;
let client: Client;

// Only ConfigMaps labelled cached=yes reach the cache: any object without the label is visible
// through the server and never through the cache, which proves where a read came from.
before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  cache = newCache(config, {
    byObject: [{ kind: kinds.ConfigMap, labelSelector: "cached=yes" }],
  });
  cacheDone = cache.start(stop.signal);
  client = newClient(config, { cache, cacheDisableFor: [kinds.Secret] });
  const asReader: Reader = client; // a Client serves wherever a cache Reader is expected
  assert.ok(asReader);
});

after(async () => {
  stop.abort();
  await cacheDone;
  await client.close();
  await rest.close();
  await env.stop();
});

function configMap(namespace: string, name: string, data: Record<string, string>, cached = true): ConfigMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels: cached ? { cached: "yes" } : {} },
    data,
  };
}

/** Resolves with the object once the ConfigMap informer has seen `name` in state `pred`. */
async function informerSees(
  namespace: string,
  name: string,
  pred: (cm: DeepReadonly<ConfigMap>) => boolean,
): Promise<void> {
  const informer = await cache.getInformer(kinds.ConfigMap);
  await new Promise<void>((resolve) => {
    // addEventHandler replays the stored objects before it returns: a match found then has no
    // registration to remove yet.
    let seen = false;
    let reg: { remove(): void } | undefined;
    const check = (cm: DeepReadonly<ConfigMap>) => {
      if (seen || cm.metadata?.namespace !== namespace || cm.metadata?.name !== name || !pred(cm)) return;
      seen = true;
      reg?.remove();
      resolve();
    };
    reg = informer.addEventHandler({ onAdd: check, onUpdate: (_, cm) => check(cm) });
    if (seen) reg.remove();
  });
}

test("reads come from the cache: an object appears through the client once the informer saw it", async () => {
  const ns = await newNamespace(rest, "cached");
  // Start the informer with a first read.
  assert.deepEqual((await client.list(kinds.ConfigMap, { inNamespace: ns })).items, []);

  const seen = informerSees(ns, "a", (cm) => cm.data?.v === "1");
  await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "a", { v: "1" }));
  await seen;
  const got = await client.get(kinds.ConfigMap, { namespace: ns, name: "a" });
  assert.equal(got.data?.v, "1");
  assert.ok(Object.isFrozen(got), "cached objects are frozen");

  const updated = informerSees(ns, "a", (cm) => cm.data?.v === "2");
  await rest.patch(
    resourceOf(kinds.ConfigMap),
    "a",
    { data: { v: "2" } },
    { namespace: ns, patchType: "merge" },
  );
  await updated;
  assert.equal((await client.get(kinds.ConfigMap, { namespace: ns, name: "a" })).data?.v, "2");

  // Not selected by the cache: the server has it, the cached client does not.
  await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "invisible", { v: "1" }, false));
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "invisible" }), isNotFound);
  const reader = newAPIReader(config);
  try {
    const direct = await reader.get(kinds.ConfigMap, { namespace: ns, name: "invisible" });
    assert.equal(direct.data?.v, "1");
    assert.equal(Object.isFrozen(direct), false);
  } finally {
    await reader.close();
  }
});

test("cached lists honour namespace, labels and pages", async () => {
  const ns = await newNamespace(rest, "cachedlist");
  await client.list(kinds.ConfigMap, { inNamespace: ns });
  const last = informerSees(ns, "c", () => true);
  for (const name of ["a", "b", "c"]) {
    const cm = configMap(ns, name, {});
    cm.metadata!.labels!.name = name;
    await client.create(cm);
  }
  await last;
  const list = await client.list(kinds.ConfigMap, { inNamespace: ns });
  assert.deepEqual(list.items.map((c) => c.metadata?.name).sort(), ["a", "b", "c"]);
  const one = await client.list(kinds.ConfigMap, { inNamespace: ns, matchingLabels: { name: "b" } });
  assert.deepEqual(
    one.items.map((c) => c.metadata?.name),
    ["b"],
  );
  const page = await client.list(kinds.ConfigMap, { inNamespace: ns, limit: 2 });
  assert.equal(page.items.length, 2);
  const next = await client.list(kinds.ConfigMap, {
    inNamespace: ns,
    limit: 2,
    continue: page.metadata?.continue,
  });
  assert.deepEqual(
    next.items.map((c) => c.metadata?.name),
    ["c"],
  );
});

test("cacheDisableFor reads straight from the server", async () => {
  const ns = await newNamespace(rest, "disabled");
  await rest.create(resourceOf(kinds.Secret), {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "s", namespace: ns },
    stringData: { k: "v" },
  });
  // No wait: the read goes to the server, which has it at once.
  const secret = await client.get(kinds.Secret, { namespace: ns, name: "s" });
  assert.equal(secret.metadata?.name, "s");
  assert.equal(Object.isFrozen(secret), false);
  assert.equal((await client.list(kinds.Secret, { inNamespace: ns })).items.length, 1);
});

test("mutating a cached object throws and does not change the next read; writes leave it alone", async () => {
  const ns = await newNamespace(rest, "frozen");
  await client.list(kinds.ConfigMap, { inNamespace: ns });
  const seen = informerSees(ns, "f", () => true);
  await client.create(configMap(ns, "f", { v: "1" }));
  await seen;
  const cached = await client.get(kinds.ConfigMap, { namespace: ns, name: "f" });
  assert.throws(() => {
    (cached.data as Record<string, string>).v = "changed";
  }, TypeError);
  assert.throws(() => {
    (cached as ConfigMap).data = {};
  }, TypeError);
  assert.equal((await client.get(kinds.ConfigMap, { namespace: ns, name: "f" })).data?.v, "1");

  // Writing from a cached object: copies go to the server, the cached object stays as it was.
  const next = { ...cached, data: { v: "2" } };
  const patched = await client.patch(next, mergeFrom(cached));
  assert.equal(patched.data?.v, "2");
  const updated = await client.update({ ...patched, data: { v: "3" } });
  assert.equal(updated.data?.v, "3");
  assert.equal(cached.data?.v, "1");
  assert.ok(Object.isFrozen(cached));
});

test("a cached object is readonly at every depth, in its type and at run time; writes take it as it is", async () => {
  const ns = await newNamespace(rest, "readonly");
  await client.create(configMap(ns, "ro", { a: "1" }));
  await informerSees(ns, "ro", () => true);
  const key = { namespace: ns, name: "ro" };
  const cm = await client.get(kinds.ConfigMap, key);
  assert.throws(() => {
    // @ts-expect-error a nested field of a cached object is readonly
    cm.metadata!.labels!.cached = "no";
  }, TypeError);
  // @ts-expect-error its arrays are readonly too
  const finalizers: string[] = cm.metadata?.finalizers ?? [];
  assert.deepEqual(finalizers, []);

  // A copy is mutable; a write takes the copy, the cached object, or a spread of it.
  const copy = deepCopy(cm);
  copy.data = { a: "2" };
  copy.metadata!.finalizers = ["example.com/keep"];
  const written = await client.update(copy);
  assert.equal(written.data?.a, "2");
  await informerSees(ns, "ro", (c) => c.data?.a === "2");
  const cached = await client.get(kinds.ConfigMap, key);
  const spread = await client.update<ConfigMap>({ ...cached, data: { a: "3" } });
  assert.equal(spread.data?.a, "3");
  await informerSees(ns, "ro", (c) => c.data?.a === "3");
  const released = await client.update(
    removeFinalizer(await client.get(kinds.ConfigMap, key), "example.com/keep"),
  );
  assert.equal(released.metadata?.finalizers, undefined);
});
