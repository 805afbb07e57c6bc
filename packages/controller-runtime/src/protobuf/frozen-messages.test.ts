// A frozen object's message is encoded once and its bytes kept (a server's stored objects are
// deep-frozen and never change): the answers made from the kept bytes (a list, a watch frame, a
// get's envelope) are byte for byte the ones encoded from the object, every time; an object not
// frozen, or frozen only on top, is encoded as it is now.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  decodeProtobuf,
  encodeList,
  encodeListOf,
  encodeMessage,
  encodeProtobuf,
  encodeWatchFrameTextOf,
  envelopeTextOfMessage,
  frozenEnvelopeText,
  frozenFrameText,
  frozenMessageParts,
  frozenMessageText,
  watchFrameTextOfMessage,
} from "./codec.js";

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    for (const c of Object.values(v)) deepFreeze(c);
    Object.freeze(v);
  }
  return v;
}

const cm = (name: string, value: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    namespace: "ns",
    resourceVersion: "7",
    labels: { app: "é" },
    creationTimestamp: "2026-11-29T07:00:00Z",
  },
  // Long enough that lengths take two varint bytes.
  data: { k: value, long: "x".repeat(300) },
});

const latin1 = (text: string) => Buffer.from(text, "latin1");

test("a frozen object's kept message is its fresh encoding, in a list, a watch frame and a get", () => {
  const objs = [deepFreeze(cm("a", "1")), deepFreeze(cm("b", "ü€"))];
  for (let round = 0; round < 2; round++) {
    const messages = objs.map((o) => frozenMessageText("v1", "ConfigMap", o)!);
    for (const [i, m] of messages.entries()) {
      assert.deepEqual(latin1(m), encodeMessage("v1", "ConfigMap", objs[i]));
    }
    const meta = { resourceVersion: "9", continue: "c" };
    assert.deepEqual(
      encodeList("v1", "ConfigMapList", meta, messages),
      encodeListOf("v1", "ConfigMapList", "ConfigMap", meta, objs),
    );
    for (const type of ["ADDED", "MODIFIED", "DELETED"]) {
      const fresh = encodeWatchFrameTextOf(type, "v1", "ConfigMap", objs[1]);
      assert.equal(watchFrameTextOfMessage(type, "v1", "ConfigMap", messages[1]!), fresh);
      assert.equal(frozenFrameText(type, "v1", "ConfigMap", objs[1]!), fresh);
    }
    assert.deepEqual(
      latin1(envelopeTextOfMessage("v1", "ConfigMap", messages[0]!)),
      encodeProtobuf(objs[0]!),
    );
  }
  assert.equal(
    frozenMessageText("v1", "ConfigMap", objs[0]!),
    frozenMessageText("v1", "ConfigMap", objs[0]!),
  );
  assert.equal(frozenMessageText("v1", "NoSuchKind", objs[0]!), undefined);
});

test("a large object's (lengths of three varint bytes) kept message and frames are its fresh encodings", () => {
  const big = deepFreeze({ ...cm("big", "v"), data: { big: "y".repeat(70_000) } });
  for (let round = 0; round < 2; round++) {
    const message = frozenMessageText("v1", "ConfigMap", big)!;
    assert.deepEqual(latin1(message), encodeMessage("v1", "ConfigMap", big));
    for (const type of ["ADDED", "MODIFIED"]) {
      const fresh = encodeWatchFrameTextOf(type, "v1", "ConfigMap", big);
      assert.equal(watchFrameTextOfMessage(type, "v1", "ConfigMap", message), fresh);
      assert.equal(frozenFrameText(type, "v1", "ConfigMap", big), fresh);
    }
  }
});

test("an object not frozen all the way is encoded as it is now, not from kept bytes", () => {
  const open = cm("c", "1");
  assert.ok(frozenMessageText("v1", "ConfigMap", open));
  open.data.k = "2";
  const decoded = (text: string) =>
    decodeProtobuf(latin1(envelopeTextOfMessage("v1", "ConfigMap", text)), {
      apiVersion: "v1",
      kind: "ConfigMap",
    });
  assert.deepEqual(decoded(frozenMessageText("v1", "ConfigMap", open)!), open);

  // Frozen on top, its metadata still open: not taken for a stored object.
  const top = Object.freeze(cm("d", "1"));
  assert.ok(frozenMessageText("v1", "ConfigMap", top));
  top.metadata.labels.app = "changed";
  assert.deepEqual(decoded(frozenMessageText("v1", "ConfigMap", top)!), top);
});

test("kept bytes in parts (the object's long strings, nested too, shared): every answer is the fresh encoding", () => {
  const obj = deepFreeze({
    ...cm("parts", "1"),
    metadata: {
      ...cm("parts", "1").metadata,
      annotations: { note: "n".repeat(200), short: "s" },
      // A FieldsV1 tree (frozen: its bytes kept with it, shared by the kept frame).
      managedFields: [
        {
          manager: "m",
          operation: "Update",
          apiVersion: "v1",
          time: "2026-11-29T07:00:00Z",
          fieldsType: "FieldsV1",
          fieldsV1: {
            "f:data": { ".": {}, "f:a": {}, "f:b": {}, "f:c": {}, "f:d": {} },
            "f:metadata": { "f:é": {} },
          },
        },
      ],
    },
    data: { a: "a".repeat(129), b: "é".repeat(200), c: "c".repeat(5000), d: "1" },
    binaryData: { bin: "AAAA" },
  });
  for (let round = 0; round < 2; round++) {
    const parts = frozenMessageParts("v1", "ConfigMap", obj)!;
    assert.ok(
      Array.isArray(parts) && parts.length === 9,
      "the FieldsV1 tree's bytes and three ASCII values shared, the é one copied",
    );
    assert.deepEqual(latin1((parts as string[]).join("")), encodeMessage("v1", "ConfigMap", obj));
    assert.equal(frozenMessageText("v1", "ConfigMap", obj), (parts as string[]).join(""));
    assert.deepEqual(latin1(frozenEnvelopeText("v1", "ConfigMap", obj)!), encodeProtobuf(obj));
    const meta = { resourceVersion: "9" };
    const other = deepFreeze(cm("plain", "2"));
    assert.deepEqual(
      encodeList("v1", "ConfigMapList", meta, [parts, frozenMessageParts("v1", "ConfigMap", other)!]),
      encodeListOf("v1", "ConfigMapList", "ConfigMap", meta, [obj, other]),
    );
    for (const type of ["ADDED", "MODIFIED", "DELETED"]) {
      assert.equal(
        frozenFrameText(type, "v1", "ConfigMap", obj),
        encodeWatchFrameTextOf(type, "v1", "ConfigMap", obj),
      );
    }
  }
  // A metadata-only answer kept by the metadata, its long annotation shared.
  const partial = { metadata: obj.metadata };
  assert.deepEqual(
    latin1(frozenEnvelopeText("meta.k8s.io/v1", "PartialObjectMetadata", partial, obj.metadata)!),
    encodeProtobuf({ apiVersion: "meta.k8s.io/v1", kind: "PartialObjectMetadata", ...partial }),
  );
});
