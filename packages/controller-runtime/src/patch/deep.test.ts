// Patches as deep as kube-apiserver accepts bodies (10 000 levels) and deeper: applied without
// recursion, so V8's call stack (which gives out near 2 000 frames of a real walk) is no limit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { goFormat } from "./go-format.js";
import { cloneJSON, jsonEqual } from "./json.js";
import { applyJSONPatch } from "./json-patch.js";
import { applyMergePatch, createMergePatch } from "./merge-patch.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const DEPTH = 20_000;
const nest = (d: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < d; i++) v = { a: v };
  return v;
};
const depthOf = (v: unknown) => {
  let d = 0;
  for (let x = v; x !== null && typeof x === "object"; x = (x as { a: unknown }).a) d++;
  return d;
};

test("clone, equality and Go's print of a value 20 000 deep", () => {
  const deep = nest(DEPTH);
  const copy = cloneJSON(deep);
  assert.notEqual(copy, deep);
  assert.ok(jsonEqual(copy, deep));
  assert.ok(!jsonEqual(copy, nest(DEPTH, 2)));
  assert.equal(goFormat(nest(2, [1, "x"])), "map[a:map[a:[1 x]]]");
  // "map[a:" and "]" per level, and the leaf.
  assert.equal(goFormat(deep).length, DEPTH * 7 + 1);
});

test("merge, JSON and strategic patches 20 000 deep", () => {
  const doc = { x: nest(10) };
  const merged = applyMergePatch(doc, { x: nest(DEPTH, null), y: nest(DEPTH) }) as { x: unknown; y: unknown };
  // A null at the bottom of the patch deletes there: the map above it stays, empty.
  assert.equal(depthOf(merged.x), DEPTH);
  assert.equal(depthOf(merged.y), DEPTH);
  const patched = applyJSONPatch(doc, [{ op: "add", path: "/y", value: nest(DEPTH) }]) as unknown as {
    y: unknown;
  };
  assert.equal(depthOf(patched.y), DEPTH);
  const strategic = applyStrategicMergePatch(doc, { x: nest(DEPTH) }) as { x: unknown };
  assert.equal(depthOf(strategic.x), DEPTH);
  const diff = createMergePatch({ x: nest(DEPTH, 1) }, { x: nest(DEPTH, 2) });
  assert.equal(depthOf((diff as { x: unknown }).x), DEPTH);
});
