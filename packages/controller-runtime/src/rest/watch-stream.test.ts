// Watches over real HTTP against a local server that frames events the way the API server does,
// and misbehaves the ways a network or a proxy can.
import assert from "node:assert/strict";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { test } from "node:test";
import { NetworkError, StatusError, WatchDecodeError } from "./errors.js";
import { startLocalServer } from "../../../../test/support/local-server.js";
import { newRESTClient } from "./rest-client.js";
import { isForbidden } from "./status-reasons.js";
import type { WatchEvent } from "./watch.js";

const cms = { group: "", version: "v1", resource: "configmaps" };

/** Polls `ok` until it holds (a generous deadline: these tests run on loaded machines). */
async function eventually(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!(await ok())) {
    if (performance.now() > deadline) throw new Error(`${what}: not after 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const added = (name: string, rv: number): WatchEvent => ({
  type: "ADDED",
  object: {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "w", resourceVersion: String(rv) },
  },
});
const nameOf = (e: WatchEvent) => (e.type === "ERROR" ? "(error)" : String(e.object.metadata?.name));
const line = (e: unknown) => `${JSON.stringify(e)}\n`;

function startStream(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  res.flushHeaders();
}

/** A server whose handler gets the response and the request's URL, plus a promise per request. */
async function streamServer(handler: (res: ServerResponse, url: string) => void) {
  const urls: string[] = [];
  const closed: Promise<void>[] = [];
  const server = await startLocalServer((req, res) => {
    urls.push(req.url ?? "");
    closed.push(once(res, "close").then(() => {}));
    handler(res, req.url ?? "");
  });
  const client = newRESTClient(server.config());
  return {
    urls,
    closed,
    client,
    async stop() {
      await client.transport.destroy();
      await server.close();
    },
  };
}

test("a watch sends watch=true with its options and yields events written in odd pieces", async () => {
  const events = [
    added("a", 1),
    added("b", 2),
    { type: "BOOKMARK", object: { metadata: { resourceVersion: "3" } } },
  ];
  const s = await streamServer((res) => {
    startStream(res);
    const text = events.map(line).join("");
    // Split mid-line, mid-key, and across a newline.
    for (const [from, to] of [
      [0, 5],
      [5, 90],
      [90, 91],
      [91, text.length],
    ]) {
      res.write(text.slice(from, to));
    }
    res.end();
  });
  try {
    const got: WatchEvent[] = [];
    const stream = await s.client.watch(cms, {
      namespace: "w",
      resourceVersion: "0",
      allowWatchBookmarks: true,
      timeoutSeconds: 300,
      labelSelector: "app=x",
    });
    for await (const e of stream) got.push(e);
    assert.deepEqual(got, events);
    assert.deepEqual(s.urls, [
      "/api/v1/namespaces/w/configmaps?labelSelector=app%3Dx&resourceVersion=0&timeoutSeconds=300&allowWatchBookmarks=true&watch=true",
    ]);
  } finally {
    await s.stop();
  }
});

test("the server ending the stream ends the iteration normally", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.write(line(added("a", 1)));
    res.end(line(added("b", 2)));
  });
  try {
    const names: string[] = [];
    for await (const e of await s.client.watch(cms)) names.push(nameOf(e));
    assert.deepEqual(names, ["a", "b"]);
  } finally {
    await s.stop();
  }
});

test("a connection dropped mid-event ends the iteration after the whole events", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.write(line(added("a", 1)));
    res.write(line(added("b", 2)).slice(0, 30), () => res.socket?.destroy());
  });
  try {
    const names: string[] = [];
    for await (const e of await s.client.watch(cms)) names.push(nameOf(e));
    assert.deepEqual(names, ["a"]);
  } finally {
    await s.stop();
  }
});

test("an ERROR event (expired resourceVersion) is yielded with its Status", async () => {
  const status = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: "too old resource version: 1 (50)",
    reason: "Expired",
    code: 410,
  };
  const s = await streamServer((res) => {
    startStream(res);
    res.end(line({ type: "ERROR", object: status }));
  });
  try {
    const got: WatchEvent[] = [];
    for await (const e of await s.client.watch(cms, { resourceVersion: "1" })) got.push(e);
    assert.deepEqual(got, [{ type: "ERROR", object: status }]);
  } finally {
    await s.stop();
  }
});

test("a malformed line is a WatchDecodeError the caller sees", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.write(line(added("a", 1)));
    res.write("<html>proxy error</html>\n");
  });
  try {
    const names: string[] = [];
    await assert.rejects(async () => {
      for await (const e of await s.client.watch(cms)) names.push(nameOf(e));
    }, WatchDecodeError);
    assert.deepEqual(names, ["a"]);
    await s.closed[0]; // the connection was closed, not left open
  } finally {
    await s.stop();
  }
});

test("aborting mid-stream ends the iteration with the signal's reason and closes the connection", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.write(line(added("a", 1)));
  });
  try {
    const ac = new AbortController();
    const stream = await s.client.watch(cms, { signal: ac.signal });
    const first = await stream.next();
    assert.equal(first.done, false);
    const pending = stream.next(); // parked: the server sends nothing more
    const reason = new Error("manager stopping");
    ac.abort(reason);
    await assert.rejects(pending, (err) => err === reason);
    await s.closed[0];
    assert.deepEqual(await stream.next(), { done: true, value: undefined });
  } finally {
    await s.stop();
  }
});

test("breaking out of the loop closes the connection", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.write(line(added("a", 1)));
  });
  try {
    for await (const e of await s.client.watch(cms)) {
      assert.equal(e.type, "ADDED");
      break;
    }
    await s.closed[0];
  } finally {
    await s.stop();
  }
});

test("return() on a stream never iterated closes the connection", async () => {
  const s = await streamServer((res) => startStream(res));
  try {
    const stream = await s.client.watch(cms);
    assert.deepEqual(await stream.return(), { done: true, value: undefined });
    await s.closed[0];
  } finally {
    await s.stop();
  }
});

test("a silent stream with inactivityTimeoutMs fails with a timed-out NetworkError", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.write(line(added("a", 1)));
  });
  try {
    const stream = await s.client.watch(cms, { inactivityTimeoutMs: 100 });
    assert.equal((await stream.next()).done, false);
    await assert.rejects(stream.next(), (err: unknown) => err instanceof NetworkError && err.timedOut);
    await s.closed[0];
  } finally {
    await s.stop();
  }
});

test("a refused watch rejects when opened, with the server's Status", async () => {
  const s = await streamServer((res) => {
    const body = JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      reason: "Forbidden",
      message: 'configmaps is forbidden: User "bob" cannot watch resource "configmaps"',
      code: 403,
    });
    res.writeHead(403, { "content-type": "application/json" }).end(body);
  });
  try {
    await assert.rejects(s.client.watch(cms), (err) => err instanceof StatusError && isForbidden(err));
  } finally {
    await s.stop();
  }
});

test("nextBatch hands over what next() left of a chunk, then the next chunks, then undefined", async () => {
  const s = await streamServer((res) => {
    startStream(res);
    res.end([added("a", 1), added("b", 2), added("c", 3)].map(line).join(""));
  });
  try {
    const stream = await s.client.watch(cms);
    const first = await stream.next();
    assert.equal(first.done ? "" : nameOf(first.value), "a");
    const rest: string[] = [];
    for (let b = await stream.nextBatch?.(); b !== undefined; b = await stream.nextBatch?.()) {
      assert.ok(b.length > 0, "a batch is never empty");
      rest.push(...b.map(nameOf));
    }
    assert.deepEqual(rest, ["b", "c"]);
    assert.equal((await stream.next()).done, true);
  } finally {
    await s.stop();
  }
});

test("consume pushes each chunk's events as it arrives, detaches on false, and resolves at the end", async () => {
  let write: ((text: string) => void) | undefined;
  let end: (() => void) | undefined;
  const s = await streamServer((res) => {
    startStream(res);
    write = (text) => res.write(text);
    end = () => res.end();
  });
  try {
    const stream = await s.client.watch(cms);
    assert.ok(stream.consume, "the REST client's streams push");
    // Before anyone consumes: a chunk, and half an event.
    write!(line(added("a", 1)) + line(added("b", 2)).slice(0, 10));
    const got: string[] = [];
    let calls = 0;
    const detached = stream.consume((events) => {
      calls++;
      got.push(...events.map(nameOf));
      return !got.includes("c"); // detach once "c" came
    });
    await eventually("the waiting chunk is pushed", () => got.includes("a"));
    write!(line(added("b", 2)).slice(10) + line(added("c", 3)));
    assert.equal(await detached, false, "detached, not ended");
    assert.deepEqual(got, ["a", "b", "c"]);
    assert.ok(calls <= 3, "a call per chunk, not per event");
    // The stream stayed open: what comes next is there for a pull, then for another consume.
    write!(line(added("d", 4)));
    assert.deepEqual((await stream.nextBatch!())?.map(nameOf), ["d"]);
    const more: string[] = [];
    const ended = stream.consume((events) => {
      more.push(...events.map(nameOf));
      return undefined;
    });
    write!(line(added("e", 5)));
    await eventually("e is pushed", () => more.includes("e"));
    end!();
    assert.equal(await ended, true, "the server's end resolves it");
    assert.deepEqual(more, ["e"]);
  } finally {
    await s.stop();
  }
});

test("consume rejects with a malformed line's error after the events before it, and on abort with the reason", async () => {
  const s = await streamServer((res, url) => {
    startStream(res);
    if (url.includes("namespaces/bad")) res.write(`${line(added("a", 1))}not json\n`);
  });
  try {
    const bad = await s.client.watch(cms, { namespace: "bad" });
    const got: string[] = [];
    await assert.rejects(
      bad.consume!((events) => void got.push(...events.map(nameOf))),
      WatchDecodeError,
    );
    assert.deepEqual(got, ["a"]);

    const ac = new AbortController();
    const quiet = await s.client.watch(cms, { namespace: "quiet", signal: ac.signal });
    const consuming = quiet.consume!(() => undefined);
    const reason = new Error("stopping");
    ac.abort(reason);
    await assert.rejects(consuming, (err) => err === reason);
    await eventually("the connection is closed", async () => {
      await s.closed[1];
      return true;
    });
  } finally {
    await s.stop();
  }
});

test("aborting before the answer's headers rejects the watch with the signal's reason", async () => {
  const s = await streamServer(() => {}); // never answers
  try {
    const ac = new AbortController();
    const opening = s.client.watch(cms, { signal: ac.signal });
    await eventually("the request reaches the server", () => s.urls.length === 1);
    const reason = new Error("manager stopping");
    ac.abort(reason);
    await assert.rejects(opening, (err) => err === reason);
    await s.closed[0];
  } finally {
    await s.stop();
  }
});

test("a watch answered 429 with Retry-After is sent again on the same terms, and its events come", async () => {
  let calls = 0;
  const s = await streamServer((res) => {
    if (calls++ === 0) {
      const body = JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 429 });
      res.writeHead(429, { "content-type": "application/json", "retry-after": "0" }).end(body);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(line(added("a", 1)));
  });
  try {
    const names: string[] = [];
    for await (const e of await s.client.watch(cms)) names.push(nameOf(e));
    assert.deepEqual(names, ["a"]);
    assert.equal(s.urls.length, 2);
  } finally {
    await s.stop();
  }
});

test("events sent with the headers, and many more than a reader takes at once, all come in order", async () => {
  const n = 5_000;
  const s = await streamServer((res) => {
    res.writeHead(200, { "content-type": "application/json" });
    // The first event in the same write as the headers: it may arrive before the stream listens.
    res.write(line(added("e0", 1)));
    for (let i = 1; i < n; i++) res.write(line(added(`e${i}`, i + 1)));
    res.end();
  });
  try {
    const stream = await s.client.watch(cms);
    let i = 0;
    for await (const e of stream) {
      assert.equal(nameOf(e), `e${i}`);
      i++;
      // A slow reader now and then: the body is paused while decoded events wait.
      if (i % 1000 === 0) await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(i, n);
  } finally {
    await s.stop();
  }
});
