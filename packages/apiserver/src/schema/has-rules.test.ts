import assert from "node:assert/strict";
import { test } from "node:test";
import { schemaHasRules } from "./has-rules.js";

const rule = { "x-kubernetes-validations": [{ rule: "self.x > 0" }] };

test("a schema has rules when it or anything below it declares them, and not otherwise", () => {
  const withRule = { type: "object", properties: { x: { type: "integer" } }, ...rule };
  const plain = { type: "string" };
  const root = {
    type: "object",
    properties: {
      spec: { type: "object", properties: { a: withRule, b: plain } },
      status: { type: "object" },
    },
  };
  assert.equal(schemaHasRules(root), true);
  assert.equal(schemaHasRules(root.properties.spec), true);
  assert.equal(schemaHasRules(withRule), true);
  assert.equal(schemaHasRules(plain), false);
  assert.equal(schemaHasRules(root.properties.status), false);
  assert.equal(schemaHasRules(undefined), false);
  // Rules under a list's items, and under additionalProperties.
  assert.equal(schemaHasRules({ type: "array", items: withRule }), true);
  assert.equal(schemaHasRules({ type: "object", additionalProperties: { type: "string", ...rule } }), true);
});

test("every level of a schema nested 10 000 deep is answered, from one walk", () => {
  let leaf: Record<string, unknown> = { type: "object", ...rule };
  const levels: Record<string, unknown>[] = [leaf];
  for (let i = 0; i < 10_000; i++) {
    leaf = { type: "object", properties: { next: leaf } };
    levels.push(leaf);
  }
  assert.equal(schemaHasRules(leaf), true);
  // Each level was remembered by the first question: asked bottom-up, none walks again.
  for (const level of levels) assert.equal(schemaHasRules(level), true);
  const plain: Record<string, unknown> = { type: "object" };
  let top = plain;
  for (let i = 0; i < 10_000; i++) top = { type: "object", properties: { next: top } };
  assert.equal(schemaHasRules(top), false);
  assert.equal(schemaHasRules(plain), false);
});

test("an object shared by two parents, and a cycle, are answered", () => {
  const shared = { type: "object", ...rule };
  const two = { type: "object", properties: { a: { type: "object", properties: { s: shared } }, b: shared } };
  assert.equal(schemaHasRules(two), true);
  assert.equal(schemaHasRules(two.properties.a), true);
  // JSON has no cycles, but a schema built in code could: the walk ends.
  const loop: Record<string, unknown> = { type: "object" };
  loop.properties = { self: loop };
  assert.equal(schemaHasRules(loop), false);
});
