// Clients around a Client, against a real server: held to a namespace, dry-run, with a field
// owner or a field validation of their own; and watching through the client.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { configMap, newNamespace } from "../../../../test/support/objects.js";
import { kinds } from "../api/index.js";
import { isNotFound, newRESTClient, type RESTClient, type RESTConfig, StatusError } from "../rest/index.js";
import {
  applyConfiguration,
  mergeFrom,
  NamespaceMismatchError,
  newClient,
  newDryRunClient,
  newNamespacedClient,
  newWithWatch,
  withFieldOwner,
  withFieldValidation,
  type WithWatch,
} from "./index.js";

const env = testEnvironment();
let config: RESTConfig;
let rest: RESTClient;
let client: WithWatch;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  client = newWithWatch(config);
});
after(async () => {
  await client.close();
  await rest.close();
  await env.stop();
});

const managers = (o: { metadata?: { managedFields?: { manager?: string }[] } }) =>
  (o.metadata?.managedFields ?? []).map((m) => m.manager);

test("a namespaced client puts objects in its namespace and refuses others", async () => {
  const ns = await newNamespace(rest, "nsc");
  const other = await newNamespace(rest, "nsc");
  const c = newNamespacedClient(client, ns);
  const unplaced: ConfigMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "a" },
    data: { k: "v" },
  };
  const created = await c.create(Object.freeze(unplaced));
  assert.equal(created.metadata?.namespace, ns);
  assert.equal((await c.get(kinds.ConfigMap, { name: "a" })).data?.k, "v");
  await client.create(configMap(other, "b"));

  const names = (await c.list(kinds.ConfigMap, { inNamespace: other })).items.map((i) => i.metadata?.name);
  assert.ok(
    names.includes("a") && !names.includes("b"),
    "lists stay in the namespace, whatever the call names",
  );
  const namespaces = (await c.list(kinds.Namespace)).items.map((n) => n.metadata?.name);
  assert.ok(namespaces.includes(ns) && namespaces.includes(other), "cluster-scoped kinds are not restricted");

  await assert.rejects(c.create(configMap(other, "c")), NamespaceMismatchError);
  await assert.rejects(
    c.get(kinds.ConfigMap, { namespace: other, name: "b" }),
    /does not match the namespace/,
  );
  await assert.rejects(c.delete(configMap(other, "b")), NamespaceMismatchError);

  const { metadata: _, ...rest_ } = created;
  const patched = await c.patch(
    { ...rest_, metadata: { name: "a" }, data: { k: "w" } },
    mergeFrom({ ...rest_, metadata: { name: "a" } }),
  );
  assert.equal(patched.data?.k, "w");
  const applied = await c.apply(
    applyConfiguration(kinds.ConfigMap, { metadata: { name: "applied" }, data: { x: "1" } }),
    { fieldOwner: "nsc-test" },
  );
  assert.equal(applied.metadata?.namespace, ns);

  await c.deleteAllOf(kinds.ConfigMap, { matchingLabels: {} });
  assert.deepEqual(
    (await client.list(kinds.ConfigMap, { inNamespace: ns })).items.filter(
      (i) => i.metadata?.name !== "kube-root-ca.crt",
    ),
    [],
  );
  assert.equal((await client.get(kinds.ConfigMap, { namespace: other, name: "b" })).metadata?.name, "b");
});

test("a namespaced client's watch and status writes stay in its namespace", async () => {
  const ns = await newNamespace(rest, "nsc");
  const other = await newNamespace(rest, "nsc");
  const c = newNamespacedClient(client, ns);
  const stream = await c.watch(kinds.ConfigMap, { inNamespace: other });
  await client.create(configMap(other, "elsewhere"));
  await c.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "here" } });
  for await (const e of stream) {
    if (e.type !== "ADDED" || e.object.metadata?.name === "kube-root-ca.crt") continue;
    assert.equal(e.object.metadata?.name, "here");
    break;
  }
  const labels = { app: "d" };
  const d = await c.create<Deployment>({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx:1" }] } },
    },
  });
  const { namespace: _, ...meta } = d.metadata ?? {};
  const written = await c.status().update({ ...d, metadata: meta, status: { observedGeneration: 1 } });
  assert.equal(written.status?.observedGeneration, 1);
});

