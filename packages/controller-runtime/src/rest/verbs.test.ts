// Every verb of the REST client against the embedded API server, over HTTPS.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { ConfigMap, Namespace } from "kubernetes-types/core/v1.js";
import type { Status } from "kubernetes-types/meta/v1.js";
import { type KubeList, kinds } from "../api/index.js";
import { resourceOf } from "./resource-path.js";
import { newRESTClient, type RESTClient } from "./rest-client.js";
import { ACCEPT_PARTIAL_METADATA_LIST, ACCEPT_TABLE } from "./rest-options.js";
import { isConflict, isNotFound } from "./status-reasons.js";
import type { Warning } from "./warnings.js";
import type { WatchEvent } from "./watch.js";
import type { RESTConfig } from "./config.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const cms = resourceOf(kinds.ConfigMap);
const deployments = resourceOf(kinds.Deployment);
const namespaces = resourceOf(kinds.Namespace);

const env = testEnvironment();
let config: RESTConfig;
let client: RESTClient;
before(async () => {
  config = await env.start();
  client = newRESTClient(config);
});
after(async () => {
  await client?.close();
  await env.stop();
});

async function namespace(name: string): Promise<string> {
  await client.create<Namespace>(namespaces, { metadata: { name } });
  return name;
}

const deployment = (name: string): Deployment => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
  },
});

test("create, get, update: the server's object comes back, resourceVersion moves on", async () => {
  const ns = await namespace("verbs-crud");
  const created = await client.create<ConfigMap>(
    cms,
    { metadata: { name: "a" }, data: { x: "1" } },
    { namespace: ns },
  );
  assert.equal(created.metadata?.namespace, ns);
  assert.ok(created.metadata?.uid);
  const got = await client.get<ConfigMap>(cms, "a", { namespace: ns });
  assert.deepEqual(got, created);
  const updated = await client.update<ConfigMap>(cms, { ...got, data: { x: "2" } });
  assert.equal(updated.data?.x, "2");
  assert.notEqual(updated.metadata?.resourceVersion, created.metadata?.resourceVersion);
});

test("dryRun create validates but stores nothing", async () => {
  const ns = await namespace("verbs-dryrun");
  const out = await client.create<ConfigMap>(
    cms,
    { metadata: { name: "ghost" } },
    { namespace: ns, dryRun: true },
  );
  assert.equal(out.metadata?.name, "ghost");
  await assert.rejects(client.get(cms, "ghost", { namespace: ns }), isNotFound);
});

test("list with label selectors and pages", async () => {
  const ns = await namespace("verbs-list");
  for (let i = 0; i < 5; i++) {
    await client.create<ConfigMap>(
      cms,
      { metadata: { name: `c${i}`, labels: { parity: String(i % 2) } } },
      { namespace: ns },
    );
  }
  const even = await client.list<ConfigMap>(cms, { namespace: ns, labelSelector: "parity=0" });
  assert.deepEqual(
    even.items.map((c) => c.metadata?.name),
    ["c0", "c2", "c4"],
  );
  assert.ok(even.metadata?.resourceVersion);
  const names: string[] = [];
  let cont: string | undefined;
  let pages = 0;
  do {
    const page: KubeList<ConfigMap> = await client.list<ConfigMap>(cms, {
      namespace: ns,
      limit: 2,
      continue: cont,
    });
    names.push(...page.items.map((c) => String(c.metadata?.name)));
    cont = page.metadata?.continue || undefined;
    pages++;
  } while (cont);
  assert.deepEqual(names, ["c0", "c1", "c2", "c3", "c4"]);
  assert.equal(pages, 3);
});

test("list as PartialObjectMetadataList", async () => {
  const ns = await namespace("verbs-accept");
  await client.create<ConfigMap>(
    cms,
    { metadata: { name: "m" }, data: { big: "x".repeat(100) } },
    { namespace: ns },
  );
  const meta = await client.list<ConfigMap, { kind: string; items: { kind?: string; data?: unknown }[] }>(
    cms,
    {
      namespace: ns,
      accept: ACCEPT_PARTIAL_METADATA_LIST,
    },
  );
  assert.equal(meta.kind, "PartialObjectMetadataList");
  assert.equal(meta.items[0].kind, "PartialObjectMetadata");
  assert.equal(meta.items[0].data, undefined);
});

