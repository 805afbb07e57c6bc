// The informer against the embedded API server: handlers see every change in order, updates carry
// the old object, resync replays, late handlers catch up, a throwing handler harms nothing;
// indexes follow creates, updates and deletes; selectors, namespaces, transforms and
// metadata-only informers restrict and shape what is stored.
import type { DeepReadonly } from "../api/index.js";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds, type KubeObject } from "../api/index.js";
import type { KeyValues, Logger } from "../log/index.js";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { DeletedFinalStateUnknown, type ResourceEventHandler } from "./event-handler.js";
import { indexByFieldAndNamespace } from "./field-index.js";
import { type Informer, type InformerOptions, newInformer } from "./informer.js";
import { NAMESPACE_INDEX } from "./store.js";
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

/** Runs an informer for the test's duration. */
async function running<T extends KubeObject>(
  informer: Informer<T>,
  fn: (informer: Informer<T>) => Promise<void>,
): Promise<void> {
  const stop = new AbortController();
  const done = informer.run(stop.signal);
  try {
    assert.equal(await informer.waitForSync(AbortSignal.timeout(15_000)), true, "synced");
    await fn(informer);
  } finally {
    stop.abort();
    await done;
  }
}

function recorder(): { events: string[]; handler: ResourceEventHandler<ConfigMap> } {
  const events: string[] = [];
  return {
    events,
    handler: {
      onAdd: (o, initial) =>
        events.push(`add ${o.metadata?.name} ${o.data?.v ?? "-"}${initial ? " initial" : ""}`),
      onUpdate: (old, o) =>
        events.push(`update ${o.metadata?.name} ${old.data?.v ?? "-"}→${o.data?.v ?? "-"}`),
      onDelete: (o) =>
        events.push(
          o instanceof DeletedFinalStateUnknown
            ? `delete-unknown ${o.key}`
            : `delete ${o.metadata?.name} ${o.data?.v}`,
        ),
    },
  };
}

function informerIn(ns: string, opts: InformerOptions = {}): Informer<ConfigMap> {
  return newInformer(rest, kinds.ConfigMap, { namespaces: [ns], ...opts });
}

test("handlers see every change of an object in order, and updates carry the old object", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "first", { v: "0" }), { namespace: ns });
  const { events, handler } = recorder();
  const informer = informerIn(ns);
  informer.addEventHandler(handler);
  await running(informer, async () => {
    await rest.create(CM, configMap(ns, "obj", { v: "0" }), { namespace: ns });
    for (let v = 1; v <= 5; v++) {
      await rest.patch(CM, "obj", { data: { v: String(v) } }, { namespace: ns, patchType: "merge" });
    }
    await rest.delete(CM, "obj", { namespace: ns });
    await until("the delete arrived", () => events.some((e) => e.startsWith("delete obj")));
  });
  assert.deepEqual(events, [
    "add first 0 initial",
    "add obj 0",
    "update obj 0→1",
    "update obj 1→2",
    "update obj 2→3",
    "update obj 3→4",
    "update obj 4→5",
    "delete obj 5",
  ]);
});

test("resync replays every object to the handlers as an update with old === new", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "a"), { namespace: ns });
  await rest.create(CM, configMap(ns, "b"), { namespace: ns });
  const replays = new Map<string, number>();
  const informer = informerIn(ns, { syncPeriodMs: 20 });
  informer.addEventHandler({
    onUpdate(old, obj) {
      assert.equal(old, obj);
      const name = obj.metadata?.name ?? "";
      replays.set(name, (replays.get(name) ?? 0) + 1);
    },
  });
  await running(informer, async () => {
    await until("two resyncs", () => (replays.get("a") ?? 0) >= 2 && (replays.get("b") ?? 0) >= 2);
  });
});

test("a handler added late first gets the stored objects as adds, then the changes", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "a", { v: "1" }), { namespace: ns });
  const informer = informerIn(ns);
  await running(informer, async () => {
    const { events, handler } = recorder();
    const reg = informer.addEventHandler(handler);
    assert.deepEqual(events, ["add a 1 initial"]);
    assert.equal(reg.hasSynced(), true);
    await rest.create(CM, configMap(ns, "b", { v: "1" }), { namespace: ns });
    await until("b arrived", () => events.length === 2);
    reg.remove();
    assert.equal(reg.hasSynced(), false);
    await rest.create(CM, configMap(ns, "c"), { namespace: ns });
    await until("c is stored", () => informer.store.get(`${ns}/c`) !== undefined);
    assert.deepEqual(events, ["add a 1 initial", "add b 1"]);
  });
});

