// The cache's hooks against the API server: a constructor of informers of one's own
// (controller-runtime's NewInformer), a handler told of every list/watch failure
// (DefaultWatchErrorHandler), and handlers resyncing on periods of their own
// (AddEventHandlerWithResyncPeriod).
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { defineKind, kinds, type KubeObject } from "../api/index.js";
import { newLogger } from "../log/index.js";
import { isNotFound, newRESTClient, type RESTClient, type RESTConfig, resourceOf } from "../rest/index.js";
import { newCache } from "./cache.js";
import { type InformerOptions, newInformer } from "./informer.js";
import type { WatcherError } from "./watcher.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";

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

test("newInformer makes the cache's informers, given the options the cache resolved", async () => {
  const ns = await newNamespace(rest, "hooks");
  const made: { kind: string; opts: InformerOptions }[] = [];
  const cache = newCache(config, {
    restClient: rest,
    defaultNamespaces: [ns],
    newInformer: (r, kind, opts) => {
      made.push({ kind: kind.kind, opts });
      return newInformer(r, kind, opts);
    },
  });
  const stop = new AbortController();
  const running = cache.start(stop.signal);
  try {
    await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "a"), { namespace: ns });
    const got = await cache.get(kinds.ConfigMap, { namespace: ns, name: "a" });
    assert.equal(got.metadata?.name, "a");
    assert.deepEqual(
      made.map((m) => m.kind),
      ["ConfigMap"],
    );
    assert.deepEqual(Object.keys(made[0].opts.namespaces ?? {}), [ns]);
  } finally {
    stop.abort();
    await running;
  }
});

test("defaultWatchErrorHandler is told of each list failure, with the kind, and the informer retries", async () => {
  const Missing = defineKind<KubeObject>({ group: "nowhere.example.com", version: "v1", kind: "Missing" });
  const failures: { err: WatcherError; kind: string }[] = [];
  const cache = newCache(config, {
    restClient: rest,
    defaultWatchErrorHandler: (err, info) => failures.push({ err, kind: info.kind.kind }),
    backoff: () => ({ next: () => 10, reset: () => {} }),
  });
  const stop = new AbortController();
  const running = cache.start(stop.signal);
  try {
    await cache.getInformer(Missing, { blockUntilSynced: false });
    await until("two failures, so it retried", () => failures.length >= 2);
    assert.equal(failures[0].kind, "Missing");
    assert.ok(isNotFound(failures[0].err.cause), "the server's NotFound is the cause");
  } finally {
    stop.abort();
    await running;
  }
});

test("a handler with a resync period of its own is replayed on it; the others keep the informer's", async () => {
  const ns = await newNamespace(rest, "hooks");
  await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "a"), { namespace: ns });
  const informer = newInformer(rest, kinds.ConfigMap, { namespaces: [ns], syncPeriodMs: 0 });
  const resyncs = { own: 0, shared: 0 };
  const counting = (key: keyof typeof resyncs) => ({
    onUpdate: (old: unknown, obj: unknown) => {
      if (old === obj) resyncs[key]++;
    },
  });
  informer.addEventHandler(counting("own"), { resyncPeriodMs: 30 });
  informer.addEventHandler(counting("shared"));
  assert.throws(() => informer.addEventHandler({}, { resyncPeriodMs: -1 }), /resyncPeriodMs must be ≥ 0/);
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  try {
    await until("the own-period handler resynced twice", () => resyncs.own >= 2);
    assert.equal(resyncs.shared, 0, "the informer's period is 0: never");
  } finally {
    stop.abort();
    await running;
  }
});

test("a read waiting on an informer that failed before it synced is told why, not that the cache stopped", async () => {
  const ns = await newNamespace(rest, "hooks");
  const broke = new Error("the store broke");
  const logged: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      logged.push(String(chunk));
      done();
    },
  });
  const cache = newCache(config, {
    restClient: rest,
    defaultNamespaces: [ns],
    // The real informer, whose run stops at once and then fails (as one whose store throws does).
    newInformer: (r, kind, opts) => {
      const real = newInformer(r, kind, opts);
      return new Proxy(real, {
        get(target, key) {
          if (key === "run")
            return async () => {
              await target.run(AbortSignal.abort());
              throw broke;
            };
          const value = Reflect.get(target, key, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    },
    logger: newLogger({ destination }),
  });
  const stop = new AbortController();
  const running = cache.start(stop.signal);
  try {
    await assert.rejects(cache.get(kinds.ConfigMap, { namespace: ns, name: "a" }), (err: Error) => {
      assert.equal(err.name, "CacheSyncError");
      assert.match(err.message, /the ConfigMap informer failed before it synced: the store broke/);
      assert.equal(err.cause, broke);
      return true;
    });
    assert.match(logged.join(""), /"error":"the store broke".*"msg":"informer stopped with an error"/);
  } finally {
    stop.abort();
    await running;
  }
});
