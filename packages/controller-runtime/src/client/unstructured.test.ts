// Custom resources through the same Client: objects named by apiVersion/kind only (resource and
// scope from discovery), typed descriptors from defineKind, a CRD installed after the client was
// made, the status subresource of a CRD, and server-side apply with two field owners.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { defineKind, type KubeObject, kinds, type Unstructured } from "../api/index.js";
import { NoKindMatchError } from "../mapper/index.js";
import type { RESTConfig } from "../rest/config.js";
import { newRESTClient, isConflict, isNotFound, type RESTClient } from "../rest/index.js";
import {
  applyConfiguration,
  applyPatch,
  type Client,
  mergeFrom,
  newClient,
  StrategicMergeUnsupportedError,
  strategicMergeFrom,
} from "./index.js";
import { newNamespace } from "../../../../test/support/objects.js";
import { testEnvironment } from "../../../../test/support/environment.js";

function crd(kind: string, plural: string, scope: "Namespaced" | "Cluster"): CustomResourceDefinition {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.test.example.com` },
    spec: {
      group: "test.example.com",
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase() },
      scope,
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: { size: { type: "integer" }, color: { type: "string" } },
                },
                status: { type: "object", properties: { ready: { type: "boolean" } } },
              },
            },
          },
        },
      ],
    },
  };
}

interface Widget extends KubeObject {
  spec?: { size?: number; color?: string };
  status?: { ready?: boolean };
}

const env = testEnvironment({ crds: [crd("Widget", "widgets", "Namespaced")] });
let config: RESTConfig;
let rest: RESTClient;
let client: Client;

before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
  client = newClient(config);
});

after(async () => {
  await client.close();
  await rest.close();
  await env.stop();
});

const WIDGET = { apiVersion: "test.example.com/v1", kind: "Widget" } as const;

test("unstructured objects of a CRD: create, get, list, update, patch, status, delete", async () => {
  const ns = await newNamespace(rest, "unstr");
  const created = await client.create<Unstructured>({
    ...WIDGET,
    metadata: { name: "w", namespace: ns },
    spec: { size: 1 },
  });
  assert.equal(created.kind, "Widget");
  assert.equal(await client.isObjectNamespaced(created), true);
  assert.equal((await client.kindFor(created)).plural, "widgets");

  const got = await client.get(WIDGET, { namespace: ns, name: "w" });
  assert.deepEqual(got.spec, { size: 1 });
  const byGvk = await client.get(
    { group: "test.example.com", version: "v1", kind: "Widget" },
    { namespace: ns, name: "w" },
  );
  assert.equal(byGvk.metadata?.uid, got.metadata?.uid);
  const list = await client.list(WIDGET, { inNamespace: ns });
  assert.deepEqual(
    list.items.map((w) => [w.kind, w.metadata?.name]),
    [["Widget", "w"]],
  );

  const updated = await client.update({ ...got, spec: { size: 2 }, status: { ready: true } });
  assert.deepEqual(updated.spec, { size: 2 });
  assert.equal(updated.status, undefined, "status is a subresource of this CRD");
  const withStatus = await client.status().update({ ...updated, status: { ready: true } });
  assert.deepEqual(withStatus.status, { ready: true });

  const patched = await client.patch(
    { ...withStatus, spec: { size: 2, color: "red" } },
    mergeFrom(withStatus),
  );
  assert.deepEqual(patched.spec, { size: 2, color: "red" });
  await assert.rejects(
    client.patch({ ...patched, spec: {} }, strategicMergeFrom(patched)),
    StrategicMergeUnsupportedError,
  );

  await client.delete(patched);
  await assert.rejects(client.get(WIDGET, { namespace: ns, name: "w" }), isNotFound);
});

test("a typed descriptor from defineKind reads and writes the same objects", async () => {
  const ns = await newNamespace(rest, "typed");
  const Widgets = defineKind<Widget>({ group: "test.example.com", version: "v1", kind: "Widget" });
  await client.create<Widget>({ ...WIDGET, metadata: { name: "t", namespace: ns }, spec: { size: 3 } });
  const w = await client.get(Widgets, { namespace: ns, name: "t" });
  assert.equal(w.spec?.size, 3);
  await client.deleteAllOf(Widgets, { inNamespace: ns });
  assert.deepEqual((await client.list(Widgets, { inNamespace: ns })).items, []);
});

test("a CRD installed after the client was made is found on first use", async () => {
  const GADGET = { apiVersion: "test.example.com/v1", kind: "Gadget" } as const;
  // Discovery already knows test.example.com/v1 (Widget); Gadget is not there yet.
  await client.list(WIDGET);
  await assert.rejects(client.list(GADGET), NoKindMatchError);
  await assert.rejects(client.create({ ...GADGET, metadata: { name: "g" } }), NoKindMatchError);

  await env.installCRDs([crd("Gadget", "gadgets", "Cluster")]);
  const g = await client.create<Unstructured>({ ...GADGET, metadata: { name: "g" }, spec: { size: 1 } });
  assert.equal(g.metadata?.namespace, undefined);
  assert.equal(await client.isObjectNamespaced(g), false);
  assert.equal((await client.get(GADGET, { name: "g" })).metadata?.uid, g.metadata?.uid);
  await client.delete(g);
});

test("apply: create on apply, and two field owners each stating their own fields", async () => {
  const ns = await newNamespace(rest, "apply");
  const a = await client.apply(
    applyConfiguration(kinds.ConfigMap, { metadata: { name: "shared", namespace: ns }, data: { a: "1" } }),
    { fieldOwner: "owner-a" },
  );
  const typed: ConfigMap = a; // applyConfiguration types the result
  assert.deepEqual(typed.data, { a: "1" });
  const b = await client.apply<ConfigMap>(
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace: ns }, data: { b: "2" } },
    { fieldOwner: "owner-b" },
  );
  assert.deepEqual(b.data, { a: "1", b: "2" });
  const managers = (b.metadata?.managedFields ?? []).map((m) => m.manager).sort();
  assert.deepEqual(managers, ["owner-a", "owner-b"]);
  assert.ok((b.metadata?.managedFields ?? []).every((m) => m.operation === "Apply"));

  // The same through patch(obj, applyPatch): the object itself is the apply configuration.
  const c = await client.patch(
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace: ns }, data: { c: "3" } },
    applyPatch,
    { fieldOwner: "owner-c" },
  );
  assert.deepEqual(c.data, { a: "1", b: "2", c: "3" });

  // Apply to a custom resource's status subresource.
  await client.create<Unstructured>({
    ...WIDGET,
    metadata: { name: "st", namespace: ns },
    spec: { size: 1 },
  });
  const st = await client
    .status()
    .apply<Widget>(
      { ...WIDGET, metadata: { name: "st", namespace: ns }, status: { ready: true } },
      { fieldOwner: "status-owner" },
    );
  assert.deepEqual(st.status, { ready: true });
  assert.deepEqual(st.spec, { size: 1 });
});

test("apply: a conflicting value owned by another manager is a 409 unless forced", async () => {
  const ns = await newNamespace(rest, "applyconflict");
  const cm = (data: Record<string, string>) =>
    applyConfiguration(kinds.ConfigMap, { metadata: { name: "c", namespace: ns }, data });
  await client.apply(cm({ k: "a" }), { fieldOwner: "owner-a" });
  await assert.rejects(client.apply(cm({ k: "b" }), { fieldOwner: "owner-b" }), (err: unknown) => {
    assert.ok(isConflict(err));
    assert.match((err as Error).message, /owner-a/, "the conflict names the manager that owns the field");
    return true;
  });
  const forced = await client.apply(cm({ k: "b" }), { fieldOwner: "owner-b", force: true });
  assert.deepEqual(forced.data, { k: "b" });
});

test("apply: a field its only owner stops applying is removed", async () => {
  const ns = await newNamespace(rest, "applyremove");
  const cm = (data: Record<string, string>) =>
    applyConfiguration(kinds.ConfigMap, { metadata: { name: "r", namespace: ns }, data });
  await client.apply(cm({ x: "1", y: "2" }), { fieldOwner: "owner" });
  const after = await client.apply(cm({ x: "1" }), { fieldOwner: "owner" });
  assert.deepEqual(after.data, { x: "1" });
});