test("a throwing or rejecting handler is logged and harms neither the informer nor other handlers", async () => {
  const ns = await newNamespace(rest, "inf");
  const errors: string[] = [];
  const logger: Logger = {
    info() {},
    error: (err: unknown, msg: string, _kv?: KeyValues) => errors.push(`${msg}: ${(err as Error).message}`),
    v: () => logger,
    enabled: () => true,
    withName: () => logger,
    withValues: () => logger,
  };
  const informer = informerIn(ns, { logger });
  informer.addEventHandler({
    onAdd() {
      throw new Error("boom");
    },
  });
  informer.addEventHandler({ onAdd: async () => Promise.reject(new Error("async boom")) });
  const { events, handler } = recorder();
  informer.addEventHandler(handler);
  await running(informer, async () => {
    await rest.create(CM, configMap(ns, "x"), { namespace: ns });
    await rest.create(CM, configMap(ns, "y"), { namespace: ns });
    await until("both arrived", () => events.length === 2 && errors.length === 4);
    assert.equal(informer.health().consecutiveErrors, 0);
  });
  assert.ok(errors.includes("event handler onAdd failed: boom"), errors.join("; "));
  assert.ok(errors.includes("event handler onAdd failed: async boom"), errors.join("; "));
});

test("indexes follow creates, updates and deletes, per namespace and across namespaces, many values each", async () => {
  const ns1 = await newNamespace(rest, "inf");
  const ns2 = await newNamespace(rest, "inf");
  const informer = newInformer(rest, kinds.ConfigMap, { namespaces: [ns1, ns2] });
  const byOwner = indexByFieldAndNamespace<ConfigMap>((o) =>
    (o.data?.owners ?? "").split(",").filter(Boolean),
  );
  informer.addIndexers({ "field:owners": byOwner });
  await rest.create(CM, configMap(ns1, "a", { owners: "x,y" }), { namespace: ns1 });
  await running(informer, async () => {
    const names = (value: string) =>
      informer.store
        .byIndex("field:owners", value)
        .map((o) => `${o.metadata?.namespace === ns1 ? "1" : "2"}/${o.metadata?.name}`)
        .sort();
    const settle = (what: string, cond: () => boolean) => until(what, cond);
    assert.deepEqual(names("__all_namespaces/x"), ["1/a"]);
    assert.deepEqual(names(`${ns1}/y`), ["1/a"]);

    await rest.create(CM, configMap(ns2, "b", { owners: "y,z" }), { namespace: ns2 });
    await settle("b indexed", () => names("__all_namespaces/y").length === 2);
    assert.deepEqual(names("__all_namespaces/y"), ["1/a", "2/b"]);
    assert.deepEqual(names(`${ns1}/y`), ["1/a"]);
    assert.deepEqual(names(`${ns2}/y`), ["2/b"]);
    assert.deepEqual(names(`${ns2}/z`), ["2/b"]);

    // An update drops the values it no longer has and adds the new ones.
    await rest.patch(CM, "a", { data: { owners: "y,w" } }, { namespace: ns1, patchType: "merge" });
    await settle("a re-indexed", () => names("__all_namespaces/w").length === 1);
    assert.deepEqual(names("__all_namespaces/x"), []);
    assert.deepEqual(names("__all_namespaces/y"), ["1/a", "2/b"]);
    assert.deepEqual(informer.store.indexValues("field:owners").includes("__all_namespaces/x"), false);

    await rest.delete(CM, "b", { namespace: ns2 });
    await settle("b gone", () => names("__all_namespaces/z").length === 0);
    assert.deepEqual(names("__all_namespaces/y"), ["1/a"]);
    assert.deepEqual(
      informer.store.byIndex(NAMESPACE_INDEX, ns1).map((o) => o.metadata?.name),
      ["a"],
    );
    assert.deepEqual(informer.store.byIndex(NAMESPACE_INDEX, ns2), []);

    // An index added to a running informer is filled from what it holds.
    informer.addIndexers({
      "field:metadata.name": indexByFieldAndNamespace((o) => [o.metadata?.name ?? ""]),
    });
    assert.deepEqual(
      informer.store.byIndex("field:metadata.name", "__all_namespaces/a").map((o) => o.metadata?.name),
      ["a"],
    );
    assert.throws(() => informer.addIndexers({ "field:owners": byOwner }), { name: "IndexConflictError" });
  });
});

