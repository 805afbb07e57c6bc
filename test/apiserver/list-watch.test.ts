// Lists and watches over HTTP: selectors, pagination with a consistent snapshot, resourceVersion
// semantics, metadata-only lists, watch replay, selector transitions, bookmarks, initial events.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, collect, configMap, startTarget, type Target } from "./harness.js";
import { knownDifference } from "../support/environment.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

async function fill(ns: string, n: number, labels?: (i: number) => Record<string, string>) {
  for (let i = 0; i < n; i++) {
    const r = await api.post(
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap(`c${i}`, { i: String(i) }, labels?.(i)),
    );
    assert.equal(r.status, 201);
  }
}

const names = (list: { items: { metadata: { name: string } }[] }) => list.items.map((i) => i.metadata.name);

describe("list", () => {
  test("label selectors: =, !=, in, notin, exists, !", async () => {
    const ns = await api.namespace();
    await fill(ns, 4, (i) =>
      i === 3 ? {} : { app: i === 0 ? "a" : "b", ...(i === 2 ? { tier: "x" } : {}) },
    );
    const q = async (sel: string) =>
      names(
        (await api.get(`/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent(sel)}`)).body,
      );
    assert.deepEqual(await q("app=a"), ["c0"]);
    assert.deepEqual(await q("app==b"), ["c1", "c2"]);
    assert.deepEqual(await q("app!=a"), ["c1", "c2", "c3"]);
    assert.deepEqual(await q("app in (a,b)"), ["c0", "c1", "c2"]);
    assert.deepEqual(await q("app notin (a)"), ["c1", "c2", "c3"]);
    assert.deepEqual(await q("tier"), ["c2"]);
    assert.deepEqual(await q("!app"), ["c3"]);
    const bad = await api.get(
      `/api/v1/namespaces/${ns}/configmaps?labelSelector=${encodeURIComponent("a b")}`,
    );
    assert.equal(bad.status, 400);
  });

  test("list items carry no kind; the list has kind, apiVersion and a resourceVersion", async () => {
    const ns = await api.namespace();
    await fill(ns, 1);
    const r = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(r.body.kind, "ConfigMapList");
    assert.equal(r.body.apiVersion, "v1");
    assert.match(r.body.metadata.resourceVersion, /^\d+$/);
    assert.equal(r.body.items[0].kind, undefined);
  });

  test("field selectors: metadata.name, per-kind fields, and 400 for an unsupported field", async () => {
    const ns = await api.namespace();
    await fill(ns, 3);
    const byName = await api.get(`/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name%3Dc1`);
    assert.deepEqual(names(byName.body), ["c1"]);
    const notName = await api.get(`/api/v1/namespaces/${ns}/configmaps?fieldSelector=metadata.name!%3Dc1`);
    assert.deepEqual(names(notName.body), ["c0", "c2"]);
    const bad = await api.get(`/api/v1/namespaces/${ns}/configmaps?fieldSelector=data.a%3Db`);
    assert.equal(bad.status, 400);
    assert.equal(
      bad.body.message,
      '"data.a" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    for (const [name, reason, type] of [
      ["e1", "Started", "Normal"],
      ["e2", "Failed", "Warning"],
    ]) {
      const r = await api.post(`/api/v1/namespaces/${ns}/events`, {
        metadata: { name },
        involvedObject: { kind: "Pod", name: `pod-${name}`, namespace: ns },
        reason,
        type,
        message: "m",
      });
      assert.equal(r.status, 201, r.text);
    }
    const ev = await api.get(
      `/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent("involvedObject.name=pod-e2,type=Warning")}`,
    );
    assert.deepEqual(names(ev.body), ["e2"]);
  });

  test("limit and continue page through a consistent snapshot while writes go on", async () => {
    const ns = await api.namespace();
    await fill(ns, 7);
    const first = await api.get(`/api/v1/namespaces/${ns}/configmaps?limit=3`);
    assert.deepEqual(names(first.body), ["c0", "c1", "c2"]);
    assert.equal(first.body.metadata.remainingItemCount, 4);
    const token = first.body.metadata.continue;
    assert.ok(token);
    // Changes after the first page must not show in the following ones.
    await api.delete(`/api/v1/namespaces/${ns}/configmaps/c4`);
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c35"));
    await api.patch(`/api/v1/namespaces/${ns}/configmaps/c5`, { data: { changed: "yes" } });
    const second = await api.get(`/api/v1/namespaces/${ns}/configmaps?limit=3&continue=${token}`);
    assert.deepEqual(names(second.body), ["c3", "c4", "c5"]);
    assert.equal(second.body.items[2].data.changed, undefined);
    assert.equal(second.body.metadata.resourceVersion, first.body.metadata.resourceVersion);
    const third = await api.get(
      `/api/v1/namespaces/${ns}/configmaps?limit=3&continue=${second.body.metadata.continue}`,
    );
    assert.deepEqual(names(third.body), ["c6"]);
    assert.equal(third.body.metadata.continue, undefined);
    const fresh = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
    assert.deepEqual(names(fresh.body), ["c0", "c1", "c2", "c3", "c35", "c5", "c6"]);
  });

  test("a full page with a selector continues when any object follows, matching or not (kube's etcd store)", async () => {
    const ns = await api.namespace();
    await fill(ns, 5, (i) => ({ x: i < 3 ? "1" : "0" }));
    const first = await api.get(`/api/v1/namespaces/${ns}/configmaps?labelSelector=x%3D1&limit=3`);
    assert.deepEqual(names(first.body), ["c0", "c1", "c2"]);
    assert.ok(first.body.metadata.continue, "c3 and c4 follow, though neither matches");
    assert.equal(first.body.metadata.remainingItemCount, undefined, "no count with a selector");
    const rest = await api.get(
      `/api/v1/namespaces/${ns}/configmaps?labelSelector=x%3D1&limit=3&continue=${first.body.metadata.continue}`,
    );
    assert.deepEqual(names(rest.body), []);
    assert.equal(rest.body.metadata.continue, undefined);
  });

  test("resourceVersionMatch=Exact lists the past; without resourceVersion it is a 422", async () => {
    const ns = await api.namespace();
    await fill(ns, 2);
    const before = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("later"));
    const rv = before.body.metadata.resourceVersion;
    const exact = await api.get(
      `/api/v1/namespaces/${ns}/configmaps?resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    assert.equal(exact.status, 200);
    assert.deepEqual(names(exact.body), ["c0", "c1"]);
    assert.equal(exact.body.metadata.resourceVersion, rv);
    const bad = await api.get(`/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=Exact`);
    assert.equal(bad.status, 422);
    assert.equal(bad.body.details.kind, "ListOptions");
  });

  test("PartialObjectMetadataList by Accept header", async () => {
    const ns = await api.namespace();
    await fill(ns, 2);
    const r = await api.get(`/api/v1/namespaces/${ns}/configmaps`, {
      accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
    });
    assert.equal(r.body.kind, "PartialObjectMetadataList");
    assert.equal(r.body.apiVersion, "meta.k8s.io/v1");
    assert.equal(r.body.items[0].kind, "PartialObjectMetadata");
    assert.equal(r.body.items[0].data, undefined);
    assert.equal(r.body.items[0].metadata.name, "c0");
  });

  test("lists across namespaces", async () => {
    const a = await api.namespace();
    const b = await api.namespace();
    await api.post(`/api/v1/namespaces/${a}/configmaps`, configMap("x", {}, { across: a }));
    await api.post(`/api/v1/namespaces/${b}/configmaps`, configMap("y", {}, { across: a }));
    const r = await api.get(`/api/v1/configmaps?labelSelector=across%3D${a}`);
    assert.deepEqual(
      r.body.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace).sort(),
      [a, b].sort(),
    );
  });
});

describe("watch", () => {
  test("replays changes after a resourceVersion, then streams, with kube's framing", async () => {
    const ns = await api.namespace();
    const c = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("w1", { a: "1" }));
    const rv = c.body.metadata.resourceVersion;
    await api.patch(`/api/v1/namespaces/${ns}/configmaps/w1`, { metadata: { labels: { app: "y" } } });
    const ac = new AbortController();
    const events = api.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, ac.signal);
    const first = await events.next();
    assert.equal(first.value?.type, "MODIFIED");
    assert.equal(first.value?.object.kind, "ConfigMap");
    assert.equal(first.value?.object.metadata.labels.app, "y");
    await api.delete(`/api/v1/namespaces/${ns}/configmaps/w1`);
    const second = await events.next();
    assert.equal(second.value?.type, "DELETED");
    assert.ok(
      Number(second.value?.object.metadata.resourceVersion) >
        Number(first.value?.object.metadata.resourceVersion),
    );
    ac.abort();
  });

  test("selectors apply to transitions: starts matching is ADDED, stops matching is DELETED", async () => {
    const ns = await api.namespace();
    const start = (await api.get(`/api/v1/namespaces/${ns}/configmaps`)).body.metadata.resourceVersion;
    const ac = new AbortController();
    const events = api.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=1&labelSelector=app%3Dy&resourceVersion=${start}`,
      ac.signal,
    );
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("w1"));
    await api.patch(`/api/v1/namespaces/${ns}/configmaps/w1`, { metadata: { labels: { app: "y" } } });
    await api.patch(`/api/v1/namespaces/${ns}/configmaps/w1`, { data: { b: "2" } });
    const off = await api.patch(`/api/v1/namespaces/${ns}/configmaps/w1`, {
      metadata: { labels: { app: "z" } },
    });
    const seen = await collect(events, (s) => s.length === 3);
    ac.abort();
    assert.deepEqual(
      seen.map((e) => e.type),
      ["ADDED", "MODIFIED", "DELETED"],
    );
    // The DELETED of a transition carries the last matching content at the new version.
    assert.equal(seen[2].object.metadata.labels.app, "y");
    assert.equal(seen[2].object.metadata.resourceVersion, off.body.metadata.resourceVersion);
  });

  test("a watch without resourceVersion starts with the current objects as ADDED", async () => {
    const ns = await api.namespace();
    await fill(ns, 2);
    const ac = new AbortController();
    const seen = await collect(
      api.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true`, ac.signal),
      (s) => s.length === 2,
    );
    ac.abort();
    // The order of the initial events is not specified (kube's watch cache keeps a map).
    assert.deepEqual(seen.map((e) => `${e.type} ${e.object.metadata.name}`).sort(), ["ADDED c0", "ADDED c1"]);
  });

  test("timeoutSeconds ends the watch, with a final BOOKMARK when bookmarks are allowed", async () => {
    const ns = await api.namespace();
    const rv = (await api.get(`/api/v1/namespaces/${ns}/configmaps`)).body.metadata.resourceVersion;
    // kube's watch cache sends that bookmark about 2 s before the deadline, so the watch must last longer.
    const events = api.watch(
      `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}&timeoutSeconds=4`,
    );
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("b1"));
    const seen = await collect(events, () => false);
    assert.equal(seen[0].type, "ADDED");
    const last = seen[seen.length - 1];
    if (knownDifference("kube-apiserver 1.26 sent no BOOKMARK before a 4 s watch timeout")) return;
    assert.equal(last.type, "BOOKMARK");
    assert.equal(last.object.kind, "ConfigMap");
    assert.ok(
      Number(last.object.metadata.resourceVersion) >= Number(seen[0].object.metadata.resourceVersion),
    );
  });

  test("sendInitialEvents streams the current objects, then an initial-events-end bookmark", async (t) => {
    const ns = await api.namespace();
    await fill(ns, 2);
    const ac = new AbortController();
    const path = `/api/v1/namespaces/${ns}/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`;
    const probe = await api.get(`${path}&timeoutSeconds=1`);
    if (probe.status === 422) {
      t.skip("server predates streaming lists (kube < 1.27)");
      return;
    }
    const seen = await collect(api.watch(path, ac.signal), (s) => s.some((e) => e.type === "BOOKMARK"));
    ac.abort();
    assert.deepEqual(
      seen.map((e) => e.type),
      ["ADDED", "ADDED", "BOOKMARK"],
    );
    assert.equal(seen[2].object.metadata.annotations["k8s.io/initial-events-end"], "true");
  });

  test("PartialObjectMetadata watch events", async () => {
    const ns = await api.namespace();
    await fill(ns, 1);
    const ac = new AbortController();
    const seen = await collect(
      api.watch(
        `/api/v1/namespaces/${ns}/configmaps?watch=1`,
        ac.signal,
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1",
      ),
      (s) => s.length === 1,
    );
    ac.abort();
    assert.equal(seen[0].object.kind, "PartialObjectMetadata");
    assert.equal(seen[0].object.data, undefined);
  });
});
