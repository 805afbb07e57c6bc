// The recorder against the embedded API server, over HTTPS: what lands in the Events, how
// repeats are merged, combined and rate-limited, and that a server refusing Events costs the
// caller nothing.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { ConfigMap, Event } from "kubernetes-types/core/v1.js";
import { Registry } from "prom-client";
import { kinds } from "../api/index.js";
import { startAPIServer } from "controller-runtime-apiserver";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { InvalidEventTypeError, newEventRecorderProvider } from "./index.js";
import type { RESTConfig } from "../rest/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const EVENTS = resourceOf(kinds.Event);
const env = testEnvironment();
let config: RESTConfig;
let client: RESTClient;

before(async () => {
  config = await env.start();
  client = newRESTClient(config);
});
after(async () => {
  await client.close();
  await env.stop();
});

async function newNamespace(): Promise<string> {
  const name = `rec-${randomUUID().slice(0, 8)}`;
  await client.create(resourceOf(kinds.Namespace), { metadata: { name } });
  return name;
}

async function newConfigMap(namespace: string, name = "cm"): Promise<ConfigMap> {
  return client.create(
    resourceOf(kinds.ConfigMap),
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace } },
    { namespace },
  );
}

const listEvents = async (namespace: string) =>
  (await client.list<Event>(EVENTS, { namespace })).items.sort((a, b) =>
    (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""),
  );

async function eventually<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const end = Date.now() + 15_000;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function droppedBy(registry: Registry, reason: string): Promise<number> {
  const m = (await registry.getSingleMetric("recorder_dropped_events_total")?.get())?.values ?? [];
  return m.find((v) => v.labels.reason === reason)?.value ?? 0;
}

