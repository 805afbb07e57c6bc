import assert from "node:assert/strict";
import { test } from "node:test";
import { WatchDecodeError } from "./errors.js";
import { decodeWatchBatches, decodeWatchStream, MAX_WATCH_EVENT_BYTES, type WatchEvent } from "./watch.js";

// A stream in the API server's framing: one event per line, with multi-byte UTF-8 (2, 3 and 4
// bytes) so that splits land inside characters.
const EVENTS: WatchEvent[] = [
  {
    type: "ADDED",
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "w1", namespace: "t", resourceVersion: "10", labels: { app: "x" } },
      data: { greeting: "grüße, 世界 🌍" },
    } as WatchEvent["object"],
  },
  {
    type: "MODIFIED",
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "w1", namespace: "t", resourceVersion: "11" },
      data: { greeting: "ça va? ✓" },
    } as WatchEvent["object"],
  },
  { type: "BOOKMARK", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { resourceVersion: "11" } } },
  {
    type: "DELETED",
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "w1", namespace: "t", resourceVersion: "12" },
    },
  },
  {
    type: "ERROR",
    object: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "too old resource version: 1 (12)",
      reason: "Expired",
      code: 410,
    },
  },
];
const STREAM = new TextEncoder().encode(EVENTS.map((e) => `${JSON.stringify(e)}\n`).join(""));

async function* chunks(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const text = (s: string) => new TextEncoder().encode(s);

test("decodes every event whichever byte offset splits the stream in two", async () => {
  for (let i = 0; i <= STREAM.length; i++) {
    const got = await collect(decodeWatchStream(chunks(STREAM.subarray(0, i), STREAM.subarray(i))));
    assert.deepEqual(got, EVENTS, `split at byte ${i}`);
  }
});

test("decodes a stream delivered one byte at a time", async () => {
  const bytes = Array.from(STREAM, (_, i) => STREAM.subarray(i, i + 1));
  assert.deepEqual(await collect(decodeWatchStream(chunks(...bytes))), EVENTS);
});

test("decodes a stream split at every pair of offsets three bytes apart", async () => {
  for (let i = 0; i < STREAM.length; i += 7) {
    const j = Math.min(STREAM.length, i + 3);
    const got = await collect(
      decodeWatchStream(chunks(STREAM.subarray(0, i), STREAM.subarray(i, j), STREAM.subarray(j))),
    );
    assert.deepEqual(got, EVENTS, `split at ${i} and ${j}`);
  }
});

test("yields each event as soon as its line is complete, before the stream ends", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  async function* slow() {
    yield text(`${JSON.stringify(EVENTS[0])}\n${JSON.stringify(EVENTS[1]).slice(0, 10)}`);
    await gate;
    yield text(`${JSON.stringify(EVENTS[1]).slice(10)}\n`);
  }
  const it = decodeWatchStream(slow());
  assert.deepEqual((await it.next()).value, EVENTS[0]);
  release();
  assert.deepEqual((await it.next()).value, EVENTS[1]);
  assert.equal((await it.next()).done, true);
});

test("skips blank lines and carriage returns", async () => {
  const body = `\n${JSON.stringify(EVENTS[0])}\r\n  \n${JSON.stringify(EVENTS[3])}\n\n`;
  assert.deepEqual(await collect(decodeWatchStream(chunks(text(body)))), [EVENTS[0], EVENTS[3]]);
});

test("a last event without a newline still counts", async () => {
  const body = `${JSON.stringify(EVENTS[0])}\n${JSON.stringify(EVENTS[1])}`;
  assert.deepEqual(await collect(decodeWatchStream(chunks(text(body)))), [EVENTS[0], EVENTS[1]]);
});

test("a stream cut mid-event ends after the last whole event, as client-go's unexpected EOF", async () => {
  const body = `${JSON.stringify(EVENTS[0])}\n${JSON.stringify(EVENTS[1]).slice(0, 40)}`;
  assert.deepEqual(await collect(decodeWatchStream(chunks(text(body)))), [EVENTS[0]]);
});

test("an empty stream yields nothing", async () => {
  assert.deepEqual(await collect(decodeWatchStream(chunks())), []);
});

