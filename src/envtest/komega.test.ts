// komega against a real server: thunks for eventually(), updates retried over conflicts, and
// the waits for an object, a list, and a deletion.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { testEnvironment } from "../../test/support/environment.js";
import { configMap, newNamespace } from "../../test/support/objects.js";
import { kinds } from "../api/index.js";
import { type Client, newClient } from "../client/index.js";
import { isNotFound, newRESTClient, type RESTClient } from "../rest/index.js";
import { EventuallyTimeoutError, eventually, newKomega } from "./index.js";

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

test("get and list are thunks for eventually(); object and objectList return what they read", async () => {
  const ns = await newNamespace(rest, "komega");
  const k = newKomega(client);
  const cm = configMap(ns, "later", { k: "v" });
  await assert.rejects(k.get(cm)(), isNotFound);
  setTimeout(() => void client.create(cm), 50);
  assert.equal(await eventually("the ConfigMap", k.get(cm)), true);
  assert.equal(await k.list(kinds.ConfigMap, { inNamespace: ns })(), true);
  assert.equal((await k.object(cm)()).data?.k, "v");
  const names = (await k.objectList(kinds.ConfigMap, { inNamespace: ns })()).items.map(
    (i) => i.metadata?.name,
  );
  assert.ok(names.includes("later"));
});

test("update reads, mutates a copy and writes; eventuallyUpdate retries a conflict", async () => {
  const ns = await newNamespace(rest, "komega");
  const k = newKomega(client);
  const cm = Object.freeze(configMap(ns, "a", { n: "0" }));
  await client.create(cm);
  const updated = await k.update(cm, (c) => {
    c.data = { n: "1" };
  })();
  assert.equal(updated.data?.n, "1");
  assert.equal(cm.data?.n, "0", "the object given is left alone");

  let calls = 0;
  const winner = await k.eventuallyUpdate(cm, async (c) => {
    calls++;
    // The first attempt loses a race against another writer: its update conflicts.
    if (calls === 1) await client.update({ ...c, data: { n: "other" } });
    return { ...c, data: { ...c.data, mine: "yes" } };
  });
  assert.ok(calls >= 2);
  assert.deepEqual(winner.data, { n: "other", mine: "yes" });
});

test("updateStatus writes the status subresource", async () => {
  const ns = await newNamespace(rest, "komega");
  const labels = { app: "d" };
  const d = await client.create<Deployment>({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", namespace: ns },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx:1" }] } },
    },
  });
  const k = newKomega(client);
  const written = await k.eventuallyUpdateStatus(d, (obj) => {
    obj.status = { ...obj.status, availableReplicas: 1, replicas: 1, readyReplicas: 1 };
  });
  assert.equal(written.status?.availableReplicas, 1);
  const seen = await k.eventuallyObject(d, (obj) => obj.status?.availableReplicas === 1);
  assert.equal(seen.metadata?.name, "d");
});

test("eventuallyList, eventuallyGone, and a timeout that names what it waited for", async () => {
  const ns = await newNamespace(rest, "komega");
  const k = newKomega(client, { timeoutMs: 5_000 });
  const mine = (l: { items: readonly Readonly<ConfigMap>[] }) =>
    l.items.filter((i) => i.metadata?.name?.startsWith("x-"));
  setTimeout(() => {
    void client.create(configMap(ns, "x-1"));
    void client.create(configMap(ns, "x-2"));
  }, 20);
  const list = await k.eventuallyList(kinds.ConfigMap, (l) => mine(l).length === 2, { inNamespace: ns });
  assert.equal(mine(list).length, 2);

  const doomed = await client.create<ConfigMap>({
    ...configMap(ns, "doomed"),
    metadata: { name: "doomed", namespace: ns, finalizers: ["example.com/hold"] },
  });
  await client.delete(doomed);
  await k.eventuallyObject(doomed, (o) => Boolean(o.metadata?.deletionTimestamp));
  const release = k.update(doomed, (c) => ({ ...c, metadata: { ...c.metadata, finalizers: [] } }));
  setTimeout(() => void release(), 50);
  await k.eventuallyGone(doomed);

  const quick = k.with({ timeoutMs: 100 });
  await assert.rejects(
    quick.eventuallyObject(configMap(ns, "never")),
    (err) => err instanceof EventuallyTimeoutError && /ConfigMap .*\/never/.test(err.message),
  );
  const aborted = k.with({ signal: AbortSignal.abort(new Error("stopped")) });
  await assert.rejects(aborted.eventuallyObject(configMap(ns, "never")), /stopped/);
});