test("an empty PartialObjectMetadataList: the server says items null, as kube's does; the client gives []", async () => {
  const ns = await namespace("verbs-accept-empty");
  const raw = await client.request<string>({
    path: `/api/v1/namespaces/${ns}/configmaps`,
    accept: ACCEPT_PARTIAL_METADATA_LIST,
    responseType: "text",
  });
  assert.match(raw, /"items":null/);
  const meta = await client.list<ConfigMap>(cms, { namespace: ns, accept: ACCEPT_PARTIAL_METADATA_LIST });
  assert.deepEqual(meta.items, []);
});

test("list as Table", async () => {
  const ns = await namespace("verbs-table");
  await client.create<ConfigMap>(cms, { metadata: { name: "t" } }, { namespace: ns });
  const table = await client.list<ConfigMap, { kind: string; rows: unknown[] }>(cms, {
    namespace: ns,
    accept: ACCEPT_TABLE,
  });
  assert.equal(table.kind, "Table");
  assert.equal(table.rows.length, 1);
});

test("patch: JSON patch, merge patch, strategic merge patch and server-side apply", async () => {
  const ns = await namespace("verbs-patch");
  await client.create<ConfigMap>(cms, { metadata: { name: "p" }, data: { a: "1" } }, { namespace: ns });
  const jp = await client.patch<ConfigMap>(cms, "p", [{ op: "add", path: "/data/b", value: "2" }], {
    namespace: ns,
    patchType: "json",
  });
  assert.deepEqual(jp.data, { a: "1", b: "2" });
  const mp = await client.patch<ConfigMap>(
    cms,
    "p",
    { data: { a: null, c: "3" } },
    { namespace: ns, patchType: "merge" },
  );
  assert.deepEqual(mp.data, { b: "2", c: "3" });

  await client.create(deployments, deployment("web"), { namespace: ns });
  const sp = await client.patch<Deployment>(
    deployments,
    "web",
    { spec: { template: { spec: { containers: [{ name: "sidecar", image: "busybox" }] } } } },
    { namespace: ns, patchType: "strategic" },
  );
  assert.deepEqual(
    sp.spec?.template.spec?.containers.map((c) => c.name).sort(),
    ["c", "sidecar"],
    "strategic merge patch merges containers by name",
  );

  const applied = await client.patch<ConfigMap>(
    cms,
    "applied",
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { owner: "one" } },
    { namespace: ns, patchType: "apply", fieldManager: "one" },
  );
  assert.equal(applied.data?.owner, "one");
  const forced = await client.patch<ConfigMap>(
    cms,
    "applied",
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" }, data: { owner: "two" } },
    { namespace: ns, patchType: "apply", fieldManager: "two", force: true },
  );
  assert.equal(forced.data?.owner, "two");
});

test("server-side apply: a second manager conflicts unless it forces", async () => {
  const ns = await namespace("verbs-apply-conflict");
  const body = (owner: string) => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c" },
    data: { owner },
  });
  await client.patch(cms, "c", body("one"), { namespace: ns, patchType: "apply", fieldManager: "one" });
  await assert.rejects(
    client.patch(cms, "c", body("two"), { namespace: ns, patchType: "apply", fieldManager: "two" }),
    (err: unknown) => isConflict(err),
  );
  const forced = await client.patch<ConfigMap>(cms, "c", body("two"), {
    namespace: ns,
    patchType: "apply",
    fieldManager: "two",
    force: true,
  });
  assert.equal(forced.data?.owner, "two");
});

test("the status subresource: get and update", async () => {
  const ns = await namespace("verbs-status");
  const d = await client.create<Deployment>(deployments, deployment("s"), { namespace: ns });
  const updated = await client.update<Deployment>(
    deployments,
    { ...d, status: { observedGeneration: 1, replicas: 1 } },
    { subresource: "status" },
  );
  assert.equal(updated.status?.replicas, 1);
  const viaStatus = await client.get<Deployment>(deployments, "s", { namespace: ns, subresource: "status" });
  assert.equal(viaStatus.status?.replicas, 1);
});

