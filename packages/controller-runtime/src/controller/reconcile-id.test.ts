import assert from "node:assert/strict";
import { test } from "node:test";
import { newReconcileID } from "./reconcile-id.js";

test("reconcile IDs are version 4 UUIDs, and distinct across more than one draw of random bytes", () => {
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  for (let i = 0; i < 10_000; i++) {
    const id = newReconcileID();
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    seen.add(id);
    const c = id[0]!;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  assert.equal(seen.size, 10_000);
  // Every hex digit turns up in the first place, roughly evenly (625 expected each).
  assert.equal(counts.size, 16);
  for (const n of counts.values()) assert.ok(n > 400 && n < 850, `first-digit count ${n}`);
});