test("label and field selectors restrict the informer, and objects that stop matching leave it", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "in", {}, { app: "web" }), { namespace: ns });
  await rest.create(CM, configMap(ns, "out", {}, { app: "db" }), { namespace: ns });
  await rest.create(CM, configMap(ns, "named", {}, { app: "web" }), { namespace: ns });
  const informer = informerIn(ns, { labelSelector: "app=web", fieldSelector: "metadata.name!=named" });
  const { events, handler } = recorder();
  informer.addEventHandler(handler);
  await running(informer, async () => {
    assert.deepEqual(informer.store.keys(), [`${ns}/in`]);
    await rest.patch(
      CM,
      "in",
      { metadata: { labels: { app: "db" } } },
      { namespace: ns, patchType: "merge" },
    );
    await until("in left", () => informer.store.size === 0);
    assert.deepEqual(events, ["add in - initial", "delete in undefined"]);
  });
});

test("namespaces restrict the informer to those namespaces", async () => {
  const ns1 = await newNamespace(rest, "inf");
  const ns2 = await newNamespace(rest, "inf");
  const ns3 = await newNamespace(rest, "inf");
  for (const ns of [ns1, ns2, ns3]) await rest.create(CM, configMap(ns, "x"), { namespace: ns });
  const informer = newInformer(rest, kinds.ConfigMap, { namespaces: [ns1, ns2] });
  await running(informer, async () => {
    assert.deepEqual(informer.store.keys().sort(), [`${ns1}/x`, `${ns2}/x`].sort());
    await rest.create(CM, configMap(ns3, "y"), { namespace: ns3 });
    await rest.create(CM, configMap(ns2, "y"), { namespace: ns2 });
    await until("ns2/y arrived", () => informer.store.get(`${ns2}/y`) !== undefined);
    assert.equal(informer.store.get(`${ns3}/y`), undefined);
  });
});

test("objects are stored frozen, with apiVersion and kind, without managedFields by default", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "x", { v: "1" }), { namespace: ns, fieldManager: "test" });
  const informer = informerIn(ns);
  await running(informer, async () => {
    const obj = informer.store.get(`${ns}/x`);
    assert.ok(obj);
    assert.equal(obj.apiVersion, "v1");
    assert.equal(obj.kind, "ConfigMap");
    assert.equal(obj.metadata?.managedFields, undefined);
    assert.ok(Object.isFrozen(obj) && Object.isFrozen(obj.metadata) && Object.isFrozen(obj.data));
    assert.throws(() => {
      (obj.data as Record<string, string>).v = "2";
    }, TypeError);
  });
  const raw = await rest.get<ConfigMap>(CM, "x", { namespace: ns });
  assert.ok((raw.metadata?.managedFields?.length ?? 0) > 0, "the server does record managedFields");
});

test("a transform runs before storing; the handlers and the store see its output", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "x", { big: "x".repeat(1000), keep: "y" }), { namespace: ns });
  const informer = informerIn(ns, {
    transform: (o) => {
      const c = o as ConfigMap;
      if (c.data) delete c.data.big;
      return c;
    },
  });
  let added: DeepReadonly<ConfigMap> | undefined;
  informer.addEventHandler({ onAdd: (o) => (added = o) });
  await running(informer, async () => {
    assert.deepEqual(informer.store.get(`${ns}/x`)?.data, { keep: "y" });
    assert.deepEqual(added?.data, { keep: "y" });
    assert.ok(
      informer.store.get(`${ns}/x`)?.metadata?.managedFields,
      "a custom transform replaces the default",
    );
  });
});

test("a metadata-only informer stores PartialObjectMetadata and follows changes", async () => {
  const ns = await newNamespace(rest, "inf");
  await rest.create(CM, configMap(ns, "x", { v: "1" }, { app: "a" }), { namespace: ns });
  const informer = informerIn(ns, { metadataOnly: true });
  await running(informer, async () => {
    const obj = informer.store.get(`${ns}/x`) as KubeObject & { data?: unknown };
    assert.equal(obj.data, undefined);
    assert.equal(obj.kind, "ConfigMap");
    assert.deepEqual(obj.metadata?.labels, { app: "a" });
    await rest.patch(CM, "x", { metadata: { labels: { app: "b" } } }, { namespace: ns, patchType: "merge" });
    await until("the change arrived", () => informer.store.get(`${ns}/x`)?.metadata?.labels?.app === "b");
    assert.equal((informer.store.get(`${ns}/x`) as { data?: unknown }).data, undefined);
  });
});

test("an informer runs once; waitForSync gives false when the signal fires first", async () => {
  const ns = await newNamespace(rest, "inf");
  const informer = informerIn(ns);
  const stop = new AbortController();
  const done = informer.run(stop.signal);
  await assert.rejects(informer.run(stop.signal), /already started/);
  const aborted = AbortSignal.abort();
  assert.equal(await informer.waitForSync(aborted), false);
  assert.equal(await informer.waitForSync(), true);
  stop.abort();
  await done;
});
