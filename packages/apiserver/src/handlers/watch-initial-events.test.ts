// Initial events (streamed lists, sendInitialEvents=true, and the replay of history from an old
// resourceVersion) are written at the pace the client reads them and never count against the
// watch buffer limit; live events that arrive meanwhile follow the initial-events-end bookmark,
// each exactly once; a watcher that does not read its live events is still cut off. The server
// runs with a 64 KiB limit, far below the snapshots written here.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { request } from "node:https";
import { after, before, describe, test } from "node:test";
import { Agent } from "undici";
import { Api, configMap, type Target, type WatchEvent } from "../../../../test/apiserver/harness.js";
import { type RunningAPIServer, startAPIServer } from "../index.js";

const STORE = "/configmaps";
const LIMIT = 64 * 1024;
const payload = "x".repeat(2000); // about 2.2 KiB a ConfigMap: 20 000 of them pass any socket buffer
const STREAM = "watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan";

/** A watch read through node:https, which stops reading the socket while paused. */
class RawWatch {
  readonly events: WatchEvent[] = [];
  readonly closed: Promise<void>;
  #buf = "";
  #waiters: (() => void)[] = [];

  constructor(readonly res: IncomingMessage) {
    res.pause();
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => {
      this.#buf += chunk;
      const lines = this.#buf.split("\n");
      this.#buf = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line) as WatchEvent);
      this.#wake();
    });
    this.closed = new Promise((resolve) => {
      res.once("close", () => {
        resolve();
        this.#wake();
      });
      res.once("error", () => {});
    });
  }

  static open(server: RunningAPIServer, path: string, accept?: string): Promise<RawWatch> {
    const url = new URL(server.url);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: Number(url.port),
          path,
          ca: server.caPem,
          agent: false,
          headers: { authorization: `Bearer ${server.adminToken}`, ...(accept ? { accept } : {}) },
        },
        (res) => resolve(new RawWatch(res)),
      );
      req.on("error", reject);
      req.end();
    });
  }

  /** Reads until `done` holds (or the stream closes); then keeps reading unless `pause`. */
  async readUntil(done: (events: WatchEvent[]) => boolean, pause = false): Promise<WatchEvent[]> {
    this.res.resume();
    while (!done(this.events) && !this.res.destroyed && !this.res.complete) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    if (pause) this.res.pause();
    return this.events;
  }

  close(): void {
    this.res.destroy();
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }
}

const isEnd = (e: WatchEvent) =>
  e.type === "BOOKMARK" && e.object.metadata?.annotations?.["k8s.io/initial-events-end"] === "true";
const endSeen = (events: WatchEvent[]) => events.some(isEnd);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until earlier tests' watches have closed on the server side. */
async function noWatchers(server: RunningAPIServer): Promise<void> {
  for (let i = 0; i < 500 && server.storage.watcherCount(STORE) > 0; i++) await sleep(10);
  assert.equal(server.storage.watcherCount(STORE), 0);
}

