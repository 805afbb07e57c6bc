// Watch and list behaviour that needs server options (a tiny history, buffer or bookmark
// period): a resourceVersion older than the history is an ERROR event with 410 Expired and
// kube's message; a continue token older than the history is a 410; periodic bookmarks; and a
// watcher that stops reading is cut off without blocking writers or other watchers.
import assert from "node:assert/strict";
import { connect } from "node:tls";
import { after, before, describe, test } from "node:test";
import { Api, collect, configMap, type Target } from "../../../../test/apiserver/harness.js";
import { type RunningAPIServer, startAPIServer } from "../index.js";
import type { APIServerOptions } from "../server.js";
import { Agent } from "undici";

async function embedded(opts: APIServerOptions): Promise<{ server: RunningAPIServer; api: Api }> {
  const server = await startAPIServer(opts);
  const agent = new Agent({ connect: { ca: server.caPem } });
  const target: Target = {
    url: server.url,
    token: server.adminToken,
    caPem: server.caPem,
    embedded: true,
    agent,
    async close() {
      await agent.close();
      await server.stop();
    },
  };
  return { server, api: new Api(target) };
}

describe("history limits", () => {
  let api: Api;
  before(async () => {
    ({ api } = await embedded({ historySize: 5 }));
  });
  after(() => api.target.close());

  test("a watch from a version older than the history gets 200 and an ERROR event with 410 Expired", async () => {
    const ns = await api.namespace("old");
    const first = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c0"));
    const rv = Number(first.body.metadata.resourceVersion);
    for (let i = 1; i <= 8; i++) await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(`c${i}`));
    const events = await collect(
      api.watch(`/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`),
      () => false,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0].type, "ERROR");
    const status = events[0].object;
    assert.equal(status.kind, "Status");
    assert.equal(status.code, 410);
    assert.equal(status.reason, "Expired");
    // The oldest version still available is named in parentheses, as etcd's compaction does.
    const m = /^too old resource version: (\d+) \((\d+)\)$/.exec(status.message);
    assert.ok(m, status.message);
    assert.equal(Number(m[1]), rv);
    assert.ok(Number(m[2]) > rv);
  });

  test("a continue token older than the history is a 410 with kube's message", async () => {
    const ns = await api.namespace("cont");
    for (let i = 0; i < 3; i++) await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(`p${i}`));
    const page = await api.get(`/api/v1/namespaces/${ns}/configmaps?limit=1`);
    const token = page.body.metadata.continue;
    assert.ok(token);
    for (let i = 0; i < 8; i++) await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(`q${i}`));
    const next = await api.get(`/api/v1/namespaces/${ns}/configmaps?limit=1&continue=${token}`);
    assert.equal(next.status, 410);
    assert.equal(next.body.reason, "Expired");
    assert.match(
      next.body.message,
      /^The provided continue parameter is too old to display a consistent list result\./,
    );
  });
});

describe("bookmarks", () => {
  let api: Api;
  before(async () => {
    ({ api } = await embedded({ bookmarkIntervalMs: 50 }));
  });
  after(() => api.target.close());

  test("allowWatchBookmarks sends periodic BOOKMARKs carrying the current resourceVersion", async () => {
    const ns = await api.namespace("bm");
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("b"));
    const rv = created.body.metadata.resourceVersion;
    const ac = new AbortController();
    const events = await collect(
      api.watch(
        `/api/v1/namespaces/${ns}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`,
        ac.signal,
      ),
      (seen) => seen.filter((e) => e.type === "BOOKMARK").length >= 3,
    );
    ac.abort();
    const bookmarks = events.filter((e) => e.type === "BOOKMARK");
    assert.ok(bookmarks.length >= 3);
    for (const b of bookmarks) {
      assert.equal(b.object.kind, "ConfigMap");
      assert.ok(Number(b.object.metadata.resourceVersion) >= Number(rv));
    }
  });

  test("without allowWatchBookmarks there are none", async () => {
    const ns = await api.namespace("bm");
    const created = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("b"));
    const events = await collect(
      api.watch(
        `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${created.body.metadata.resourceVersion}`,
      ),
      () => false,
    );
    assert.deepEqual(events, []);
  });
});

describe("slow watchers", () => {
  let server: RunningAPIServer;
  let api: Api;
  before(async () => {
    ({ server, api } = await embedded({ watchBufferBytes: 64 * 1024 }));
  });
  after(() => api.target.close());

  test("a watcher that stops reading is cut off; writers and other watchers go on", async () => {
    const ns = await api.namespace("slow");
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const rv = (await api.get(path)).body.metadata.resourceVersion;

    // The slow watcher: a raw TLS connection that sends the request and never reads.
    const url = new URL(server.url);
    const socket = connect({
      host: url.hostname,
      port: Number(url.port),
      ca: server.caPem,
      servername: "localhost",
    });
    await new Promise<void>((resolve, reject) => {
      socket.once("secureConnect", () => resolve());
      socket.once("error", reject);
    });
    socket.write(
      `GET ${path}?watch=1&resourceVersion=${rv} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${server.adminToken}\r\n\r\n`,
    );
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    socket.on("error", () => {});

    // A healthy watcher that reads everything.
    const ac = new AbortController();
    let written = 0;
    const seen: string[] = [];
    const healthy = (async () => {
      for await (const ev of api.watch(`${path}?watch=1&resourceVersion=${rv}`, ac.signal)) {
        assert.equal(ev.type, "ADDED");
        seen.push(ev.object.metadata.name);
        if (ev.object.metadata.name === "last") break;
      }
    })();

    // Writers are never blocked: creates keep answering while the slow watcher's buffers fill
    // (the kernel's socket buffers first, then the server's), until it is cut off.
    const store = "/configmaps";
    for (let i = 0; i < 500 && server.storage.watcherCount(store) < 2; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(server.storage.watcherCount(store), 2, "both watchers are open");
    const big = "x".repeat(64 * 1024);
    while (server.storage.watcherCount(store) === 2 && written < 2000) {
      const r = await api.post(path, configMap(`c${written}`, { big }));
      assert.equal(r.status, 201);
      written++;
    }
    assert.equal(server.storage.watcherCount(store), 1, "the slow watcher was cut off");
    // A last event after the cut-off: the healthy watcher sees everything, in order.
    await api.post(path, configMap("last"));
    await healthy;
    ac.abort();
    assert.deepEqual(seen, [...Array.from({ length: written }, (_, i) => `c${i}`), "last"]);

    // The slow one was dropped: its connection closes once it is cut off.
    socket.resume();
    let received = "";
    socket.on("data", (d: Buffer) => {
      received += d.toString("latin1");
    });
    await closed;
    assert.match(received, /^HTTP\/1\.1 200/);
    // If what was buffered reached it, the last line is the ERROR that says why.
    if (received.includes('"type":"ERROR"')) {
      assert.match(received, /the client did not read events fast enough/);
    }
    assert.ok(received.length < written * big.length, "it did not get every event");
  });
});
