// Read-your-writes: the cache watches through envtest's fault proxy, which holds every watch
// event back (delayEvents), so the
// cache lags the server by a known delay. With readYourWrites "off" a read right after a write is
// stale (the test shows the lag is real); with "wait" it never is, for gets, lists, deletes and
// status writes, and a cache that never catches up ends the wait with a StaleCacheError that the
// metrics count. Runs in every envtest mode.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap, Pod } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { type Cache, newCache, StaleCacheError } from "../cache/index.js";
import { newMetricsRegistry, readYourWritesMetrics } from "../metrics/index.js";
import type { RESTConfig } from "../rest/config.js";
import { isNotFound, newRESTClient, type RESTClient } from "../rest/index.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { delayEvents, type FaultHandle } from "../envtest/index.js";
import { type FaultProxy, startFaultProxy } from "../envtest/fault-proxy.js";
import { type Client, type ClientOptions, mergeFrom, newClient } from "./index.js";
import type { DeepReadonly } from "../api/index.js";

const env = testEnvironment();
const stop = new AbortController();
let config: RESTConfig;
let rest: RESTClient;
let proxy: FaultProxy;
let lag: FaultHandle;
let cache: Cache;
let cacheDone: Promise<void>;
const LAG_MS = 400;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  proxy = await startFaultProxy(config);
  cache = newCache(proxy.config, { byObject: [{ kind: kinds.Pod, labelSelector: "cached=yes" }] });
  cacheDone = cache.start(stop.signal);
  await cache.getInformer(kinds.ConfigMap);
  await cache.getInformer(kinds.Pod);
  lag = proxy.faults.inject({ match: { watch: true }, action: delayEvents(LAG_MS) });
});

after(async () => {
  stop.abort();
  await cacheDone;
  await proxy.close();
  await rest.close();
  await env.stop();
});

function clientWith(opts: ClientOptions): Client {
  return newClient(config, { ...opts, cache });
}

async function cached(ns: string, name: string): Promise<DeepReadonly<ConfigMap>> {
  return cache.get(kinds.ConfigMap, { namespace: ns, name });
}

test("readYourWrites off: a get right after an update reads the lagging cache (the lag is real)", async () => {
  const client = clientWith({ readYourWrites: "off" });
  const ns = await newNamespace(rest, "ryw-off");
  const cm = await client.create(configMap(ns, "a", { v: "1" }));
  await until(
    "the cache holds the ConfigMap",
    async () => (await cached(ns, "a").catch(() => undefined)) !== undefined,
  );
  await client.patch({ ...cm, data: { v: "2" } }, mergeFrom(cm));
  const read = await client.get(kinds.ConfigMap, { namespace: ns, name: "a" });
  assert.equal(read.data?.v, "1", "without waiting the read is older than the write");
  await client.close();
});

test("readYourWrites wait: gets, lists and deletes right after writes reflect them", async () => {
  const client = clientWith({});
  const ns = await newNamespace(rest, "ryw-wait");
  // create, then get: found (not NotFound) although the cache learns of it LAG_MS later
  const cm = await client.create(configMap(ns, "a", { v: "1" }));
  assert.equal((await client.get(kinds.ConfigMap, { namespace: ns, name: "a" })).data?.v, "1");
  // update, then get and list: the new version
  const updated = await client.update({ ...cm, metadata: { ...cm.metadata }, data: { v: "2" } } as ConfigMap);
  const got = await client.get(kinds.ConfigMap, { namespace: ns, name: "a" });
  assert.equal(got.metadata?.resourceVersion, updated.metadata?.resourceVersion);
  await client.patch({ ...updated, data: { v: "3" } }, mergeFrom(updated));
  const list = await client.list(kinds.ConfigMap, { inNamespace: ns });
  assert.deepEqual(
    list.items.map((i) => i.data?.v),
    ["3"],
  );
  // a second object written, then a list of every namespace: both writes seen
  await client.create(configMap(ns, "b", { v: "1" }));
  const all = await client.list(kinds.ConfigMap, { matchingFields: { "metadata.namespace": ns } });
  assert.deepEqual(all.items.map((i) => i.metadata?.name).sort(), ["a", "b"]);
  // delete, then get: NotFound, not the cached object
  await client.delete(got);
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "a" }), isNotFound);
  // a delete held by a finalizer: the read sees the deletionTimestamp
  const held = await client.create({
    ...configMap(ns, "held"),
    metadata: { name: "held", namespace: ns, finalizers: ["example.com/hold"] },
  });
  await client.get(kinds.ConfigMap, { namespace: ns, name: "held" });
  await client.delete(held);
  const deleting = await client.get(kinds.ConfigMap, { namespace: ns, name: "held" });
  assert.ok(deleting.metadata?.deletionTimestamp, "the read reflects the delete's new version");
  await client.patch(
    { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } } as ConfigMap,
    mergeFrom(deleting),
  );
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "held" }), isNotFound);
  await client.close();
});

