// The reflector and informer under faults, against the embedded API server over HTTPS: watches
// the server closes, a server restart (whose watch cache begins anew, so the reflector relists), 410 at
// resume, changes made while the watch was down, refused requests, and servers without
// streaming lists. Each test runs its own server, since most of them stop it.
import type { DeepReadonly } from "../api/index.js";
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import {
  type APIServerOptions,
  type RunningAPIServer,
  Storage,
  startAPIServer,
} from "controller-runtime-apiserver";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { exponentialBackoff } from "./backoff.js";
import { DeletedFinalStateUnknown } from "./event-handler.js";
import { type Informer, newInformer } from "./informer.js";
import { type ListerWatcher, listWatcherFor, type ReflectorWatchOptions } from "./list-watcher.js";
import { Reflector, type ReflectorSink, storeKeyOf } from "./reflector.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";

const CM = resourceOf(kinds.ConfigMap);
const fastBackoff = () => exponentialBackoff({ initialMs: 10, maxMs: 100 });

/** key → resourceVersion of what the server holds in `namespace`. */
async function serverState(rest: RESTClient, namespace: string): Promise<Map<string, string>> {
  const list = await rest.list<ConfigMap>(CM, { namespace });
  return new Map(
    list.items.map((o) => [`${namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? ""]),
  );
}

function storeState(informer: Informer<ConfigMap>): Map<string, string> {
  return new Map(
    informer.store
      .list()
      .map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o.metadata?.resourceVersion ?? ""]),
  );
}

async function storeEqualsServer(informer: Informer<ConfigMap>, rest: RESTClient, namespace: string) {
  const want = await serverState(rest, namespace);
  const got = storeState(informer);
  return want.size === got.size && [...want].every(([k, rv]) => got.get(k) === rv);
}

/** A ListerWatcher that records the calls it passes on. */
function recording<T extends ConfigMap>(lw: ListerWatcher<T>) {
  const watches: ReflectorWatchOptions[] = [];
  let lists = 0;
  return {
    watches,
    /** Full lists: list calls and streaming-list watches. */
    relists: () => lists + watches.filter((w) => w.sendInitialEvents).length,
    lw: {
      list(opts, signal) {
        if (!opts.continue) lists++;
        return lw.list(opts, signal);
      },
      watch(opts, signal) {
        watches.push(opts);
        return lw.watch(opts, signal);
      },
    } satisfies ListerWatcher<T>,
  };
}

function mapSink(): ReflectorSink<ConfigMap> & { items: Map<string, DeepReadonly<ConfigMap>> } {
  const items = new Map<string, DeepReadonly<ConfigMap>>();
  return {
    items,
    replace(next) {
      items.clear();
      for (const obj of next) items.set(storeKeyOf(obj), obj);
    },
    apply(obj) {
      items.set(storeKeyOf(obj), obj);
    },
    delete(obj) {
      items.delete(storeKeyOf(obj));
    },
  };
}

async function withServer(
  opts: APIServerOptions,
  fn: (server: RunningAPIServer, rest: RESTClient) => Promise<void>,
) {
  const server = await startAPIServer(opts);
  const rest = newRESTClient(server.restConfig());
  try {
    await fn(server, rest);
  } finally {
    await rest.close();
    await server.stop();
  }
}

for (const streamingList of [true, false]) {
  const mode = streamingList ? "streaming list" : "list + watch";
  test(`${mode}: a watch the server closes is resumed from the last version without a relist`, async () => {
    await withServer({}, async (_server, rest) => {
      const ns = await newNamespace(rest, "refl");
      await rest.create(CM, configMap(ns, "before"), { namespace: ns });
      const rec = recording(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }));
      const sink = mapSink();
      const reflector = new Reflector(rec.lw, sink, {
        backoff: fastBackoff(),
        watcher: { streamingList, watchTimeoutSeconds: () => 1 },
      });
      const stop = new AbortController();
      const running = reflector.run(stop.signal);
      await until("synced", () => reflector.hasSynced());
      for (let i = 0; i < 3; i++) {
        const watchesBefore = rec.watches.length;
        await rest.create(CM, configMap(ns, `during-${i}`), { namespace: ns });
        // The server ends each watch after a second; wait for the next one to open.
        await until("the watch was reopened", () => rec.watches.length > watchesBefore);
      }
      await rest.delete(CM, "before", { namespace: ns });
      await until("the store holds the server's objects", async () => {
        const want = await serverState(rest, ns);
        return want.size === sink.items.size && [...want.keys()].every((k) => sink.items.has(k));
      });
      assert.equal(rec.relists(), 1, "one initial list, no relist");
      const resumed = rec.watches.filter((w) => !w.sendInitialEvents);
      assert.ok(resumed.length >= 3);
      for (const w of resumed) {
        assert.ok(w.resourceVersion && w.resourceVersion !== "0", "resumed from a version");
        assert.equal(w.allowWatchBookmarks, true);
      }
      assert.equal(reflector.health().consecutiveErrors, 0);
      stop.abort();
      await running;
    });
  });
}

test("the default watch length is random between 5 and 10 minutes, as client-go's", async () => {
  await withServer({}, async (_server, rest) => {
    const ns = await newNamespace(rest, "refl");
    const rec = recording(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }));
    const reflector = new Reflector(rec.lw, mapSink(), { watcher: { streamingList: false } });
    const stop = new AbortController();
    const running = reflector.run(stop.signal);
    await until("a watch opened", () => rec.watches.length > 0);
    const t = rec.watches[0].timeoutSeconds ?? 0;
    assert.ok(t >= 300 && t <= 600, `timeoutSeconds ${t}`);
    stop.abort();
    await running;
  });
});

test("after a server restart the resume is 410 (the watch cache began anew): one relist, and the store holds what changed while down", async () => {
  const storage = new Storage();
  const first = await startAPIServer({ storage });
  const same = { storage, certificateAuthority: first.certificateAuthority, adminToken: first.adminToken };
  const rest = newRESTClient(first.restConfig());
  const ns = await newNamespace(rest, "refl");
  await rest.create(CM, configMap(ns, "stays"), { namespace: ns });
  await rest.create(CM, configMap(ns, "changes", { v: "1" }), { namespace: ns });
  await rest.create(CM, configMap(ns, "goes"), { namespace: ns });
  const rec = recording(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }));
  const sink = mapSink();
  const reflector = new Reflector(rec.lw, sink, { backoff: fastBackoff(), watcher: { streamingList: true } });
  const stop = new AbortController();
  const running = reflector.run(stop.signal);
  await until("synced", () => reflector.hasSynced());
  assert.equal(rec.watches[0]?.sendInitialEvents, true, "the first list was streamed");
  await first.stop();

  // Another server on the same data makes the changes while the first port is dark.
  await withServer(same, async (_other, otherRest) => {
    await otherRest.create(CM, configMap(ns, "new"), { namespace: ns });
    await otherRest.update(CM, { ...configMap(ns, "changes", { v: "2" }) }, { namespace: ns });
    await otherRest.delete(CM, "goes", { namespace: ns });
  });
  const back = await startAPIServer({ ...same, port: first.port });
  try {
    await until("the store holds the server's objects", async () => {
      const want = await serverState(rest, ns);
      return (
        want.size === sink.items.size &&
        [...want].every(([k, rv]) => sink.items.get(k)?.metadata?.resourceVersion === rv)
      );
    });
    assert.deepEqual([...sink.items.keys()].sort(), [`${ns}/changes`, `${ns}/new`, `${ns}/stays`]);
    assert.equal(sink.items.get(`${ns}/changes`)?.data?.v, "2");
    // As against kube-apiserver, whose watch cache starts at its restart: the resume is refused.
    assert.equal(rec.relists(), 2, "one relist after the restart");
    assert.ok(reflector.health().lastSyncTime instanceof Date);
  } finally {
    stop.abort();
    await running;
    await rest.close();
    await back.stop();
  }
});

test("a 410 at resume relists; the deletes missed while down arrive as DeletedFinalStateUnknown", async () => {
  // A short history, so that the changes made while the server was down push the informer's
  // version out of it.
  const storage = new Storage({ historySize: 5 });
  const first = await startAPIServer({ storage });
  const same = { storage, certificateAuthority: first.certificateAuthority, adminToken: first.adminToken };
  const rest = newRESTClient(first.restConfig());
  const ns = await newNamespace(rest, "refl");
  for (const name of ["stays", "changes", "goes"])
    await rest.create(CM, configMap(ns, name), { namespace: ns });
  const informer = newInformer(rest, kinds.ConfigMap, { namespaces: [ns], backoff: fastBackoff });
  const seen: string[] = [];
  informer.addEventHandler({
    onAdd: (o, initial) => seen.push(`add ${o.metadata?.name}${initial ? " (initial)" : ""}`),
    onUpdate: (old, o) => seen.push(`update ${o.metadata?.name} ${old.data?.v ?? "-"}→${o.data?.v ?? "-"}`),
    onDelete: (o) =>
      seen.push(
        o instanceof DeletedFinalStateUnknown ? `delete-unknown ${o.key}` : `delete ${o.metadata?.name}`,
      ),
  });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  assert.equal(await informer.waitForSync(), true);
  await first.stop();

  await withServer(same, async (_other, otherRest) => {
    await otherRest.create(CM, configMap(ns, "new"), { namespace: ns });
    await otherRest.update(CM, configMap(ns, "changes", { v: "2" }), { namespace: ns });
    await otherRest.delete(CM, "goes", { namespace: ns });
    for (let i = 0; i < 8; i++) await otherRest.create(CM, configMap(ns, `filler-${i}`), { namespace: ns });
  });
  const back = await startAPIServer({ ...same, port: first.port });
  try {
    await until("the store equals the server", () => storeEqualsServer(informer, rest, ns));
    assert.deepEqual(seen.slice(0, 3).sort(), [
      "add changes (initial)",
      "add goes (initial)",
      "add stays (initial)",
    ]);
    const after = seen.slice(3);
    assert.ok(after.includes(`delete-unknown ${ns}/goes`), after.join(", "));
    assert.ok(after.includes("add new"), after.join(", "));
    assert.ok(after.includes("update changes -→2"), after.join(", "));
    assert.ok(!after.some((e) => e.startsWith("update stays")), "unchanged objects are not replayed");
    assert.ok(after.indexOf(`delete-unknown ${ns}/goes`) < after.indexOf("add new"), "deletes first");
  } finally {
    stop.abort();
    await running;
    await rest.close();
    await back.stop();
  }
});

test("an informer refused by the server keeps retrying and reports it in its health", async () => {
  await withServer({}, async (server) => {
    // No credentials: the server answers 403 to an anonymous list.
    const anonymous = newRESTClient({ ...server.restConfig(), auth: {} });
    const informer = newInformer(anonymous, kinds.ConfigMap, { backoff: fastBackoff });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    try {
      await until("three failures", () => informer.health().consecutiveErrors >= 3);
      const health = informer.health();
      assert.equal(health.hasSynced, false);
      assert.match(String(health.lastError), /forbidden/i);
      assert.ok(health.lastErrorTime instanceof Date);
      assert.equal(informer.isStopped(), false);
    } finally {
      stop.abort();
      await running;
      await anonymous.close();
    }
    assert.equal(informer.isStopped(), true);
    assert.equal(await informer.waitForSync(), false);
  });
});

test("a server that refuses streaming lists (422, as v1.26) gets list + watch", async () => {
  await withServer({}, async (_server, rest) => {
    const ns = await newNamespace(rest, "refl");
    await rest.create(CM, configMap(ns, "a"), { namespace: ns });
    const inner = listWatcherFor(rest, kinds.ConfigMap, { namespace: ns });
    let lists = 0;
    // v1.26 does not know sendInitialEvents and drops it; it then refuses resourceVersionMatch on a watch.
    const lw: ListerWatcher<ConfigMap> = {
      list: (o, s) => {
        lists++;
        return inner.list(o, s);
      },
      watch: (o, s) => inner.watch({ ...o, sendInitialEvents: undefined }, s),
    };
    const sink = mapSink();
    const reflector = new Reflector(lw, sink, { backoff: fastBackoff(), watcher: { streamingList: true } });
    const stop = new AbortController();
    const running = reflector.run(stop.signal);
    await until("synced", () => reflector.hasSynced());
    assert.equal(lists, 1);
    assert.deepEqual([...sink.items.keys()], [`${ns}/a`]);
    await rest.create(CM, configMap(ns, "b"), { namespace: ns });
    await until("the watch delivered b", () => sink.items.has(`${ns}/b`));
    assert.equal(reflector.health().consecutiveErrors, 0);
    stop.abort();
    await running;
  });
});

test("a server that ignores sendInitialEvents (never ends the initial events) gets list + watch", async () => {
  await withServer({}, async (_server, rest) => {
    const ns = await newNamespace(rest, "refl");
    await rest.create(CM, configMap(ns, "a"), { namespace: ns });
    const inner = listWatcherFor(rest, kinds.ConfigMap, { namespace: ns });
    let lists = 0;
    // Both parameters dropped: the server sends the current objects as ADDED and no end bookmark.
    const lw: ListerWatcher<ConfigMap> = {
      list: (o, s) => {
        lists++;
        return inner.list(o, s);
      },
      watch: (o, s) =>
        inner.watch({ ...o, sendInitialEvents: undefined, resourceVersionMatch: undefined }, s),
    };
    const sink = mapSink();
    const reflector = new Reflector(lw, sink, {
      backoff: fastBackoff(),
      watcher: { streamingList: true, initialEventsTimeoutMs: 200 },
    });
    const stop = new AbortController();
    const running = reflector.run(stop.signal);
    await until("synced", () => reflector.hasSynced());
    assert.equal(lists, 1);
    assert.deepEqual([...sink.items.keys()], [`${ns}/a`]);
    stop.abort();
    await running;
  });
});

test("an object its ingest refuses in a streaming list ends the run with that error, as in a watch", async () => {
  await withServer({}, async (_server, rest) => {
    const ns = await newNamespace(rest, "refl");
    for (const name of ["a", "bad", "c"]) await rest.create(CM, configMap(ns, name), { namespace: ns });
    const sink = mapSink();
    const refused = new Error("ingest refused bad");
    const reflector = new Reflector(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }), sink, {
      backoff: fastBackoff(),
      watcher: { streamingList: true },
      ingest: (o) => {
        if (o.metadata?.name === "bad") throw refused;
        return o as DeepReadonly<ConfigMap>;
      },
    });
    const stop = new AbortController();
    try {
      await assert.rejects(reflector.run(stop.signal), (err) => err === refused);
      // The list is applied whole or not at all.
      assert.equal(sink.items.size, 0);
      assert.equal(reflector.hasSynced(), false);
    } finally {
      stop.abort();
    }
  });
});
