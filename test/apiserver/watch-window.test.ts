// Each resource's watch cache, as kube-apiserver 1.26 sizes it: a watch from a version the cache
// no longer holds (it began later, or dropped it) is 410 Expired, so clients relist. On a real
// server the window is 100 events plus 75 s of history; these tests shrink it, and restart on
// the same storage, which only the embedded server can do.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { type APIServerOptions, startAPIServer, Storage } from "controller-runtime-apiserver";
import { newRESTClient, type RESTClient, resourceOf, StatusError } from "controller-runtime/rest";
import { needs } from "../support/environment.js";
import { Api, collect, startTarget } from "./harness.js";

const systemNamespaces = ["default", "kube-system", "kube-public", "kube-node-lease"];

const CM = resourceOf(kinds.ConfigMap);

async function firstEvent(rest: RESTClient, namespace: string, resourceVersion: string) {
  const stream = await rest.watch<ConfigMap>(CM, { namespace, resourceVersion });
  try {
    const first = await stream.next();
    assert.equal(first.done, false);
    return first.value;
  } finally {
    await stream.return();
  }
}

async function withServer(options: APIServerOptions, fn: (rest: RESTClient) => Promise<void>) {
  const server = await startAPIServer(options);
  const rest = newRESTClient(server.restConfig());
  try {
    await fn(rest);
  } finally {
    await rest.close();
    await server.stop();
  }
}

test(
  "a watch from a version the resource's cache dropped is 410 Expired, naming where it begins",
  needs("server-options"),
  async () => {
    await withServer({ watchCacheSize: { minEvents: 2, freshMs: 0 } }, async (rest) => {
      const rvs: string[] = [];
      for (let i = 0; i < 5; i++) {
        const cm = await rest.create<ConfigMap>(
          CM,
          { metadata: { name: `c${i}` } },
          { namespace: "default" },
        );
        rvs.push(cm.metadata?.resourceVersion ?? "");
      }
      // Kept: the newest two events (c3, c4); a watch may start at c2's version, not before.
      const gone = await firstEvent(rest, "default", rvs[1]);
      assert.equal(gone.type, "ERROR");
      const err = new StatusError(gone.object as never);
      assert.equal(err.statusCode, 410);
      assert.equal(err.reason, "Expired");
      assert.equal(err.message, `too old resource version: ${rvs[1]} (${rvs[2]})`);
      const kept = await firstEvent(rest, "default", rvs[2]);
      assert.equal(kept.type, "ADDED");
      assert.equal((kept.object as ConfigMap).metadata?.name, "c3");
    });
  },
);

test(
  "after a restart on the same storage, a watch from before the restart is 410 Expired",
  needs("server-internals"),
  async () => {
    const storage = new Storage();
    let before = "";
    await withServer({ storage }, async (rest) => {
      await rest.create(resourceOf(kinds.Namespace), { metadata: { name: "ww" } });
      const cm = await rest.create<ConfigMap>(CM, { metadata: { name: "old" } }, { namespace: "ww" });
      before = cm.metadata?.resourceVersion ?? "";
      // The storage moves on after that version, before the restart.
      await rest.create<ConfigMap>(CM, { metadata: { name: "later" } }, { namespace: "ww" });
    });
    await withServer({ storage }, async (rest) => {
      const ev = await firstEvent(rest, "ww", before);
      assert.equal(ev.type, "ERROR", JSON.stringify(ev));
      assert.equal(new StatusError(ev.object as never).statusCode, 410);
      // A watch from the version the new server started at is served.
      const list = await rest.list(CM, { namespace: "default" });
      const stream = await rest.watch(CM, {
        namespace: "default",
        resourceVersion: list.metadata?.resourceVersion,
      });
      await stream.return();
    });
  },
);

test("on a server just started, a watch from resourceVersion 1 replays the bootstrap objects' creations", async () => {
  // kube-apiserver's watch caches list at start, before its bootstrap writes the system
  // namespaces: they are events a watch from the first version sees (kube 1.37.2 answers no 410).
  const target = await startTarget();
  try {
    const api = new Api(target);
    const seen = await collect(
      api.watch("/api/v1/namespaces?watch=1&resourceVersion=1&timeoutSeconds=2"),
      (s) => systemNamespaces.every((n) => s.some((e) => e.object?.metadata?.name === n)),
    );
    assert.ok(
      seen.every((e) => e.type === "ADDED"),
      JSON.stringify(seen.map((e) => e.type)),
    );
    const rvs = seen.map((e) => Number(e.object.metadata.resourceVersion));
    assert.deepEqual(
      rvs,
      [...rvs].sort((a, b) => a - b),
    );
  } finally {
    await target.close();
  }
});
