// The Cache against the embedded API server: get and list with namespaces, labels, indexed
// fields and pages; NotFound shaped as the server's; the errors that say what to do; shared
// informers; metadata-only reads; a CRD kind; and that no reader can change what the next sees.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { ConfigMap, Secret } from "kubernetes-types/core/v1.js";
import { defineKind, kinds, type KubeObject } from "../api/index.js";
import { newRESTClient, isNotFound, type RESTClient, resourceOf, StatusError } from "../rest/index.js";
import { type Cache, newCache } from "./cache.js";
import type { CacheOptions } from "./cache-options.js";
import { metadataOnly } from "./metadata-kind.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";
import type { RESTConfig } from "../rest/index.js";
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

/** Runs a started cache for the test's duration. */
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

const names = (list: { items: readonly KubeObject[] }) => list.items.map((o) => o.metadata?.name).sort();

test("get returns the object; a missing one is the server's NotFound", async () => {
  const ns = await newNamespace(rest, "cache");
  await rest.create(CM, configMap(ns, "there", { k: "v" }), { namespace: ns });
  await withCache({}, async (cache) => {
    const obj = await cache.get(kinds.ConfigMap, { namespace: ns, name: "there" });
    assert.deepEqual(obj.data, { k: "v" });
    const err = await cache.get(kinds.ConfigMap, { namespace: ns, name: "missing" }).catch((e: unknown) => e);
    assert.ok(isNotFound(err));
    const direct = await rest.get(CM, "missing", { namespace: ns }).catch((e: unknown) => e);
    assert.ok(err instanceof StatusError && direct instanceof StatusError);
    assert.deepEqual(err.status, direct.status);
  });
});

test("list by namespace, matchingLabels and labelSelector", async () => {
  const ns1 = await newNamespace(rest, "cache");
  const ns2 = await newNamespace(rest, "cache");
  await rest.create(CM, configMap(ns1, "a", {}, { app: "web", tier: "1" }), { namespace: ns1 });
  await rest.create(CM, configMap(ns1, "b", {}, { app: "db" }), { namespace: ns1 });
  await rest.create(CM, configMap(ns2, "c", {}, { app: "web", tier: "2" }), { namespace: ns2 });
  await withCache({}, async (cache) => {
    assert.deepEqual(names(await cache.list(kinds.ConfigMap, { inNamespace: ns1 })), ["a", "b"]);
    assert.deepEqual(names(await cache.list(kinds.ConfigMap, { matchingLabels: { app: "web" } })), [
      "a",
      "c",
    ]);
    assert.deepEqual(
      names(await cache.list(kinds.ConfigMap, { inNamespace: ns2, matchingLabels: { app: "web" } })),
      ["c"],
    );
    assert.deepEqual(names(await cache.list(kinds.ConfigMap, { labelSelector: "app=web,tier notin (1)" })), [
      "c",
    ]);
    const list = await cache.list(kinds.ConfigMap, { inNamespace: ns1 });
    assert.equal(list.kind, "ConfigMapList");
    assert.equal(list.apiVersion, "v1");
    assert.match(list.metadata?.resourceVersion ?? "", /^\d+$/);
  });
});

test("matchingFields uses the registered index, per namespace and across namespaces, after changes", async () => {
  const ns1 = await newNamespace(rest, "cache");
  const ns2 = await newNamespace(rest, "cache");
  await rest.create(CM, configMap(ns1, "a", { owner: "x" }), { namespace: ns1 });
  await rest.create(CM, configMap(ns2, "b", { owner: "x" }), { namespace: ns2 });
  await withCache({}, async (cache) => {
    await cache.indexField(kinds.ConfigMap, "data.owner", (o) => (o.data?.owner ? [o.data.owner] : []));
    const byOwner = async (owner: string, inNamespace?: string) =>
      names(await cache.list(kinds.ConfigMap, { inNamespace, matchingFields: { "data.owner": owner } }));
    assert.deepEqual(await byOwner("x"), ["a", "b"]);
    assert.deepEqual(await byOwner("x", ns2), ["b"]);
    await rest.patch(CM, "a", { data: { owner: "y" } }, { namespace: ns1, patchType: "merge" });
    await until("a moved to y", async () => (await byOwner("y")).length === 1);
    assert.deepEqual(await byOwner("x"), ["b"]);
    await rest.delete(CM, "b", { namespace: ns2 });
    await until("b gone", async () => (await byOwner("x")).length === 0);
    // metadata.name and metadata.namespace need no index, and combine with indexed fields.
    assert.deepEqual(
      names(
        await cache.list(kinds.ConfigMap, { matchingFields: { "metadata.name": "a", "data.owner": "y" } }),
      ),
      ["a"],
    );
    assert.deepEqual(
      names(await cache.list(kinds.ConfigMap, { fieldSelector: `metadata.namespace=${ns1}` })),
      ["a"],
    );
  });
});

