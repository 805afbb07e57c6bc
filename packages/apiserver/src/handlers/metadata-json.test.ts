import assert from "node:assert/strict";
import { test } from "node:test";
import type { Obj, StoredObject } from "../storage/index.js";
import { storedMetadataJson } from "./metadata-json.js";

function stored(obj: Obj): StoredObject {
  return { obj, json: JSON.stringify(obj), rv: 1, key: "ns/a", namespace: "ns", name: "a" };
}

test("the metadata cut out of the stored JSON is JSON.stringify's text, whatever its strings hold", () => {
  const awkward = ['a"b', "c\\", '\\"}{]', "ü€😀", "{[", 'x\\\\"y', "}", '"metadata":{', "\\\\"];
  for (const s of awkward) {
    const obj: Obj = {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: {
        name: "a",
        namespace: "ns",
        labels: { [s]: s },
        annotations: { note: `${s}]}` },
        finalizers: [s, "[]"],
        managedFields: [{ manager: s, fieldsV1: { "f:data": { [`f:${s}`]: {} } } }],
      },
      data: { [s]: `}${s}` },
    };
    assert.equal(storedMetadataJson(stored(obj)), JSON.stringify(obj.metadata), s);
  }
});

test("an object whose JSON does not open with kind, apiVersion and metadata has no cut", () => {
  const other = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } };
  assert.equal(storedMetadataJson(stored(other)), undefined);
  assert.equal(storedMetadataJson(stored({ kind: "ConfigMap", apiVersion: "v1", data: {} })), undefined);
});
