import assert from "node:assert/strict";
import { test } from "node:test";
import { addFinalizer, removeFinalizer, setOwnerReference } from "../controllerutil/index.js";
import { deepFreeze } from "../cache/index.js";
import { deepCopy } from "./deep-copy.js";
import type { KubeObject } from "./index.js";

/** A CRD-like object whose schema nests `levels` `properties` deep (about 2 × levels objects). */
function deepCRD(levels: number) {
  const root: Record<string, unknown> = { type: "object" };
  let at = root;
  for (let i = 0; i < levels; i++) {
    const next: Record<string, unknown> = { type: "object", description: `level ${i}` };
    at.properties = { child: next, list: { type: "array", items: { type: "string" } } };
    at = next;
  }
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "deeps.example.com", uid: "1", finalizers: ["a"] },
    spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: root } }] },
  };
}

function depthOf(crd: ReturnType<typeof deepCRD>): number {
  let n = 0;
  let at = crd.spec.versions[0]!.schema.openAPIV3Schema as Record<string, unknown> | undefined;
  while (at) {
    const props = at.properties as Record<string, Record<string, unknown>> | undefined;
    at = props?.child;
    n++;
  }
  return n;
}

test("deepCopy copies objects nested past where structuredClone overflows", () => {
  const crd = deepFreeze(deepCRD(5_000));
  assert.throws(() => structuredClone(crd), RangeError, "the case this guards against");
  const copy = deepCopy(crd);
  assert.equal(depthOf(copy as ReturnType<typeof deepCRD>), 5_001);
  assert.ok(!Object.isFrozen(copy) && !Object.isFrozen(copy.spec.versions[0]!.schema), "a mutable copy");
  assert.notEqual(copy.spec.versions, crd.spec.versions);
  const schema = copy.spec.versions[0]!.schema.openAPIV3Schema as { properties?: Record<string, unknown> };
  assert.deepEqual(schema.properties?.list, {
    type: "array",
    items: { type: "string" },
  });
  assert.ok(Array.isArray(copy.spec.versions));
});

test("deepCopy of a normal object is structuredClone's: equal, unshared, dates kept", () => {
  const obj = { a: [1, { b: "c" }], when: new Date(5), none: null };
  const copy = deepCopy(obj);
  assert.deepEqual(copy, obj);
  assert.notEqual(copy.a, obj.a);
  assert.ok(copy.when instanceof Date);
});

test("controllerutil's helpers change deep objects (they copy with deepCopy)", () => {
  const crd = deepFreeze(deepCRD(5_000));
  const added = addFinalizer(crd, "b");
  assert.deepEqual(added.metadata.finalizers, ["a", "b"]);
  assert.deepEqual(removeFinalizer(added, "a").metadata.finalizers, ["b"]);
  const owner = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "o", uid: "u" } };
  const owned = setOwnerReference(owner, crd);
  assert.equal((owned as KubeObject).metadata?.ownerReferences?.[0]?.uid, "u");
  assert.equal(depthOf(owned as ReturnType<typeof deepCRD>), 5_001);
});
