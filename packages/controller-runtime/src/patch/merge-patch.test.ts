import assert from "node:assert/strict";
import { test } from "node:test";
import { applyMergePatch, createMergePatch } from "./merge-patch.js";

// RFC 7386 appendix A.
const vectors: Array<[unknown, unknown, unknown]> = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [
    ["a", "b"],
    ["c", "d"],
    ["c", "d"],
  ],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

test("RFC 7386 appendix A vectors", () => {
  for (const [doc, patch, want] of vectors) {
    const before = JSON.stringify(doc);
    assert.deepEqual(applyMergePatch(doc, patch), want, `${JSON.stringify(doc)} + ${JSON.stringify(patch)}`);
    assert.equal(JSON.stringify(doc), before);
  }
});

test("the result shares nothing with the inputs", () => {
  const doc = { keep: { deep: [1] } };
  const patch = { added: { x: [2] } };
  const out = applyMergePatch(doc, patch) as { keep: { deep: number[] }; added: { x: number[] } };
  out.keep.deep.push(9);
  out.added.x.push(9);
  assert.deepEqual(doc, { keep: { deep: [1] } });
  assert.deepEqual(patch, { added: { x: [2] } });
});

test("createMergePatch is minimal", () => {
  assert.deepEqual(
    createMergePatch(
      { metadata: { name: "a", labels: { x: "1", y: "2" } }, data: { k: "v" }, list: [1, 2] },
      { metadata: { name: "a", labels: { x: "1", z: "3" } }, data: { k: "v" }, list: [1, 3] },
    ),
    { metadata: { labels: { y: null, z: "3" } }, list: [1, 3] },
  );
  assert.deepEqual(createMergePatch({ a: 1 }, { a: 1 }), {});
  assert.deepEqual(createMergePatch({ a: { b: 1 } }, { a: 5 }), { a: 5 });
  assert.deepEqual(createMergePatch({ a: null }, {}), { a: null });
  assert.deepEqual(createMergePatch({ a: 1 }, { a: null }), { a: null });
});