test("readYourWrites wait: a bound Pod's graceful delete is a write (the Pod stays, marked), its final delete a deletion", async () => {
  // Lagging by LAG_MS, the cache catches up well within the wait; a wait for a deletion never ends.
  const client = clientWith({ readYourWritesTimeoutMs: 5_000 });
  const ns = await newNamespace(rest, "ryw-grace");
  const pod = await client.create<Pod>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "bound", namespace: ns, labels: { cached: "yes" } },
    spec: { nodeName: "a-node", containers: [{ name: "c", image: "nginx" }] },
  });
  await client.get(kinds.Pod, { namespace: ns, name: "bound" });
  // The server only marks it: the next read waits for the mark, not for a deletion that never comes.
  await client.delete(pod);
  const marked = await client.get(kinds.Pod, { namespace: ns, name: "bound" });
  assert.ok(marked.metadata?.deletionTimestamp, "the read reflects the graceful delete");
  assert.equal(marked.metadata?.deletionGracePeriodSeconds, 30);
  // What the kubelet does once the containers stopped: a delete with a grace period of 0.
  await client.delete(marked, { gracePeriodSeconds: 0 });
  await assert.rejects(client.get(kinds.Pod, { namespace: ns, name: "bound" }), isNotFound);
  await client.close();
});

test("readYourWrites wait: a status write is seen; a write that leaves the cache's selector is not waited for", async () => {
  const client = clientWith({});
  const ns = await newNamespace(rest, "ryw-status");
  const pod = await client.create<Pod>({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: ns, labels: { cached: "yes" } },
    spec: { containers: [{ name: "c", image: "busybox" }] },
  });
  const withStatus = await client.status().update({ ...pod, status: { phase: "Running" } });
  const got = await client.get(kinds.Pod, { namespace: ns, name: "p" });
  assert.equal(got.status?.phase, "Running");
  assert.equal(got.metadata?.resourceVersion, withStatus.metadata?.resourceVersion);
  // Relabelled out of the cache's selector: the cache drops it (after the lag) and the read waits for that.
  await client.patch(
    { ...withStatus, metadata: { ...withStatus.metadata, labels: { cached: "no" } } },
    mergeFrom(withStatus),
  );
  const started = performance.now();
  await assert.rejects(client.get(kinds.Pod, { namespace: ns, name: "p" }), isNotFound);
  assert.ok(performance.now() - started < 3_000, "no wait for a version the cache never gets");
  await client.close();
});

test("a cache that does not catch up in time ends the read with a StaleCacheError, counted in the metrics", async () => {
  const registry = newMetricsRegistry();
  const client = clientWith({
    readYourWritesTimeoutMs: 200,
    readYourWritesMetrics: readYourWritesMetrics(registry),
  });
  const ns = await newNamespace(rest, "ryw-stale");
  const cm = await client.create(configMap(ns, "a", { v: "1" }));
  await until(
    "the cache holds the ConfigMap",
    async () => (await cached(ns, "a").catch(() => undefined)) !== undefined,
  );
  lag.clear();
  const slow = proxy.faults.inject({ match: { watch: true }, action: delayEvents(3_000) });
  try {
    await client.patch({ ...cm, data: { v: "2" } }, mergeFrom(cm));
    await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "a" }), (err: unknown) => {
      assert.ok(err instanceof StaleCacheError, String(err));
      assert.match(err.message, /has not seen .*\/a at resourceVersion \d+/);
      return true;
    });
  } finally {
    slow.clear();
    lag = proxy.faults.inject({ match: { watch: true }, action: delayEvents(LAG_MS) });
  }
  const text = await registry.metrics();
  assert.match(text, /controller_runtime_client_read_your_writes_timeouts_total\{kind="ConfigMap"\} 1/);
  // Once the cache caught up, the read goes through.
  await until("the cache catches up", async () => (await cached(ns, "a")).data?.v === "2");
  assert.equal((await client.get(kinds.ConfigMap, { namespace: ns, name: "a" })).data?.v, "2");
  assert.match(
    await registry.metrics(),
    /controller_runtime_client_read_your_writes_wait_seconds_count\{kind="ConfigMap"\} 1/,
  );
  await client.close();
});
