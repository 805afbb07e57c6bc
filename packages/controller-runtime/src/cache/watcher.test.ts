// The watcher's transitions, over real HTTP: a failed list is a ListFailed with the server's error
// as its cause; a watch that cannot be opened is a WatchStartFailed resumed from the same version;
// a 410 at resume relists; a streaming list hands its open stream over to the watch.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { type Kind, kinds } from "../api/index.js";
import {
  newRESTClient,
  isNotFound,
  type RESTClient,
  type RESTConfig,
  resourceOf,
  StatusError,
} from "../rest/index.js";
import { eventually } from "../envtest/index.js";
import { testEnvironment, versionDifference } from "../../../../test/support/environment.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import { type ListerWatcher, listWatcherFor, type ReflectorWatchOptions } from "./list-watcher.js";
import { WatcherError, type WatcherEvent, watcher } from "./watcher.js";

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

/** A real ListerWatcher whose next watches first fail with `faults`, recording what was asked. */
function faulty<T extends ConfigMap>(lw: ListerWatcher<T>, faults: StatusError[] = []) {
  const watches: ReflectorWatchOptions[] = [];
  return {
    watches,
    lw: {
      list: (opts, signal) => lw.list(opts, signal),
      async watch(opts, signal) {
        watches.push(opts);
        const fault = opts.sendInitialEvents ? undefined : faults.shift();
        if (fault) throw fault;
        return lw.watch(opts, signal);
      },
    } satisfies ListerWatcher<T>,
  };
}

const status = (code: number, reason: string, message: string) =>
  new StatusError({ apiVersion: "v1", kind: "Status", status: "Failure", code, reason, message });

/** Pulls events until `done` says so (or 15 s pass), then stops the watcher. */
async function collect<T extends ConfigMap>(
  lw: ListerWatcher<T>,
  done: (events: WatcherEvent<T>[]) => boolean,
  options: { streamingList?: boolean } = {},
): Promise<WatcherEvent<T>[]> {
  const stop = new AbortController();
  const timeout = setTimeout(() => stop.abort(), 15_000);
  const events: WatcherEvent<T>[] = [];
  try {
    for await (const ev of watcher(lw, stop.signal, options)) {
      events.push(ev);
      if (done(events)) break;
    }
  } finally {
    clearTimeout(timeout);
    stop.abort();
  }
  assert.ok(done(events), `the watcher stopped early: ${events.map((e) => e.type).join(", ")}`);
  return events;
}

const errors = <T extends ConfigMap>(events: WatcherEvent<T>[]) =>
  events.flatMap((e) => (e.type === "error" ? [e.error] : []));

test("a list the server refuses is a ListFailed whose cause is the server's error", async () => {
  const missing: Kind<ConfigMap> = {
    ...kinds.ConfigMap,
    group: "nowhere.example.com",
    version: "v1",
    apiVersion: "nowhere.example.com/v1",
    kind: "Nothing",
    plural: "nothings",
  } as Kind<ConfigMap>;
  const lw = listWatcherFor(rest, missing, {});
  const events = await collect(lw, (evs) => errors(evs).length >= 2);
  const [first, second] = errors(events);
  assert.ok(first instanceof WatcherError);
  // The streaming list is refused (404) and the watcher falls back to a plain list.
  assert.equal(first.reason, "ListFailed");
  assert.ok(isNotFound(first.cause), String(first.cause));
  assert.match(first.message, /^list failed: /);
  assert.equal(second.reason, "ListFailed");
  assert.ok(!events.some((e) => e.type === "initDone"));
});

test("a watch that cannot be opened is a WatchStartFailed, resumed from the same version", async () => {
  const ns = await newNamespace(rest, "watcher-start");
  await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "a"));
  const rec = faulty(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }), [
    status(500, "InternalError", "etcd is sulking"),
  ]);
  let created = false;
  const events = await collect(
    rec.lw,
    (evs) => {
      if (!created && evs.some((e) => e.type === "error")) {
        created = true;
        void rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "b"));
      }
      return evs.some((e) => e.type === "apply" && e.object.metadata?.name === "b");
    },
    { streamingList: false },
  );
  const [err] = errors(events);
  assert.equal(err.reason, "WatchStartFailed");
  assert.equal((err.cause as StatusError).statusCode, 500);
  const listedAt = events.find((e) => e.type === "initDone");
  assert.ok(listedAt?.type === "initDone");
  assert.deepEqual(
    rec.watches.map((w) => w.resourceVersion),
    [listedAt.resourceVersion, listedAt.resourceVersion],
    "the second watch resumes from the list's version",
  );
  assert.equal(events.filter((e) => e.type === "init").length, 1, "no relist");
});

test("a 410 at resume relists (no error reported), then watches from the new list", async () => {
  const ns = await newNamespace(rest, "watcher-gone");
  await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "a"));
  // The watcher lists from kube-apiserver's watch cache (resourceVersion 0), which may lag a
  // write for a moment: wait until it holds the object.
  await eventually("the watch cache to hold the ConfigMap", async () => {
    const list = await rest.list(resourceOf(kinds.ConfigMap), { namespace: ns, resourceVersion: "0" });
    return (list as { items: unknown[] }).items.length === 1;
  });
  const rec = faulty(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }), [
    status(410, "Expired", "too old resource version: 1 (2)"),
  ]);
  const events = await collect(rec.lw, (evs) => evs.filter((e) => e.type === "initDone").length >= 2, {
    streamingList: false,
  });
  assert.deepEqual(
    events.map((e) => e.type),
    ["init", "initApply", "initDone", "init", "initApply", "initDone"],
  );
});

test("a streaming list's stream goes on as the watch: one watch, then the changes", async (t) => {
  if (!versionDifference("kube 1.26 refuses streaming lists (sendInitialEvents) with 422")) {
    t.skip("streaming lists need Kubernetes 1.27 or later");
    return;
  }
  const ns = await newNamespace(rest, "watcher-stream");
  await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "a"));
  const rec = faulty(listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }));
  let created = false;
  const events = await collect(rec.lw, (evs) => {
    if (!created && evs.some((e) => e.type === "initDone")) {
      created = true;
      void rest.create(resourceOf(kinds.ConfigMap), configMap(ns, "b"));
    }
    return evs.some((e) => e.type === "apply" && e.object.metadata?.name === "b");
  });
  assert.deepEqual(
    events.filter((e) => e.type !== "bookmark").map((e) => e.type),
    ["init", "initApply", "initDone", "apply"],
  );
  assert.equal(rec.watches.length, 1, "the streaming list's watch carried the change");
  assert.equal(rec.watches[0].sendInitialEvents, true);
});
