// deepFreeze of objects nested as deep as kube serves a CRD's schema (some 10 000 objects): the
// cache freezes every CRD it holds, and the recursion spent the JS stack.
import assert from "node:assert/strict";
import { test } from "node:test";
import { deepFreeze } from "./freeze.js";

test("an object 10 000 levels deep freezes all the way down", () => {
  const d = 10_000;
  const tree = JSON.parse(`${'{"a":[{"b":'.repeat(d)}{"leaf":{}}${"}]}".repeat(d)}`);
  deepFreeze(tree);
  let x = tree;
  for (let i = 0; i < d; i++) {
    assert.ok(Object.isFrozen(x) && Object.isFrozen(x.a), `level ${i}`);
    x = x.a[0].b;
  }
  assert.ok(Object.isFrozen(x) && Object.isFrozen(x.leaf));
});
