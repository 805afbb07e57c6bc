// The finalizer registry in a reconciler's life against a real server: keys added while the
// object lives, cleanups run once it is deleted, failures collected while the rest is written.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import { kinds } from "../api/index.js";
import { type Client, newClient } from "../client/index.js";
import { isNotFound, newRESTClient, type RESTClient } from "../rest/index.js";
import { FinalizeError, FinalizerAlreadyRegisteredError, newFinalizers } from "./index.js";

const env = testEnvironment();
let rest: RESTClient;
let client: Client;

before(async () => {
  const config = await env.start();
  rest = newRESTClient(config);
  client = newClient(config);
});
after(async () => {
  await client.close();
  await rest.close();
  await env.stop();
});

test("a live object gets every registered key, once, in the order registered", async () => {
  const ns = await newNamespace(rest, "fin");
  const created = Object.freeze(await client.create(configMap(ns, "a")));
  const finalizers = newFinalizers();
  finalizers.register("example.com/b", async () => ({}));
  finalizers.register("example.com/a", async () => ({}));
  const first = await finalizers.finalize(created);
  assert.equal(first.updated, true);
  assert.equal(first.error, undefined);
  assert.equal(created.metadata?.finalizers, undefined, "the object given is left alone");
  const written = await client.update(first.object);
  assert.deepEqual(written.metadata?.finalizers, ["example.com/b", "example.com/a"]);
  const second = await finalizers.finalize(written);
  assert.deepEqual(
    { updated: second.updated, statusUpdated: second.statusUpdated },
    { updated: false, statusUpdated: false },
  );
});

test("a deleted object runs its finalizers; a failing one keeps its key and is reported", async () => {
  const ns = await newNamespace(rest, "fin");
  const finalizers = newFinalizers();
  const ran: string[] = [];
  let failing = true;
  finalizers.register("example.com/ok", async (obj) => {
    ran.push(`ok:${obj.metadata?.name}`);
    return {};
  });
  finalizers.register("example.com/flaky", async () => {
    ran.push("flaky");
    if (failing) throw new Error("bucket not empty");
    return {};
  });
  const cm = { ...configMap(ns, "a"), metadata: { name: "a", namespace: ns, finalizers: ["other.io/keep"] } };
  const live = await finalizers.finalize(await client.create(cm));
  await client.update(live.object);
  await client.delete(live.object);
  const deleting = await client.get(kinds.ConfigMap, { namespace: ns, name: "a" });
  assert.ok(deleting.metadata?.deletionTimestamp);

  const res = await finalizers.finalize(deleting);
  assert.deepEqual(ran, ["ok:a", "flaky"]);
  assert.equal(res.updated, true, "the key that finished was removed");
  assert.ok(res.error instanceof FinalizeError);
  assert.deepEqual(res.error.keys, ["example.com/flaky"]);
  assert.equal(res.error.message, 'finalizer "example.com/flaky" failed: bucket not empty');
  assert.equal((res.error.errors[0] as Error).cause instanceof Error, true);
  const afterFailure = await client.update(res.object);
  assert.deepEqual(afterFailure.metadata?.finalizers, ["other.io/keep", "example.com/flaky"]);

  failing = false;
  const retried = await finalizers.finalize(afterFailure);
  assert.equal(retried.error, undefined);
  assert.deepEqual(ran, ["ok:a", "flaky", "flaky"], "a finished key does not run again");
  const done = await client.update(retried.object);
  assert.deepEqual(done.metadata?.finalizers, ["other.io/keep"], "keys not registered are left alone");
  await client.update({ ...done, metadata: { ...done.metadata, finalizers: [] } });
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "a" }), isNotFound);
});

test("status changes are reported, from a failing finalizer too, and written with status()", async () => {
  const ns = await newNamespace(rest, "fin");
  const labels = { app: "d" };
  const d: Deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: ns, finalizers: ["example.com/drain", "example.com/audit"] },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx:1" }] } },
    },
  };
  const finalizers = newFinalizers<Deployment>();
  finalizers.register("example.com/drain", async (obj) => {
    obj.status = { ...obj.status, conditions: [{ type: "Draining", status: "True", reason: "Finalizing" }] };
    throw new Error("still draining");
  });
  finalizers.register("example.com/audit", async () => ({ statusUpdated: false }));
  await client.create(d);
  await client.delete(d);
  const deleting = await client.get(kinds.Deployment, { namespace: ns, name: "d" });
  const res = await finalizers.finalize(deleting);
  assert.deepEqual(
    { updated: res.updated, statusUpdated: res.statusUpdated },
    { updated: true, statusUpdated: true },
  );
  assert.match(res.error?.message ?? "", /still draining/);
  const written = await client.status().update(res.object);
  assert.equal(written.status?.conditions?.[0]?.type, "Draining");
  const updated = await client.update({
    ...res.object,
    metadata: { ...res.object.metadata, resourceVersion: written.metadata?.resourceVersion },
  });
  assert.deepEqual(updated.metadata?.finalizers, ["example.com/drain"]);
  await client.update({ ...updated, metadata: { ...updated.metadata, finalizers: [] } });
});

test("a key registers once", () => {
  const finalizers = newFinalizers();
  finalizers.register("example.com/a", { finalize: async () => ({}) });
  assert.throws(
    () => finalizers.register("example.com/a", async () => ({})),
    FinalizerAlreadyRegisteredError,
  );
});
