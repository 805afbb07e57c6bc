import assert from "node:assert/strict";
import { test } from "node:test";
import { Storage } from "./store.js";

test("old versions are kept up to the history's bytes: rewriting a large object does not grow memory", () => {
  const storage = new Storage({ historySize: 1_000, historyBytes: 100_000 });
  const big = "x".repeat(10_000);
  for (let i = 0; i < 200; i++) {
    storage.put("/configmaps", {
      metadata: { name: "same", namespace: "default" },
      data: { big, i: String(i) },
    });
  }
  assert.ok(storage.history.bytes <= 100_000, `history holds ${storage.history.bytes} bytes`);
  assert.ok(storage.history.bytes > 80_000);
  // What fell off is too old to replay from, as after an etcd compaction.
  assert.equal(storage.history.covers(5), false);
  assert.equal(storage.history.covers(storage.resourceVersion - 5), true);
  assert.ok(storage.bytes > 10_000 && storage.bytes < 11_000, `${storage.bytes}`);
});