describe("initial events are written at the client's pace", () => {
  let server: RunningAPIServer;
  let api: Api;
  before(async () => {
    server = await startAPIServer({ watchBufferBytes: LIMIT });
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
    api = new Api(target);
  });
  after(() => api.target.close());

  /** `count` ConfigMaps put straight into storage (the HTTP creates are not under test). */
  async function fill(prefix: string, count: number, labels?: (i: number) => Record<string, string>) {
    const ns = await api.namespace(prefix);
    for (let i = 0; i < count; i++) {
      server.storage.put(STORE, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: {
          name: `cm-${String(i).padStart(5, "0")}`,
          namespace: ns,
          ...(labels ? { labels: labels(i) } : {}),
        },
        data: { payload },
      });
    }
    return ns;
  }

  test("20 000 objects reach a client that reads slowly at first, then the bookmark; no cut-off", async () => {
    const ns = await fill("many", 20_000);
    const rv = server.storage.resourceVersion;
    const w = await RawWatch.open(server, `/api/v1/namespaces/${ns}/configmaps?${STREAM}`);
    // Not reading for longer than the grace a congested live watcher gets.
    await sleep(1500);
    assert.equal(server.storage.watcherCount(STORE), 1, "still open while the client does not read");
    const events = await w.readUntil(endSeen);
    w.close();
    assert.equal(events.filter((e) => e.type === "ERROR").length, 0, JSON.stringify(events.at(-1)));
    assert.equal(events.length, 20_001);
    for (let i = 0; i < 20_000; i++) {
      assert.equal(events[i]!.type, "ADDED");
      assert.equal(events[i]!.object.metadata.name, `cm-${String(i).padStart(5, "0")}`);
    }
    assert.ok(isEnd(events[20_000]!));
    assert.equal(events[20_000]!.object.metadata.resourceVersion, String(rv));
  });

  test("objects changed while the snapshot is written arrive after the bookmark, each change once", async () => {
    const ns = await fill("changed", 20_000);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const snapshotRv = server.storage.resourceVersion;
    const w = await RawWatch.open(server, `${path}?${STREAM}`);
    const old1 = (await api.get(`${path}/cm-00001`)).body;

    // Changes while the client has not read the snapshot: the server is still writing it.
    const changes: [string, string, string][] = []; // type, name, resourceVersion
    const record = (
      type: string,
      r: { status: number; body: { metadata: { name: string; resourceVersion: string } } },
    ) => {
      assert.ok(r.status < 300, JSON.stringify(r.body));
      changes.push([type, r.body.metadata.name, r.body.metadata.resourceVersion]);
    };
    record("MODIFIED", await api.put(`${path}/cm-00001`, { ...old1, data: { payload: "changed" } }));
    record("MODIFIED", await api.patch(`${path}/cm-00002`, { data: { a: "1" } }));
    record("MODIFIED", await api.patch(`${path}/cm-00002`, { data: { a: "2" } }));
    const del = await api.delete(`${path}/cm-00003`);
    assert.equal(del.status, 200);
    changes.push(["DELETED", "cm-00003", String(Number(changes.at(-1)![2]) + 1)]);
    record("ADDED", await api.post(path, configMap("new-1")));
    record("ADDED", await api.post(path, configMap("new-2")));
    assert.equal((await api.delete(`${path}/new-2`)).status, 200);
    changes.push(["DELETED", "new-2", String(server.storage.resourceVersion)]);
    await sleep(200);
    record("ADDED", await api.post(path, configMap("sentinel")));

    const events = await w.readUntil((es) => es.some((e) => e.object?.metadata?.name === "sentinel"));
    w.close();
    const end = events.findIndex(isEnd);
    assert.equal(end, 20_000, "the snapshot is whole and comes first");
    assert.equal(events[end]!.object.metadata.resourceVersion, String(snapshotRv));
    const snapshot = events.slice(0, end);
    assert.ok(
      snapshot.every((e) => e.type === "ADDED" && Number(e.object.metadata.resourceVersion) <= snapshotRv),
    );
    assert.deepEqual(snapshot[1]!.object.data, { payload }, "the snapshot shows the version at its RV");
    assert.ok(snapshot.some((e) => e.object.metadata.name === "cm-00003"));
    assert.ok(!snapshot.some((e) => e.object.metadata.name.startsWith("new-")));
    const live = events
      .slice(end + 1)
      .map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]);
    assert.deepEqual(live, changes);
    assert.deepEqual(events.at(-1)!.object.metadata.name, "sentinel");
  });

  test("a plain list and a streamed list agree, with a selector and in the metadata form", async () => {
    const ns = await fill("agree", 3000, (i) => ({ parity: i % 2 ? "odd" : "even" }));
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    for (const accept of [undefined, "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"]) {
      const listAccept = accept?.replace("as=PartialObjectMetadata;", "as=PartialObjectMetadataList;");
      const list = await api.call("GET", `${path}?labelSelector=parity%3Dodd`, undefined, {
        accept: listAccept,
      });
      assert.equal(list.status, 200);
      const w = await RawWatch.open(server, `${path}?${STREAM}&labelSelector=parity%3Dodd`, accept);
      const events = await w.readUntil(endSeen);
      w.close();
      const streamed = events.filter((e) => e.type === "ADDED").map((e) => e.object);
      assert.equal(streamed.length, 1500);
      assert.equal(events.at(-1)!.object.metadata.resourceVersion, list.body.metadata.resourceVersion);
      const strip = ({ kind: _k, apiVersion: _a, ...rest }: Record<string, unknown>) => rest;
      assert.deepEqual(streamed.map(strip), list.body.items.map(strip));
    }
  });

  test("a replay of history from an old resourceVersion reaches a slow reader in order", async () => {
    const ns = await api.namespace("replay");
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const from = server.storage.resourceVersion;
    const count = 15_000; // the history keeps 20 000 changes
    for (let i = 0; i < count; i++) {
      server.storage.put(STORE, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `r-${String(i).padStart(5, "0")}`, namespace: ns },
        data: { payload },
      });
    }
    const w = await RawWatch.open(server, `${path}?watch=1&resourceVersion=${from}`);
    await sleep(1500);
    await api.post(path, configMap("after"));
    const events = await w.readUntil((es) => es.at(-1)?.object?.metadata?.name === "after");
    w.close();
    assert.equal(events.length, count + 1);
    assert.ok(events.every((e) => e.type === "ADDED"));
    const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(
      rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]!),
      "in resourceVersion order",
    );
  });

  test("a streamed-list watcher that stops reading its live events is cut off; writers go on", async () => {
    const ns = await fill("stops", 100);
    await noWatchers(server);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const w = await RawWatch.open(server, `${path}?${STREAM}`);
    await w.readUntil(endSeen, true);
    const big = "x".repeat(64 * 1024);
    let written = 0;
    while (server.storage.watcherCount(STORE) > 0 && written < 2000) {
      const r = await api.post(path, configMap(`big-${written}`, { big }));
      assert.equal(r.status, 201);
      written++;
    }
    assert.equal(server.storage.watcherCount(STORE), 0, "the watcher was cut off");
    await w.readUntil(() => false);
    await w.closed;
    assert.ok(
      w.events.filter((e) => e.type === "ADDED").length < 100 + written,
      "it did not get every event",
    );
  });

  test("live events held behind a snapshot the client does not read count: past the limit it is cut off", async () => {
    const ns = await fill("held", 20_000);
    await noWatchers(server);
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const w = await RawWatch.open(server, `${path}?${STREAM}`);
    const big = "x".repeat(64 * 1024);
    let written = 0;
    while (server.storage.watcherCount(STORE) > 0 && written < 100) {
      const r = await api.post(path, configMap(`big-${written}`, { big }));
      assert.equal(r.status, 201);
      written++;
    }
    assert.equal(server.storage.watcherCount(STORE), 0, "the watcher was cut off");
    assert.ok(written <= 5, `cut off once held events passed 4× the limit (after ${written} writes)`);
    w.close();
  });
});
