// A stored object's kept encoding (its protobuf frame) belongs to that revision of that object:
// a copy made with a spread holds none, a new revision starts with none, and a storage keeps no
// more than its budget.
import assert from "node:assert/strict";
import { test } from "node:test";
import { EncodingBudget, StoredRecord, keepEncoding, keptEncoding } from "./kept-encoding.js";
import { Storage } from "./store.js";

const cm = (name: string, value: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns" },
  data: { value },
});

test("an encoding is kept by the stored revision only: not by copies, not by the next revision", () => {
  const storage = new Storage();
  const first = storage.put("configmaps", cm("a", "1"));
  assert.equal(keptEncoding(first), undefined);
  assert.ok(keepEncoding(first, "frame-1", 7));
  assert.equal(keptEncoding(first), "frame-1");
  // Kept once: a second encoding does not replace it.
  assert.equal(keepEncoding(first, "other", 5), false);
  assert.equal(keptEncoding(first), "frame-1");
  assert.ok(Object.isFrozen(first), "the stored object's fields stay frozen");

  // A view or a watch's previous state is a copy: it holds no encoding and keeps none.
  const copy = { ...first, obj: { ...first.obj, data: { value: "converted" } } };
  assert.equal(keptEncoding(copy), undefined);
  assert.equal(keepEncoding(copy, "frame-copy", 10), false);

  const second = storage.put("configmaps", cm("a", "2"));
  assert.notEqual(second, first);
  assert.equal(keptEncoding(second), undefined);
  assert.equal(keptEncoding(storage.get("configmaps", "ns/a")!), undefined);
  // The old revision keeps its own for readers of history.
  assert.equal(keptEncoding(first), "frame-1");
});

test("a storage keeps encodings up to its budget; bytes of replaced revisions stop counting", () => {
  const budget = new EncodingBudget(100);
  const record = (name: string) => new StoredRecord(cm(name, "v"), "{}", 1, `ns/${name}`, "ns", name, budget);
  const a = record("a");
  const b = record("b");
  const c = record("c");
  assert.ok(keepEncoding(a, "A", 60));
  assert.equal(keepEncoding(b, "B", 60), false, "over the budget: not kept");
  assert.equal(keptEncoding(b), undefined);
  StoredRecord.release(a);
  assert.equal(budget.bytes, 0);
  assert.ok(keepEncoding(c, "C", 60));
  assert.equal(keptEncoding(a), "A");
});