test("delete returns a Success Status, or the object while finalizers hold it", async () => {
  const ns = await namespace("verbs-delete");
  await client.create<ConfigMap>(cms, { metadata: { name: "gone" } }, { namespace: ns });
  const status = (await client.delete(cms, "gone", {
    namespace: ns,
    propagationPolicy: "Background",
  })) as Status;
  assert.equal(status.kind, "Status");
  assert.equal(status.status, "Success");
  await assert.rejects(client.get(cms, "gone", { namespace: ns }), isNotFound);

  await client.create<ConfigMap>(
    cms,
    { metadata: { name: "held", finalizers: ["example.com/hold"] } },
    { namespace: ns },
  );
  const held = (await client.delete<ConfigMap>(cms, "held", {
    namespace: ns,
    gracePeriodSeconds: 0,
  })) as ConfigMap;
  assert.equal(held.kind, "ConfigMap");
  assert.ok(held.metadata?.deletionTimestamp);
  await client.patch(cms, "held", { metadata: { finalizers: null } }, { namespace: ns, patchType: "merge" });
  await assert.rejects(client.get(cms, "held", { namespace: ns }), isNotFound);
});

test("deleteCollection deletes what the selector matches", async () => {
  const ns = await namespace("verbs-deletecollection");
  for (const [name, tier] of [
    ["a", "x"],
    ["b", "x"],
    ["c", "y"],
  ]) {
    await client.create<ConfigMap>(cms, { metadata: { name, labels: { tier } } }, { namespace: ns });
  }
  await client.deleteCollection(cms, { namespace: ns, labelSelector: "tier=x" });
  const left = await client.list<ConfigMap>(cms, { namespace: ns });
  assert.deepEqual(
    left.items.map((c) => c.metadata?.name),
    ["c"],
  );
});

test("cluster-scoped resources ignore a namespace", async () => {
  const created = await client.create<Namespace>(namespaces, {
    metadata: { name: "verbs-cluster", namespace: "x" },
  });
  assert.equal(created.metadata?.namespace, undefined);
  const got = await client.get<Namespace>(namespaces, "verbs-cluster", { namespace: "ignored" });
  assert.equal(got.metadata?.uid, created.metadata?.uid);
});

test("fieldValidation=Warn surfaces the server's warning", async () => {
  const ns = await namespace("verbs-warn");
  const warnings: Warning[] = [];
  await client.create(cms, { metadata: { name: "w" }, junk: 1 } as ConfigMap, {
    namespace: ns,
    fieldValidation: "Warn",
    onWarning: (w) => warnings.push(w),
  });
  assert.deepEqual(warnings, [{ code: 299, agent: "-", text: 'unknown field "junk"' }]);
});

test("watch: events for changes after the listed version, in order", async () => {
  const ns = await namespace("verbs-watch");
  const list = await client.list<ConfigMap>(cms, { namespace: ns });
  const ac = new AbortController();
  const stream = await client.watch<ConfigMap>(cms, {
    namespace: ns,
    resourceVersion: list.metadata?.resourceVersion,
    allowWatchBookmarks: true,
    signal: ac.signal,
  });
  const cm = await client.create<ConfigMap>(
    cms,
    { metadata: { name: "w1" }, data: { a: "1" } },
    { namespace: ns },
  );
  await client.update<ConfigMap>(cms, { ...cm, metadata: { ...cm.metadata, labels: { app: "y" } } });
  await client.delete(cms, "w1", { namespace: ns });
  const seen: string[] = [];
  for await (const e of stream as AsyncIterable<WatchEvent<ConfigMap>>) {
    if (e.type === "BOOKMARK") continue;
    seen.push(`${e.type} ${e.type === "ERROR" ? "" : e.object.metadata?.name}`);
    if (seen.length === 3) break;
  }
  assert.deepEqual(seen, ["ADDED w1", "MODIFIED w1", "DELETED w1"]);
});

test("watch ends when the server's timeoutSeconds runs out", async () => {
  const ns = await namespace("verbs-watch-timeout");
  const stream = await client.watch(cms, { namespace: ns, timeoutSeconds: 1 });
  const events: WatchEvent[] = [];
  for await (const e of stream) events.push(e);
  assert.ok(events.every((e) => e.type === "BOOKMARK"));
});

test("raw requests reach discovery, /version and /healthz", async () => {
  const version = await client.request<{ major: string; gitVersion: string }>({ path: "/version" });
  assert.ok(version.gitVersion);
  const apps = await client.request<{ kind: string; resources: { name: string }[] }>({
    path: "/apis/apps/v1",
  });
  assert.equal(apps.kind, "APIResourceList");
  assert.ok(apps.resources.some((r) => r.name === "deployments"));
  assert.equal(await client.request({ path: "/healthz", responseType: "text" }), "ok");
});
