// The protobuf watch decoder alone: frames cut anywhere across chunks, the size limit, a frame
// that is not a WatchEvent, managedFields left undecoded.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WatchDecodeError } from "../rest/errors.js";
import { encodeWatchFrame } from "./codec.js";
import { decodeProtobufWatchBatches, ProtobufWatchDecoder } from "./watch-frames.js";

const cm = (i: number) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: `cm-${i}`,
    namespace: "ns",
    resourceVersion: String(100 + i),
    creationTimestamp: "2026-11-29T07:00:00Z",
    managedFields: [
      {
        manager: "m",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-11-29T07:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: { "f:data": { "f:k": {} } },
      },
    ],
  },
  data: { k: "ü".repeat(i) },
});

const frames = [0, 1, 200].map((i) => encodeWatchFrame(i === 1 ? "MODIFIED" : "ADDED", cm(i))!);
const body = Buffer.concat(frames);

test("frames cut at every byte boundary decode to the same events", () => {
  const whole = new ProtobufWatchDecoder().push(body);
  assert.deepEqual(
    whole.map((e) => e.type),
    ["ADDED", "MODIFIED", "ADDED"],
  );
  assert.deepEqual(whole[2]!.object, cm(200));
  for (let cut = 1; cut < body.length; cut++) {
    const d = new ProtobufWatchDecoder();
    const events = [...d.push(body.subarray(0, cut)), ...d.push(body.subarray(cut))];
    assert.deepEqual(events, whole, `cut at ${cut}`);
    assert.equal(d.pendingBytes, 0);
  }
});

test("frames fed in small chunks of a buffer the transport reuses decode to the same events", () => {
  const whole = new ProtobufWatchDecoder().push(body);
  for (const size of [1, 3, 7, 64]) {
    const d = new ProtobufWatchDecoder();
    const events = [];
    // One chunk buffer, overwritten after each push as a socket's may be: the decoder copies.
    const chunk = Buffer.alloc(size);
    for (let at = 0; at < body.length; at += size) {
      const n = body.copy(chunk, 0, at, Math.min(body.length, at + size));
      events.push(...d.push(chunk.subarray(0, n)));
      chunk.fill(0xff);
    }
    assert.deepEqual(events, whole, `chunks of ${size}`);
    assert.equal(d.pendingBytes, 0);
  }
});

test("the async form yields a batch per chunk that completed events; omitManagedFields skips them", async () => {
  async function* chunks() {
    yield body.subarray(0, 10);
    yield body.subarray(10, frames[0]!.length + frames[1]!.length + 3);
    yield body.subarray(frames[0]!.length + frames[1]!.length + 3);
  }
  const batches: number[] = [];
  for await (const batch of decodeProtobufWatchBatches(chunks(), { omitManagedFields: true })) {
    batches.push(batch.length);
    for (const e of batch)
      assert.equal((e.object.metadata as { managedFields?: unknown }).managedFields, undefined);
  }
  assert.deepEqual(batches, [2, 1]);
});

test("a frame past the limit and a frame that is not a WatchEvent are WatchDecodeErrors", async () => {
  assert.throws(() => new ProtobufWatchDecoder({ maxEventBytes: 100 }).push(body), WatchDecodeError);
  const bad = Buffer.concat([frames[0]!, Buffer.from([0, 0, 0, 3, 0xff, 0xff, 0xff])]);
  async function* chunks() {
    yield bad;
  }
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const batch of decodeProtobufWatchBatches(chunks())) seen.push(...batch.map((e) => e.type));
  }, /not a watch event/);
  assert.deepEqual(seen, ["ADDED"], "the events before the bad frame come first");
});
