import assert from "node:assert/strict";
import { test } from "node:test";
import { FieldSet } from "./field-set.js";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.js";
import { keyElement, type Path, parseElementKey, pathText } from "./path-element.js";

const f = (field: string) => ({ field });
const k = (fields: Record<string, string | number>) => keyElement(Object.entries(fields));
const v = (value: string | number) => ({ value });

test("FieldsV1 puts '.' first for a member with children and sorts fields before keys before values", () => {
  const set = FieldSet.of(
    [f("spec")],
    [f("spec"), f("size")],
    [f("spec"), f("color")],
    [f("spec"), f("tags"), v("b")],
    [f("spec"), f("tags"), v("a")],
    [f("metadata"), f("labels"), f("app")],
  );
  const json = JSON.stringify(toFieldsV1(set));
  assert.equal(
    json,
    '{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{".":{},"f:color":{},"f:size":{},"f:tags":{"v:\\"a\\"":{},"v:\\"b\\"":{}}}}',
  );
});

test("FieldsV1 keys of map-list items hold their key fields sorted by name", () => {
  const item = k({ protocol: "TCP", containerPort: 80 });
  const set = FieldSet.of([f("ports"), item], [f("ports"), item, f("containerPort")]);
  assert.deepEqual(toFieldsV1(set), {
    "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } },
  });
  assert.equal(pathText([f("ports"), item]), '.ports[containerPort=80,protocol="TCP"]');
});

test("FieldsV1 round-trips through fromFieldsV1", () => {
  const fields = {
    "f:metadata": { "f:labels": { ".": {}, "f:a": {} } },
    "f:spec": {
      "f:containers": {
        'k:{"name":"c"}': { ".": {}, "f:image": {}, "f:name": {} },
      },
      "f:replicas": {},
    },
  };
  const set = fromFieldsV1(fields);
  assert.ok(set.has([f("metadata"), f("labels")]));
  assert.ok(!set.has([f("metadata")]));
  assert.ok(set.has([f("spec"), f("containers"), k({ name: "c" })]));
  assert.deepEqual(toFieldsV1(set), fields);
});

test("difference removes exact paths only and drops emptied children", () => {
  const a = FieldSet.of([f("spec")], [f("spec"), f("a")], [f("spec"), f("b")]);
  const d = a.difference(FieldSet.of([f("spec")], [f("spec"), f("a")]));
  assert.deepEqual(toFieldsV1(d), { "f:spec": { "f:b": {} } });
  assert.ok(a.difference(a).isEmpty());
});

test("union and intersection work per level", () => {
  const a = FieldSet.of([f("x"), f("y")], [f("z")]);
  const b = FieldSet.of([f("x"), f("w")], [f("z")]);
  assert.deepEqual(toFieldsV1(a.union(b)), { "f:x": { "f:w": {}, "f:y": {} }, "f:z": {} });
  assert.deepEqual(toFieldsV1(a.intersection(b)), { "f:z": {} });
});

test("paths iterate each level's members before its children", () => {
  const set = FieldSet.of([f("b"), f("c")], [f("a")], [f("b")]);
  assert.deepEqual(
    set.paths().map((p: Path) => pathText(p)),
    [".a", ".b", ".b.c"],
  );
});

test("path elements parse from their FieldsV1 keys", () => {
  assert.deepEqual(parseElementKey("f:spec"), { field: "spec" });
  assert.deepEqual(parseElementKey('v:"a"'), { value: "a" });
  assert.deepEqual(parseElementKey("i:3"), { index: 3 });
  assert.deepEqual(
    parseElementKey('k:{"name":"c","a":1}'),
    keyElement([
      ["a", 1],
      ["name", "c"],
    ]),
  );
  assert.throws(() => parseElementKey("x:y"), /unknown path element/);
  assert.throws(() => fromFieldsV1({ "k:notjson": {} }), /not JSON/);
});

test("conflict paths print as kube prints them", () => {
  assert.equal(pathText([f("spec"), f("tags"), v("c")]), '.spec.tags[="c"]');
  assert.equal(pathText([f("spec"), f("args"), { index: 0 }]), ".spec.args[0]");
});

test("withoutSubtrees drops a path and what is below it, and the levels it leaves empty", () => {
  const set = FieldSet.of(
    [f("status"), f("conditions")],
    [f("status"), f("conditions"), k({ type: "Ready" }), f("status")],
    [f("status"), f("certificate")],
    [f("metadata"), f("labels"), f("a")],
  );
  const reset = [[f("status"), f("conditions")]];
  assert.deepEqual(toFieldsV1(set.withoutSubtrees(reset)), {
    "f:metadata": { "f:labels": { "f:a": {} } },
    "f:status": { "f:certificate": {} },
  });
  const only = FieldSet.of([f("status"), f("conditions"), k({ type: "Ready" })]);
  assert.deepEqual(toFieldsV1(only.withoutSubtrees(reset)), {});
  // The original is left as it was.
  assert.ok(set.has([f("status"), f("conditions")]));
});
