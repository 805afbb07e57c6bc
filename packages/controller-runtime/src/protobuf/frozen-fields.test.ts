// The encoder keeps the JSON bytes of deep-frozen FieldsV1 trees (a server shares one among many
// objects): the bytes are the same as from a fresh tree, and a tree that can still change (not
// frozen all the way down) is written as it is now.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeProtobuf, encodeProtobuf } from "./codec.js";

const cm = (fieldsV1: unknown) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name: "cm",
    namespace: "ns",
    managedFields: [
      {
        manager: "m",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-11-29T07:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1,
      },
    ],
  },
  data: { k: "é" },
});

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    for (const c of Object.values(v)) deepFreeze(c);
    Object.freeze(v);
  }
  return v;
}

const fieldsOf = (bytes: Buffer) => {
  const obj = decodeProtobuf(bytes, { apiVersion: "v1", kind: "ConfigMap" }) as {
    metadata: { managedFields: { fieldsV1: unknown }[] };
  };
  return obj.metadata.managedFields[0]!.fieldsV1;
};

test("a deep-frozen FieldsV1 tree encodes as a fresh one, every time", () => {
  const tree = () => ({ "f:data": { ".": {}, "f:k": {} }, "f:metadata": { "f:labels": { "f:é": {} } } });
  const fresh = encodeProtobuf(cm(tree()))!;
  const frozen = deepFreeze(tree());
  assert.deepEqual(encodeProtobuf(cm(frozen)), fresh);
  assert.deepEqual(encodeProtobuf(cm(frozen)), fresh);
  assert.deepEqual(fieldsOf(fresh), tree());
});

test("a FieldsV1 tree frozen only on top is written as it is now", () => {
  const inner: Record<string, unknown> = { "f:a": {} };
  const tree = Object.freeze({ "f:data": inner });
  assert.deepEqual(fieldsOf(encodeProtobuf(cm(tree))!), { "f:data": { "f:a": {} } });
  inner["f:b"] = {};
  assert.deepEqual(fieldsOf(encodeProtobuf(cm(tree))!), { "f:data": { "f:a": {}, "f:b": {} } });
});
