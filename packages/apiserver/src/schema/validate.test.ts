import assert from "node:assert/strict";
import { test } from "node:test";
import { resourcesFromCRD } from "../crd/resources-from-crd.js";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import { invalidMessage } from "./field-error.js";
import type { Schema } from "./schema-types.js";
import { validateObject, validateValue } from "./validate.js";

const widget = () => resourcesFromCRD(widgetCRD())[0];
const obj = (spec: unknown) => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w" },
  spec,
});

test("an enum and a minimum violation give kube's causes and message", () => {
  const causes = validateObject(widget(), obj({ color: "green", size: 0 }));
  assert.deepEqual(causes, [
    {
      reason: "FieldValueNotSupported",
      message: 'Unsupported value: "green": supported values: "red", "blue"',
      field: "spec.color",
    },
    {
      reason: "FieldValueInvalid",
      message: "Invalid value: 0: spec.size in body should be greater than or equal to 1",
      field: "spec.size",
    },
  ]);
  assert.equal(
    invalidMessage({ group: "example.com", kind: "Widget" }, "w2", causes),
    'Widget.example.com "w2" is invalid: [spec.color: Unsupported value: "green": supported values: "red", "blue", spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1]',
  );
});

test("a missing required field is FieldValueRequired, printed without brackets", () => {
  const causes = validateObject(widget(), obj({}));
  assert.deepEqual(causes, [
    { reason: "FieldValueRequired", message: "Required value", field: "spec.color" },
  ]);
  assert.equal(
    invalidMessage({ group: "example.com", kind: "Widget" }, "w3", causes),
    'Widget.example.com "w3" is invalid: spec.color: Required value',
  );
  assert.equal(invalidMessage({ group: "", kind: "ConfigMap" }, "c", []), 'ConfigMap "c" is invalid');
});

test("a wrong type is FieldValueTypeInvalid and stops checks below it", () => {
  assert.deepEqual(validateObject(widget(), obj({ color: "red", size: "big" })), [
    {
      reason: "FieldValueTypeInvalid",
      message: 'Invalid value: "string": spec.size in body must be of type integer: "string"',
      field: "spec.size",
    },
  ]);
  assert.deepEqual(validateObject(widget(), obj("x")), [
    {
      reason: "FieldValueTypeInvalid",
      message: 'Invalid value: "string": spec in body must be of type object: "string"',
      field: "spec",
    },
  ]);
  const [c] = validateObject(widget(), obj({ color: "red", size: 1.5 }));
  assert.equal(c.message, 'Invalid value: "number": spec.size in body must be of type integer: "number"');
});

test("null is accepted only where nullable", () => {
  const s: Schema = {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "string", nullable: true } },
  };
  assert.deepEqual(
    validateValue(s, { a: null, b: null }).map((e) => [e.field, e.detail]),
    [["a", 'a in body must be of type string: "null"']],
  );
});

test("strings: length, pattern and format", () => {
  const s: Schema = {
    type: "object",
    properties: {
      short: { type: "string", maxLength: 3 },
      long: { type: "string", minLength: 2 },
      dns: { type: "string", pattern: "^[a-z]+$" },
      when: { type: "string", format: "date-time" },
      ok: { type: "string", format: "date-time" },
      unknownFormat: { type: "string", format: "whatever" },
    },
  };
  const errs = validateValue(s, {
    short: "abcd",
    long: "a",
    dns: "A1",
    when: "yesterday",
    ok: "2024-01-02T03:04:05Z",
    unknownFormat: "x",
  });
  assert.deepEqual(
    errs.map((e) => [e.type, e.field, e.detail]),
    [
      ["FieldValueInvalid", "dns", "dns in body should match '^[a-z]+$'"],
      ["FieldValueInvalid", "long", "long in body should be at least 2 chars long"],
      ["FieldValueTooLong", "short", "may not be more than 3 bytes"],
      ["FieldValueTypeInvalid", "when", 'when in body must be of type date-time: "yesterday"'],
    ],
  );
});

test("numbers: maximum, exclusive bounds and multipleOf", () => {
  const s: Schema = {
    type: "object",
    properties: {
      a: { type: "integer", maximum: 5 },
      b: { type: "number", minimum: 0, exclusiveMinimum: true },
      c: { type: "integer", multipleOf: 5 },
      d: { type: "number" },
    },
  };
  assert.deepEqual(
    validateValue(s, { a: 6, b: 0, c: 7, d: 3 }).map((e) => e.detail),
    [
      "a in body should be less than or equal to 5",
      "b in body should be greater than 0",
      "c in body should be a multiple of 5",
    ],
  );
});

test("arrays: item paths with indexes, min/max items and set duplicates", () => {
  const s: Schema = {
    type: "object",
    properties: {
      tags: { type: "array", maxItems: 2, "x-kubernetes-list-type": "set", items: { type: "string" } },
      ports: {
        type: "array",
        minItems: 2,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer" } } },
      },
    },
  };
  const errs = validateValue(s, { tags: ["a", 1, "a"], ports: [{ name: "x", port: "p" }] });
  assert.deepEqual(
    errs.map((e) => [e.type, e.field]),
    [
      ["FieldValueTypeInvalid", "ports[0].port"],
      ["FieldValueInvalid", "ports"],
      ["FieldValueTypeInvalid", "tags[1]"],
      ["FieldValueTooMany", "tags"],
      ["FieldValueDuplicate", "tags[2]"],
    ],
  );
  const causes = validateObject({ schema: s as object }, { tags: ["a", "a"] });
  assert.deepEqual(causes, [
    { reason: "FieldValueDuplicate", message: 'Duplicate value: "a"', field: "tags[1]" },
  ]);
  const [tooMany] = validateObject({ schema: s as object }, { tags: ["a", "b", "c"] });
  assert.equal(tooMany.message, "Too many: 3: must have at most 2 items");
});

