import assert from "node:assert/strict";
import { test } from "node:test";
import { resourcesFromCRD } from "../crd/resources-from-crd.js";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import { applyDefaults } from "./defaults.js";
import type { Schema } from "./schema-types.js";

test("a default fills an absent field, as in the recorded create", () => {
  const [def] = resourcesFromCRD(widgetCRD());
  const obj = { spec: { color: "red" } };
  applyDefaults(def, obj);
  assert.deepEqual(obj, { spec: { color: "red", size: 3 } });
  applyDefaults(def, { spec: { color: "red", size: 7 } });
  const kept = applyDefaults(def, { spec: { color: "red", size: 7 } });
  assert.deepEqual(kept, { spec: { color: "red", size: 7 } });
});

test("defaults apply inside defaulted objects, array items and map values", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        default: {},
        properties: {
          mode: { type: "string", default: "fast" },
          ports: {
            type: "array",
            items: { type: "object", properties: { protocol: { type: "string", default: "TCP" } } },
          },
          byName: {
            type: "object",
            additionalProperties: { type: "object", properties: { on: { type: "boolean", default: true } } },
          },
        },
      },
    },
  };
  const obj: Record<string, unknown> = {};
  applyDefaults({ schema: schema as object }, obj);
  assert.deepEqual(obj, { spec: { mode: "fast" } });
  const obj2 = { spec: { ports: [{}, { protocol: "UDP" }], byName: { a: {} } } };
  applyDefaults({ schema: schema as object }, obj2);
  assert.deepEqual(obj2, {
    spec: { mode: "fast", ports: [{ protocol: "TCP" }, { protocol: "UDP" }], byName: { a: { on: true } } },
  });
});

test("nulls of non-nullable fields take the default or are dropped; nullable nulls stay", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      a: { type: "string", default: "x" },
      b: { type: "string" },
      c: { type: "string", nullable: true },
      d: { type: "string", nullable: true, default: "y" },
    },
  };
  const obj = { a: null, b: null, c: null, d: null };
  applyDefaults({ schema: schema as object }, obj);
  assert.deepEqual(obj, { a: "x", c: null, d: null });
});

test("defaults are copies: changing one object does not change the next", () => {
  const schema: Schema = { type: "object", properties: { list: { type: "array", default: ["a"] } } };
  const def = { schema: schema as object };
  const first = applyDefaults(def, {} as { list?: string[] });
  first.list?.push("b");
  assert.deepEqual(applyDefaults(def, {}), { list: ["a"] });
});