test("matchingFields without an index is refused with an error naming the field and indexField", async () => {
  const ns = await newNamespace(rest, "cache");
  await withCache({}, async (cache) => {
    await assert.rejects(
      cache.list(kinds.ConfigMap, { inNamespace: ns, matchingFields: { "data.x": "1" } }),
      {
        name: "IndexNotFoundError",
        message: /"data\.x".*indexField/,
      },
    );
    await assert.rejects(cache.list(kinds.ConfigMap, { fieldSelector: "metadata.name!=x" }), {
      name: "InvalidCacheListError",
    });
  });
});

test("limit and continue page through the cache in key order", async () => {
  const ns = await newNamespace(rest, "cache");
  for (const n of ["e", "a", "d", "b", "c"]) await rest.create(CM, configMap(ns, n), { namespace: ns });
  await withCache({}, async (cache) => {
    const seen: string[] = [];
    let cont: string | undefined;
    do {
      const page = await cache.list(kinds.ConfigMap, { inNamespace: ns, limit: 2, continue: cont });
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((o) => o.metadata?.name ?? ""));
      cont = page.metadata?.continue;
    } while (cont);
    assert.deepEqual(seen, ["a", "b", "c", "d", "e"]);
  });
});

test("mutating an object read from the cache throws and cannot change what the next reader sees", async () => {
  const ns = await newNamespace(rest, "cache");
  await rest.create(CM, configMap(ns, "x", { k: "v" }, { app: "a" }), { namespace: ns });
  await withCache({}, async (cache) => {
    const first = await cache.get(kinds.ConfigMap, { namespace: ns, name: "x" });
    assert.throws(() => {
      (first as ConfigMap).data = {};
    }, TypeError);
    assert.throws(() => {
      (first.metadata?.labels as Record<string, string>).app = "evil";
    }, TypeError);
    const listed = (await cache.list(kinds.ConfigMap, { inNamespace: ns })).items;
    assert.throws(() => {
      delete (listed[0].data as Record<string, string>).k;
    }, TypeError);
    // The list array itself is the caller's.
    listed.pop();
    const copy = structuredClone(first) as ConfigMap;
    copy.data = { k: "changed" };
    const next = await cache.get(kinds.ConfigMap, { namespace: ns, name: "x" });
    assert.deepEqual(next.data, { k: "v" });
    assert.deepEqual(next.metadata?.labels, { app: "a" });
    assert.equal((await cache.list(kinds.ConfigMap, { inNamespace: ns })).items.length, 1);
  });
});

test("reads before start fail clearly; the first read of a kind starts its informer and waits for sync", async () => {
  const ns = await newNamespace(rest, "cache");
  await rest.create(
    resourceOf(kinds.Secret),
    { metadata: { name: "s", namespace: ns }, stringData: { a: "b" } },
    {
      namespace: ns,
    },
  );
  const idle = newCache(config, { restClient: rest });
  await assert.rejects(idle.get(kinds.Secret, { namespace: ns, name: "s" }), {
    name: "CacheNotStartedError",
  });
  await withCache({}, async (cache) => {
    const secret = await cache.get<Secret>(kinds.Secret, { namespace: ns, name: "s" });
    assert.equal(secret.metadata?.name, "s");
    const informer = await cache.getInformer(kinds.Secret);
    assert.equal(informer, await cache.getInformer(kinds.Secret), "one informer per kind, shared");
    assert.equal(informer.hasSynced(), true);
    assert.equal(await cache.waitForCacheSync(AbortSignal.timeout(10_000)), true);
    assert.equal(cache.hasSynced(), true);
  });
});

test("readerFailOnMissingInformer refuses reads of kinds without an informer", async () => {
  const ns = await newNamespace(rest, "cache");
  await withCache({ readerFailOnMissingInformer: true }, async (cache) => {
    await assert.rejects(cache.list(kinds.ConfigMap, { inNamespace: ns }), {
      name: "ResourceNotCachedError",
      message: /getInformer/,
    });
    await cache.getInformer(kinds.ConfigMap);
    assert.deepEqual((await cache.list(kinds.ConfigMap, { inNamespace: ns })).items, []);
    assert.equal(cache.removeInformer(kinds.ConfigMap), true);
    await assert.rejects(cache.list(kinds.ConfigMap, { inNamespace: ns }), {
      name: "ResourceNotCachedError",
    });
  });
});

