import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinPatchMeta } from "./builtin-meta.js";
import { createJSONPatch } from "./json-patch-diff.js";
import { createStrategicMergePatch } from "./strategic-merge-diff.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const POD = builtinPatchMeta("", "v1", "Pod")!;

test("createJSONPatch emits member-level operations with escaped pointers", () => {
  assert.deepEqual(
    createJSONPatch(
      { metadata: { labels: { "a/b": "1", gone: "x" } }, list: [1, 2, 3] },
      { metadata: { labels: { "a/b": "2", "c~d": "3" } }, list: [1, 9] },
    ),
    [
      { op: "remove", path: "/metadata/labels/gone" },
      { op: "replace", path: "/metadata/labels/a~1b", value: "2" },
      { op: "add", path: "/metadata/labels/c~0d", value: "3" },
      { op: "replace", path: "/list/1", value: 9 },
      { op: "remove", path: "/list/2" },
    ],
  );
  assert.deepEqual(createJSONPatch({ a: 1 }, { a: 1 }), []);
  assert.deepEqual(createJSONPatch({ a: 1 }, [1]), [{ op: "replace", path: "", value: [1] }]);
});

test("createStrategicMergePatch writes keyed entries, deletions and element order like kubectl", () => {
  const original = {
    metadata: { finalizers: ["x", "y"], ownerReferences: [{ uid: "1" }, { uid: "2" }] },
    spec: { containers: [{ name: "m", env: [{ name: "A", value: "1" }, { name: "B" }] }, { name: "s" }] },
  };
  const modified = {
    metadata: { finalizers: ["z", "x"], ownerReferences: [{ uid: "2" }, { uid: "3" }] },
    spec: {
      containers: [
        { name: "s", image: "i" },
        { name: "m", env: [{ name: "B", value: "2" }] },
      ],
    },
  };
  const patch = createStrategicMergePatch(original, modified, POD);
  assert.deepEqual(patch, {
    metadata: {
      finalizers: ["z"],
      "$deleteFromPrimitiveList/finalizers": ["y"],
      "$setElementOrder/finalizers": ["z", "x"],
      ownerReferences: [{ uid: "3" }, { uid: "1", $patch: "delete" }],
      "$setElementOrder/ownerReferences": [{ uid: "2" }, { uid: "3" }],
    },
    spec: {
      containers: [
        { name: "s", image: "i" },
        {
          name: "m",
          env: [
            { name: "B", value: "2" },
            { name: "A", $patch: "delete" },
          ],
          "$setElementOrder/env": [{ name: "B" }],
        },
      ],
      "$setElementOrder/containers": [{ name: "s" }, { name: "m" }],
    },
  });
  assert.deepEqual(applyStrategicMergePatch(original, patch, POD), modified);
});

test("createStrategicMergePatch replaces a keyed list whose items lack their key", () => {
  const original = { spec: { containers: [{ name: "a" }] } };
  const modified = { spec: { containers: [{ image: "x" }, { image: "y" }] } };
  const patch = createStrategicMergePatch(original, modified, POD);
  assert.deepEqual(patch, { spec: { containers: [{ image: "x" }, { image: "y" }, { $patch: "replace" }] } });
  assert.deepEqual(applyStrategicMergePatch(original, patch, POD), modified);
});

test("createStrategicMergePatch of equal objects is empty", () => {
  const pod = { metadata: { name: "p", finalizers: ["a"] }, spec: { containers: [{ name: "c" }] } };
  assert.deepEqual(createStrategicMergePatch(pod, structuredClone(pod), POD), {});
});