test("a malformed line throws a WatchDecodeError after the events before it", async () => {
  const body = `${JSON.stringify(EVENTS[0])}\n{"type":"ADDED","object":{nope}\n${JSON.stringify(EVENTS[1])}\n`;
  const got: WatchEvent[] = [];
  await assert.rejects(
    async () => {
      for await (const e of decodeWatchStream(chunks(text(body)))) got.push(e);
    },
    (err: unknown) => {
      assert.ok(err instanceof WatchDecodeError);
      assert.equal(err.code, "ERR_K8S_WATCH_DECODE");
      assert.equal(err.name, "WatchDecodeError");
      assert.equal(err.line, '{"type":"ADDED","object":{nope}');
      assert.match(err.message, /not JSON/);
      return true;
    },
  );
  assert.deepEqual(got, [EVENTS[0]]);
});

test("JSON that is not a watch event throws a WatchDecodeError", async () => {
  for (const line of [
    '{"kind":"ConfigMap"}',
    '{"type":"UPSERTED","object":{}}',
    '{"type":"ADDED"}',
    "[1,2]",
    "42",
  ]) {
    await assert.rejects(collect(decodeWatchStream(chunks(text(`${line}\n`)))), WatchDecodeError, line);
  }
});

test("an aborted signal ends the iteration with its reason at the next event", async () => {
  const ac = new AbortController();
  const it = decodeWatchStream(chunks(STREAM), { signal: ac.signal });
  assert.deepEqual((await it.next()).value, EVENTS[0]);
  ac.abort(new Error("stop"));
  await assert.rejects(it.next(), /stop/);
});

test("return() returns the source iterator, so the body is released", async () => {
  let finalized = false;
  async function* source() {
    try {
      yield STREAM;
      yield STREAM;
    } finally {
      finalized = true;
    }
  }
  for await (const e of decodeWatchStream(source())) {
    assert.equal(e.type, "ADDED");
    break;
  }
  assert.equal(finalized, true);
});

test("batches hold the events of each chunk, in order, and never come empty", async () => {
  const cut = STREAM.indexOf(10) + 5; // inside the second event
  const batches = await collect(
    decodeWatchBatches(chunks(STREAM.subarray(0, 3), STREAM.subarray(3, cut), STREAM.subarray(cut))),
  );
  assert.deepEqual(batches, [[EVENTS[0]], EVENTS.slice(1)]);
});

test("a malformed line in a batch first hands over the events before it", async () => {
  const bad = `${JSON.stringify(EVENTS[0])}\n{not json\n${JSON.stringify(EVENTS[1])}\n`;
  const it = decodeWatchBatches(chunks(text(bad)));
  assert.deepEqual((await it.next()).value, [EVENTS[0]]);
  await assert.rejects(it.next(), WatchDecodeError);
});

test("a byte-order mark before the first event is dropped, as a TextDecoder drops it", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  assert.deepEqual(
    await collect(decodeWatchStream(chunks(bom.subarray(0, 2), bom.subarray(2), STREAM))),
    EVENTS,
  );
});

test("an event past 16 MiB fails the stream before more is buffered, as client-go's decoder", async () => {
  let consumed = 0;
  async function* endless(): AsyncGenerator<Uint8Array> {
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    chunk[0] = 0x7b;
    // 100 MB of one event that never ends.
    for (let i = 0; i < 1600; i++) {
      consumed += chunk.length;
      yield chunk;
    }
  }
  await assert.rejects(
    async () => {
      for await (const _ of decodeWatchStream(endless())) assert.fail("no event expected");
    },
    (err: unknown) =>
      err instanceof WatchDecodeError &&
      err.message === "object to decode was longer than maximum allowed size",
  );
  assert.ok(consumed <= MAX_WATCH_EVENT_BYTES + 64 * 1024, `read ${consumed} bytes`);
  // Events up to the limit pass, also when they span chunks.
  const line = `{"type":"ADDED","object":{"kind":"ConfigMap","data":{"a":"${"x".repeat(1024 * 1024)}"}}}\n`;
  async function* twoChunks(): AsyncGenerator<Uint8Array> {
    const bytes = Buffer.from(line);
    yield bytes.subarray(0, 1000);
    yield bytes.subarray(1000);
  }
  const events = [];
  for await (const ev of decodeWatchStream(twoChunks(), { maxEventBytes: 2 * 1024 * 1024 })) events.push(ev);
  assert.equal(events.length, 1);
});