test("defaultNamespaces and byObject restrict what is cached; other namespaces are refused", async () => {
  const ns1 = await newNamespace(rest, "cache");
  const ns2 = await newNamespace(rest, "cache");
  for (const ns of [ns1, ns2]) {
    await rest.create(CM, configMap(ns, "web", {}, { app: "web" }), { namespace: ns });
    await rest.create(CM, configMap(ns, "db", {}, { app: "db" }), { namespace: ns });
  }
  await withCache(
    { defaultNamespaces: [ns1], byObject: [{ kind: kinds.ConfigMap, labelSelector: "app=web" }] },
    async (cache) => {
      assert.deepEqual(names(await cache.list(kinds.ConfigMap)), ["web"]);
      await assert.rejects(cache.list(kinds.ConfigMap, { inNamespace: ns2 }), {
        name: "UnknownNamespaceError",
        message: new RegExp(ns2),
      });
      await assert.rejects(cache.get(kinds.ConfigMap, { namespace: ns2, name: "web" }), {
        name: "UnknownNamespaceError",
      });
      assert.ok(isNotFound(await cache.get(kinds.ConfigMap, { namespace: ns1, name: "db" }).catch((e) => e)));
    },
  );
});

test("metadata-only reads: a separate informer that holds metadata only", async () => {
  const ns = await newNamespace(rest, "cache");
  await rest.create(CM, configMap(ns, "x", { big: "data" }, { app: "a" }), { namespace: ns });
  await withCache({}, async (cache) => {
    const meta = await cache.get(metadataOnly(kinds.ConfigMap), { namespace: ns, name: "x" });
    assert.deepEqual(meta.metadata.labels, { app: "a" });
    assert.equal((meta as { data?: unknown }).data, undefined);
    const full = await cache.get(kinds.ConfigMap, { namespace: ns, name: "x" });
    assert.deepEqual(full.data, { big: "data" });
    assert.notEqual(
      await cache.getInformer(metadataOnly(kinds.ConfigMap)),
      await cache.getInformer(kinds.ConfigMap),
    );
  });
});

test("a CRD kind defined at run time is cached like a built-in one; getInformerForKind discovers it", async () => {
  const ns = await newNamespace(rest, "cache");
  const group = `g${randomUUID().slice(0, 6)}.example.com`;
  await rest.create(resourceOf(kinds.CustomResourceDefinition), {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { kind: "Widget", plural: "widgets", singular: "widget" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
        },
      ],
    },
  });
  interface Widget extends KubeObject {
    spec?: { size?: number; color?: string };
  }
  const Widget = defineKind<Widget>({ group, version: "v1", kind: "Widget" });
  const widgets = resourceOf(Widget);
  await until("the CRD is served", async () =>
    rest.list(widgets, { namespace: ns }).then(
      () => true,
      () => false,
    ),
  );
  await rest.create(
    widgets,
    {
      apiVersion: `${group}/v1`,
      kind: "Widget",
      metadata: { name: "w1", namespace: ns },
      spec: { size: 3, color: "red" },
    },
    { namespace: ns },
  );
  await withCache({}, async (cache) => {
    await cache.indexField(Widget, "spec.color", (w) => (w.spec?.color ? [w.spec.color] : []));
    const w = await cache.get(Widget, { namespace: ns, name: "w1" });
    assert.equal(w.spec?.size, 3);
    assert.equal(w.kind, "Widget");
    assert.deepEqual(names(await cache.list(Widget, { matchingFields: { "spec.color": "red" } })), ["w1"]);
    await rest.create(
      widgets,
      {
        apiVersion: `${group}/v1`,
        kind: "Widget",
        metadata: { name: "w2", namespace: ns },
        spec: { color: "red" },
      },
      { namespace: ns },
    );
    await until("w2 cached", async () => (await cache.list(Widget, { inNamespace: ns })).items.length === 2);
    const byKind = await cache.getInformerForKind({ group, version: "v1", kind: "Widget" });
    assert.equal(byKind, await cache.getInformer(Widget), "the same informer");
    const other = await cache.getInformerForKind({ group: "apps", version: "v1", kind: "Deployment" });
    assert.equal(other.kind.plural, "deployments");
    await assert.rejects(cache.getInformerForKind({ group, version: "v1", kind: "Gizmo" }), {
      name: "NoKindMatchError",
    });
  });
});
