// Stored objects share equal labels and managedFields (frozen-trees.ts): what each object reads
// is still exactly what was written for it, and a later write to one leaves the others as they were.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Storage } from "./store.js";

const configMap = (name: string, labels: Record<string, string>, fields: object) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    name,
    namespace: "default",
    labels,
    managedFields: [
      { manager: "m", operation: "Update", apiVersion: "v1", time: "2026-01-01T00:00:00Z", fieldsV1: fields },
    ],
  },
  data: { a: name },
});

test("equal labels and managedFields are stored once, and each object reads as written", () => {
  const storage = new Storage({ historySize: 10 });
  const fields = { "f:data": { ".": {}, "f:a": {} } };
  const a = storage.put("configmaps", configMap("a", { app: "x" }, fields));
  const b = storage.put("configmaps", configMap("b", { app: "x" }, structuredClone(fields)));
  const c = storage.put("configmaps", configMap("c", { app: "y" }, { "f:data": {} }));
  const meta = (s: { obj: object }) => (s.obj as { metadata: Record<string, unknown> }).metadata;
  assert.equal(meta(a).labels, meta(b).labels, "equal labels: one object");
  assert.equal(meta(a).managedFields, meta(b).managedFields, "equal managedFields: one array");
  assert.notEqual(meta(a).labels, meta(c).labels);
  for (const s of [a, b, c]) {
    assert.deepEqual(s.obj, JSON.parse(s.json));
    assert.ok(Object.isFrozen(meta(s).labels) && Object.isFrozen(meta(s).managedFields));
  }
  // Relabelling b changes b only.
  const b2 = storage.put("configmaps", configMap("b", { app: "z" }, fields));
  assert.deepEqual(meta(b2).labels, { app: "z" });
  assert.deepEqual(meta(storage.get("configmaps", "default/a")!).labels, { app: "x" });
});
