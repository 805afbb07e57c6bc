// Settings per namespace (controller-runtime's DefaultNamespaces map and ByObject.Namespaces)
// against the API server: each namespace listed and watched with its own selectors and
// transform, the "all other namespaces" entry watching the rest through a field selector that
// leaves the named ones out, resync periods per namespace, and a relist of one scope that leaves
// the others' objects alone.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds, type KubeObject } from "../api/index.js";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import type { RESTConfig } from "../rest/index.js";
import { type Cache, newCache } from "./cache.js";
import type { CacheOptions } from "./cache-options.js";
import { ALL_OTHER_NAMESPACES } from "./namespaces.js";
import { IndexedStore } from "./store.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const CM = resourceOf(kinds.ConfigMap);
const env = testEnvironment();
let config: RESTConfig;
let rest: RESTClient;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
});
after(async () => {
  await rest.close();
  await env.stop();
});

async function withCache(opts: CacheOptions, fn: (cache: Cache) => Promise<void>): Promise<void> {
  const cache = newCache(config, { restClient: rest, ...opts });
  const stop = new AbortController();
  const done = cache.start(stop.signal);
  try {
    await fn(cache);
  } finally {
    stop.abort();
    await done;
  }
}

const keys = (list: { items: readonly KubeObject[] }) =>
  list.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

test("each namespace is cached with its own selector and transform; the others' entry caches the rest", async () => {
  // The test's label keeps the all-other-namespaces watch to this test's objects on a shared server.
  const run = { run: randomUUID().slice(0, 8) };
  const [picky, plain, other] = await Promise.all(
    ["picky", "plain", "other"].map((p) => newNamespace(rest, p)),
  );
  for (const ns of [picky, plain, other]) {
    await rest.create(CM, configMap(ns, "a", {}, { ...run, app: "a" }), { namespace: ns });
    await rest.create(CM, configMap(ns, "b", {}, { ...run, app: "b" }), { namespace: ns });
  }
  const marked = (obj: KubeObject) => ({
    ...obj,
    metadata: { ...obj.metadata, annotations: { ...obj.metadata?.annotations, seen: "plain" } },
  });
  await withCache(
    {
      defaultLabelSelector: `run=${run.run}`,
      defaultNamespaces: {
        [picky]: { labelSelector: `run=${run.run},app=a` },
        [plain]: { transform: marked },
        [ALL_OTHER_NAMESPACES]: {},
      },
    },
    async (cache) => {
      const all = await cache.list(kinds.ConfigMap);
      assert.deepEqual(
        keys(all),
        [`${other}/a`, `${other}/b`, `${picky}/a`, `${plain}/a`, `${plain}/b`].sort(),
      );
      const inPlain = await cache.get<ConfigMap>(kinds.ConfigMap, { namespace: plain, name: "b" });
      assert.equal(inPlain.metadata?.annotations?.seen, "plain");
      const inOther = await cache.get<ConfigMap>(kinds.ConfigMap, { namespace: other, name: "b" });
      assert.equal(inOther.metadata?.annotations?.seen, undefined);
      // Any namespace is readable: the others' entry watches all of them.
      const elsewhere = await newNamespace(rest, "elsewhere");
      await rest.create(CM, configMap(elsewhere, "late", {}, run), { namespace: elsewhere });
      await until("the late object in an unnamed namespace", async () =>
        keys(await cache.list(kinds.ConfigMap, { inNamespace: elsewhere })).includes(`${elsewhere}/late`),
      );
      // Changes go where their namespace's settings say.
      await rest.patch(
        CM,
        "b",
        { metadata: { labels: { app: "a" } } },
        { namespace: picky, patchType: "merge" },
      );
      await rest.delete(CM, "a", { namespace: other });
      await until("picky/b selected, other/a gone", async () => {
        const now = keys(await cache.list(kinds.ConfigMap));
        return now.includes(`${picky}/b`) && !now.includes(`${other}/a`);
      });
      const informer = await cache.getInformer(kinds.ConfigMap);
      assert.deepEqual(informer.namespaces, [], "every namespace is readable");
      assert.equal(String(informer.labelSelectorOf(picky)), `app=a,run=${run.run}`);
      assert.equal(String(informer.labelSelectorOf(other)), `run=${run.run}`);
    },
  );
});

test("byObject namespaces restrict one kind; the others keep the cache's", async () => {
  const [one, two] = await Promise.all(["one", "two"].map((p) => newNamespace(rest, p)));
  for (const ns of [one, two]) {
    await rest.create(CM, configMap(ns, "cm", {}, { app: "x" }), { namespace: ns });
    await rest.create(
      resourceOf(kinds.Secret),
      { metadata: { name: "s", namespace: ns } },
      { namespace: ns },
    );
  }
  await withCache(
    {
      defaultNamespaces: [one, two],
      byObject: [{ kind: kinds.ConfigMap, namespaces: { [two]: { labelSelector: "app=x" } } }],
    },
    async (cache) => {
      assert.deepEqual(keys(await cache.list(kinds.ConfigMap)), [`${two}/cm`]);
      await assert.rejects(cache.get(kinds.ConfigMap, { namespace: one, name: "cm" }), {
        name: "UnknownNamespaceError",
        message: new RegExp(`ConfigMap in namespace "${one}".*"${two}"`),
      });
      assert.deepEqual(keys(await cache.list(kinds.Secret)), [`${one}/s`, `${two}/s`]);
    },
  );
});

test("a namespace's resync period is its own", async () => {
  const [fast, slow] = await Promise.all(["fast", "slow"].map((p) => newNamespace(rest, p)));
  await rest.create(CM, configMap(fast, "cm"), { namespace: fast });
  await rest.create(CM, configMap(slow, "cm"), { namespace: slow });
  await withCache({ defaultNamespaces: { [fast]: { syncPeriodMs: 50 }, [slow]: {} } }, async (cache) => {
    const informer = await cache.getInformer(kinds.ConfigMap);
    const resyncs = new Map<string, number>();
    informer.addEventHandler({
      onUpdate: (old, obj) => {
        if (old !== obj) return; // a resync replays the stored object as its own update
        const ns = obj.metadata?.namespace ?? "";
        resyncs.set(ns, (resyncs.get(ns) ?? 0) + 1);
      },
    });
    await until("the fast namespace resynced twice", () => (resyncs.get(fast) ?? 0) >= 2);
    assert.equal(resyncs.get(slow), undefined, "the slow namespace keeps the 10 h default");
  });
});

test("a relist of the others' scope replaces its objects only, not those of the named namespaces", () => {
  const store = new IndexedStore<ConfigMap>();
  const cm = (ns: string, name: string, rv = "1"): ConfigMap => ({
    metadata: { namespace: ns, name, resourceVersion: rv },
  });
  store.replace([cm("named", "x")], "named");
  store.replace([cm("a", "y"), cm("b", "z")], undefined, new Set(["named"]));
  const changes = store.replace([cm("a", "y", "2")], undefined, new Set(["named"]));
  assert.deepEqual(
    changes.deleted.map(([key]) => key),
    ["b/z"],
  );
  assert.equal(changes.updated.length, 1);
  assert.ok(store.getIn("named", "x"), "the named namespace's object stays");
});
