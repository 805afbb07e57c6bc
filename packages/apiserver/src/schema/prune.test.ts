import assert from "node:assert/strict";
import { test } from "node:test";
import { resourcesFromCRD } from "../crd/resources-from-crd.js";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import { findUnknownFields, pruneObject } from "./prune.js";
import type { Schema } from "./schema-types.js";

const widget = () => resourcesFromCRD(widgetCRD())[0];

test("unknown fields are pruned and reported, as in the recorded create", () => {
  const obj = {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w1", junk: 1, labels: { a: "b" } },
    spec: { color: "red", junk: 1 },
    status: { ready: true },
    extra: { x: 1 },
  };
  assert.deepEqual(findUnknownFields(widget(), obj), ["metadata.junk", "spec.junk", "extra"]);
  assert.equal((obj.spec as Record<string, unknown>).junk, 1, "findUnknownFields changes nothing");
  assert.deepEqual(pruneObject(widget(), obj), ["metadata.junk", "spec.junk", "extra"]);
  assert.deepEqual(obj, {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w1", labels: { a: "b" } },
    spec: { color: "red" },
    status: { ready: true },
  });
});

test("x-kubernetes-preserve-unknown-fields keeps unknown fields but prunes known subtrees", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
        properties: { inner: { type: "object", properties: { a: { type: "string" } } } },
      },
    },
  };
  const obj = { spec: { free: { anything: [1] }, inner: { a: "x", b: "y" } } };
  assert.deepEqual(pruneObject({ schema: schema as object }, obj), ["spec.inner.b"]);
  assert.deepEqual(obj, { spec: { free: { anything: [1] }, inner: { a: "x" } } });
});

test("array items and map values are pruned with paths that name them", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      items: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
      byName: {
        type: "object",
        additionalProperties: { type: "object", properties: { v: { type: "integer" } } },
      },
    },
  };
  const obj = { items: [{ name: "a" }, { name: "b", x: 1 }], byName: { k: { v: 1, w: 2 } } };
  assert.deepEqual(pruneObject({ schema: schema as object }, obj), ["items[1].x", "byName.k.w"]);
  assert.deepEqual(obj, { items: [{ name: "a" }, { name: "b" }], byName: { k: { v: 1 } } });
});

test("embedded resources keep apiVersion, kind and ObjectMeta fields", () => {
  const schema: Schema = {
    type: "object",
    properties: {
      template: {
        type: "object",
        "x-kubernetes-embedded-resource": true,
        properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
      },
    },
  };
  const obj = {
    template: {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { a: "b" }, bogus: true },
      spec: { a: "x", b: "y" },
      other: 1,
    },
  };
  assert.deepEqual(pruneObject({ schema: schema as object }, obj), [
    "template.metadata.bogus",
    "template.spec.b",
    "template.other",
  ]);
  assert.deepEqual(obj.template.metadata, { name: "p", labels: { a: "b" } });
});

test("an ObjectMeta schema can be given for metadata", () => {
  const objectMeta: Schema = {
    type: "object",
    properties: {
      name: { type: "string" },
      labels: { type: "object", additionalProperties: { type: "string" } },
      ownerReferences: { type: "array", items: { type: "object", properties: { uid: { type: "string" } } } },
    },
  };
  const obj = { metadata: { name: "n", ownerReferences: [{ uid: "u", junk: 1 }] } };
  assert.deepEqual(findUnknownFields({ schema: { type: "object" } }, obj, { objectMeta }), [
    "metadata.ownerReferences[0].junk",
  ]);
});

test("a resource without a schema is left alone", () => {
  const obj = { spec: { a: 1 } };
  assert.deepEqual(pruneObject({}, obj), []);
  assert.deepEqual(obj, { spec: { a: 1 } });
});