test("int-or-string accepts both and rejects the rest", () => {
  const s: Schema = {
    type: "object",
    properties: {
      port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
    },
  };
  assert.deepEqual(validateValue(s, { port: 80 }), []);
  assert.deepEqual(validateValue(s, { port: "http" }), []);
  assert.deepEqual(
    validateValue(s, { port: true }).map((e) => e.detail),
    ['port in body must be of type integer,string: "boolean"'],
  );
});

test("additionalProperties validate map values; embedded resources need apiVersion and kind", () => {
  const s: Schema = {
    type: "object",
    properties: {
      labels: { type: "object", additionalProperties: { type: "string" } },
      template: {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
      },
    },
  };
  const errs = validateValue(s, { labels: { a: "x", b: 2 }, template: { kind: "" } });
  assert.deepEqual(
    errs.map((e) => [e.type, e.field]),
    [
      ["FieldValueTypeInvalid", "labels.b"],
      ["FieldValueRequired", "template.apiVersion"],
      ["FieldValueInvalid", "template.kind"],
    ],
  );
});

test("enum values that are not strings are listed as JSON", () => {
  const s: Schema = { type: "object", properties: { n: { type: "integer", enum: [1, 2] } } };
  const [e] = validateObject({ schema: s as object }, { n: 3 });
  assert.equal(e.message, 'Unsupported value: 3: supported values: "1", "2"');
});

test("anyOf, oneOf, allOf and not: kube-openapi's composite errors, with no field", () => {
  const s: Schema = {
    type: "object",
    properties: {
      a: { type: "integer", anyOf: [{ minimum: 10 }, { maximum: 0 }] },
      b: { type: "integer", oneOf: [{ minimum: 0 }, { maximum: 10 }] },
      c: { type: "string", not: { enum: ["x"] } },
    },
  };
  assert.deepEqual(
    validateValue(s, { a: 5, b: 5, c: "x" }).map((e) => [e.field, e.detail]),
    [
      ["<nil>", '"a" must validate at least one schema (anyOf)'],
      ["a", "a in body should be greater than or equal to 10"],
      ["<nil>", '"b" must validate one and only one schema (oneOf). Found 2 valid alternatives'],
      ["<nil>", '"c" must not validate the schema (not)'],
    ],
  );
  const all: Schema = { type: "integer", allOf: [{ minimum: 10 }, { maximum: 20 }] };
  assert.deepEqual(
    validateValue(all, 5, "n").map((e) => [e.field, e.detail]),
    [
      ["n", "n in body should be greater than or equal to 10"],
      ["<nil>", '"n" must validate all the schemas (allOf)'],
    ],
  );
  // oneOf with none valid: the errors of the alternative that got furthest follow its own.
  const one: Schema = {
    type: "object",
    oneOf: [{ properties: { k: { type: "string", enum: ["x"] } } }, { required: ["z"] }],
  };
  assert.deepEqual(
    validateValue(one, { k: "y" }, "o").map((e) => [e.field, e.detail]),
    [
      ["<nil>", '"o" must validate one and only one schema (oneOf). Found none valid'],
      ["o.k", 'supported values: "x"'],
    ],
  );
});

test("$refs resolve against the root's definitions", () => {
  const s: Schema = {
    type: "object",
    properties: { x: { $ref: "#/definitions/X" } },
    definitions: { X: { type: "object", required: ["y"], properties: { y: { type: "string" } } } },
  };
  assert.deepEqual(
    validateValue(s, { x: {} }).map((e) => e.field),
    ["x.y"],
  );
});

test("ratcheting: a deep object left as it was passes with an error at every level, compared once", () => {
  // Each level allows no property but `a` and has one more: an error per level, none changed.
  const depth = 400;
  let schema: Schema = { type: "object", maxProperties: 0 };
  let value: unknown = {};
  for (let i = 0; i < depth; i++) {
    schema = { type: "object", maxProperties: 1, properties: { a: schema, b: { type: "string" } } };
    value = { a: value, b: "x" };
  }
  const def = { schema: schema as object };
  const copy = JSON.parse(JSON.stringify(value));
  assert.equal(validateObject(def as never, value).length, depth, "every level errs on create");
  const t0 = performance.now();
  assert.deepEqual(
    validateObject(def as never, value, undefined, copy),
    [],
    "nothing changed: all ratcheted",
  );
  const tookMs = performance.now() - t0;
  // Changing the innermost level keeps every error on the path to it (each ancestor changed too),
  // its own included.
  let inner = copy as { a: unknown };
  for (let i = 0; i < depth - 1; i++) inner = inner.a as { a: unknown };
  (inner as { a: unknown }).a = { z: 1 };
  assert.equal(validateObject(def as never, copy, undefined, value).length, depth + 1);
  assert.ok(tookMs < 5_000, `${Math.round(tookMs)} ms`);
});