test("an Event carries the object's reference, the source and the timestamps", async () => {
  const ns = await newNamespace();
  const cm = await newConfigMap(ns);
  const provider = newEventRecorderProvider({ client });
  const rec = provider.getEventRecorderFor("widget-controller");
  rec.annotatedEventf(cm, { team: "x" }, "Warning", "SyncFailed", "could not sync %s: %d errors", "cm", 3);
  const [e] = await eventually(
    "the event",
    () => listEvents(ns),
    (l) => l.length === 1,
  );
  assert.match(e.metadata?.name ?? "", /^cm\.[0-9a-f]+$/);
  assert.equal(e.metadata?.namespace, ns);
  assert.deepEqual(e.metadata?.annotations, { team: "x" });
  assert.deepEqual(e.involvedObject, {
    kind: "ConfigMap",
    apiVersion: "v1",
    name: "cm",
    namespace: ns,
    uid: cm.metadata?.uid,
    resourceVersion: cm.metadata?.resourceVersion,
  });
  assert.equal(e.type, "Warning");
  assert.equal(e.reason, "SyncFailed");
  assert.equal(e.message, "could not sync cm: 3 errors");
  assert.deepEqual(e.source, { component: "widget-controller" });
  assert.equal(e.reportingComponent, "widget-controller");
  assert.equal(e.count, 1);
  assert.match(e.firstTimestamp ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(e.lastTimestamp, e.firstTimestamp);
  await provider.shutdown();
});

test("Events about cluster-scoped objects go to the default namespace", async () => {
  const ns = await newNamespace();
  const nsObj = await client.get(resourceOf(kinds.Namespace), ns);
  const provider = newEventRecorderProvider({ client });
  provider.getEventRecorderFor("ns-controller").event(nsObj, "Normal", "Seen", `namespace ${ns}`);
  const mine = (l: Event[]) => l.filter((e) => e.message === `namespace ${ns}`);
  const [e] = mine(
    await eventually(
      "the event",
      () => listEvents("default"),
      (l) => mine(l).length === 1,
    ),
  );
  assert.equal(e.involvedObject.kind, "Namespace");
  assert.equal(e.involvedObject.namespace, undefined);
  await provider.shutdown();
});

test("identical events are merged into one Event with a count", async () => {
  const ns = await newNamespace();
  const cm = await newConfigMap(ns);
  const provider = newEventRecorderProvider({ client });
  const rec = provider.getEventRecorderFor("c");
  for (let i = 0; i < 5; i++) rec.event(cm, "Normal", "Synced", "all good");
  await provider.shutdown(); // flushes
  const events = await listEvents(ns);
  assert.equal(events.length, 1);
  assert.equal(events[0].count, 5);
  assert.ok((events[0].lastTimestamp ?? "") >= (events[0].firstTimestamp ?? ""));
});

test("more than ten similar events are combined into one aggregate Event", async () => {
  const ns = await newNamespace();
  const cm = await newConfigMap(ns);
  const provider = newEventRecorderProvider({ client });
  const rec = provider.getEventRecorderFor("c");
  for (let i = 0; i < 12; i++) rec.eventf(cm, "Warning", "Failed", "attempt %d failed", i);
  await provider.shutdown();
  const events = await listEvents(ns);
  const combined = events.filter((e) => e.message?.startsWith("(combined from similar events): "));
  assert.equal(events.length - combined.length, 9, "the first nine are recorded as they are");
  assert.equal(combined.length, 1);
  assert.equal(combined[0].count, 3);
  assert.equal(combined[0].message, "(combined from similar events): attempt 11 failed");
});

test("the spam filter lets 25 events about one object through and drops the rest", async () => {
  const ns = await newNamespace();
  const cm = await newConfigMap(ns);
  const other = await newConfigMap(ns, "other");
  const registry = new Registry();
  const provider = newEventRecorderProvider({ client, registry });
  const rec = provider.getEventRecorderFor("c");
  // Distinct reasons, so that nothing is merged or combined: only the spam filter acts.
  for (let i = 0; i < 30; i++) rec.event(cm, "Normal", `Reason${i}`, "m");
  rec.event(other, "Normal", "Reason0", "m");
  await provider.shutdown();
  const events = await listEvents(ns);
  assert.equal(events.filter((e) => e.involvedObject.name === "cm").length, 25);
  assert.equal(events.filter((e) => e.involvedObject.name === "other").length, 1);
  assert.equal(await droppedBy(registry, "spam_filter"), 5);
});

test("a type other than Normal or Warning throws at the call; an object without kind is dropped", async () => {
  const ns = await newNamespace();
  const cm = await newConfigMap(ns);
  const errors: string[] = [];
  const logger = {
    info() {},
    error: (err: unknown) => errors.push(String(err)),
    v: () => logger,
  };
  const provider = newEventRecorderProvider({ client, logger });
  const rec = provider.getEventRecorderFor("c");
  assert.throws(() => rec.event(cm, "Weird" as "Normal", "R", "m"), InvalidEventTypeError);
  rec.event({ metadata: { name: "x", namespace: ns } }, "Normal", "R", "m");
  assert.match(errors[0], /no kind or apiVersion/);
  await provider.shutdown();
  assert.deepEqual(await listEvents(ns), []);
});

test("a server that cannot be reached costs the caller nothing: events queue, then drop", async () => {
  const dead = await startAPIServer();
  const config = dead.restConfig();
  await dead.stop();
  const deadClient = newRESTClient(config);
  const registry = new Registry();
  const provider = newEventRecorderProvider({ client: deadClient, registry, maxQueuedEvents: 100 });
  const rec = provider.getEventRecorderFor("c");
  const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "x" } };
  for (let i = 0; i < 500; i++) rec.event(obj, "Normal", `R${i % 50}`, `m${i}`); // returns at once
  // The first event is stuck retrying against the dead server, 100 wait; the rest were dropped.
  assert.ok((await droppedBy(registry, "queue_full")) >= 399);
  await provider.shutdown({ timeoutMs: 200 });
  const total =
    (await droppedBy(registry, "queue_full")) +
    (await droppedBy(registry, "shutdown")) +
    (await droppedBy(registry, "write_failed")) +
    (await droppedBy(registry, "spam_filter"));
  assert.equal(total, 500, "every event is accounted for");
  const before = await droppedBy(registry, "shutdown");
  rec.event(obj, "Normal", "Late", "after shutdown");
  assert.equal(await droppedBy(registry, "shutdown"), before + 1, "events after shutdown are dropped");
  await deadClient.close();
});

test("a server that refuses Events (401) is not retried", async () => {
  const ns = await newNamespace();
  const cm = await newConfigMap(ns);
  // A credential the server refuses: a token it never issued, and no client certificate.
  const refused = newRESTClient({ ...config, tls: { ca: config.tls.ca }, auth: { bearerToken: "wrong" } });
  const registry = new Registry();
  const provider = newEventRecorderProvider({ client: refused, registry });
  provider.getEventRecorderFor("c").event(cm, "Normal", "R", "m");
  await provider.shutdown({ timeoutMs: 5_000 });
  assert.equal(await droppedBy(registry, "write_failed"), 1);
  assert.deepEqual(await listEvents(ns), []);
  await refused.close();
});