test("a dry-run client validates every write and persists none", async () => {
  const ns = await newNamespace(rest, "dry");
  const dry = newDryRunClient(client);
  const created = await dry.create(configMap(ns, "a", { k: "v" }));
  assert.equal(created.data?.k, "v", "the server answers as if it had written");
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "a" }), isNotFound);
  await assert.rejects(dry.create(configMap(ns, "Not Valid")), (err) => err instanceof StatusError);

  const real = await client.create(configMap(ns, "b"));
  await dry.update({ ...real, data: { k: "changed" } });
  await dry.delete(real);
  await dry.deleteAllOf(kinds.ConfigMap, { inNamespace: ns });
  const still = await client.get(kinds.ConfigMap, { namespace: ns, name: "b" });
  assert.equal(still.data, undefined);

  const optionDry = newClient(config, { dryRun: true });
  await optionDry.create(configMap(ns, "c"), { dryRun: false });
  await assert.rejects(client.get(kinds.ConfigMap, { namespace: ns, name: "c" }), isNotFound);
  await optionDry.close();
});

test("withFieldOwner names the field manager of writes that name none", async () => {
  const ns = await newNamespace(rest, "owner");
  const owned = withFieldOwner(client, "widget-controller");
  // Data, so that the write sets a field to own: an empty object has no managedFields entry.
  const created = await owned.create(configMap(ns, "a", { k: "v" }));
  assert.deepEqual(managers(created), ["widget-controller"]);
  const byCall = await owned.create(configMap(ns, "b", { k: "v" }), { fieldOwner: "someone-else" });
  assert.deepEqual(managers(byCall), ["someone-else"]);
  const applied = await owned.apply(
    applyConfiguration(kinds.ConfigMap, { metadata: { name: "c", namespace: ns }, data: { k: "v" } }),
  );
  assert.deepEqual(managers(applied), ["widget-controller"]);
  assert.throws(() => withFieldOwner(client, ""), TypeError);
});

test("withFieldValidation sends its validation with writes that name none", async () => {
  const ns = await newNamespace(rest, "fv");
  const strict = withFieldValidation(client, "Strict");
  const unknownField = { ...configMap(ns, "a"), bogus: 1 } as ConfigMap;
  await assert.rejects(
    strict.create(unknownField),
    (err) => err instanceof StatusError && /bogus/.test(err.message),
  );
  const created = await strict.create(unknownField, { fieldValidation: "Ignore" });
  assert.equal(created.metadata?.name, "a");
  assert.throws(() => withFieldValidation(client, "Loose" as "Strict"), RangeError);
});

test("watch streams a kind's events from the server, selected as a list is", async () => {
  const ns = await newNamespace(rest, "watch");
  const listed = await client.list(kinds.ConfigMap, { inNamespace: ns });
  const seen: string[] = [];
  const stream = await client.watch(kinds.ConfigMap, {
    inNamespace: ns,
    matchingLabels: { watched: "yes" },
    resourceVersion: listed.metadata?.resourceVersion,
  });
  await client.create(configMap(ns, "ignored"));
  const cm = await client.create(configMap(ns, "a", {}, { watched: "yes" }));
  await client.update({ ...cm, data: { k: "v" } });
  await client.delete(cm);
  for await (const e of stream) {
    seen.push(`${e.type} ${e.type === "ERROR" ? "" : e.object.metadata?.name}`);
    if (e.type === "DELETED") break;
  }
  assert.deepEqual(seen, ["ADDED a", "MODIFIED a", "DELETED a"]);
});
