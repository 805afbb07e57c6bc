import assert from "node:assert/strict";
import { test } from "node:test";
import { findDuplicateFields } from "./duplicate-fields.js";

test("no duplicates, no findings", () => {
  assert.deepEqual(findDuplicateFields('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}'), []);
  assert.deepEqual(findDuplicateFields("[]"), []);
  assert.deepEqual(findDuplicateFields('"x"'), []);
});

test("duplicates are reported with their paths, nested and in arrays", () => {
  const text = `{
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "a", "name": "b"},
    "spec": {"replicas": 1, "template": {"spec": {"containers": [
      {"name": "c", "image": "x"},
      {"name": "d", "image": "y", "image": "z"}
    ]}}, "replicas": 2},
    "kind": "Pod"
  }`;
  assert.deepEqual(findDuplicateFields(text), [
    "metadata.name",
    "spec.template.spec.containers[1].image",
    "spec.replicas",
    "kind",
  ]);
});

test("strings with quotes, escapes and brackets do not confuse the scanner", () => {
  const text = '{"a":"x\\"}{[,","b":"\\\\","a\\u0062":1,"ab":2,"k":[1,"]",{"z":1,"z":2}]}';
  assert.deepEqual(findDuplicateFields(text), ["ab", "k[2].z"]);
});

test("a large body scans quickly enough to sit on every request", () => {
  const items = Array.from({ length: 2000 }, (_, i) => ({ name: `n${i}`, value: "v".repeat(50), n: i }));
  const text = JSON.stringify({ data: items });
  assert.deepEqual(findDuplicateFields(text), []);
});
