// Stored objects share their long string values with their JSON (store.ts, shareLongStrings):
// whatever the strings hold (escapes, quotes, non-ASCII, the same value twice, values that also
// occur inside other strings), the stored object is exactly the JSON's object, and frozen.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Random } from "../../../../test/fuzz/random.js";
import { Storage } from "./store.js";

const ALPHABET = 'abcxyz0123 "\\\n\t/é漢😀';

test("a stored object equals its JSON's, whatever its long strings hold", () => {
  const random = new Random(11);
  const storage = new Storage({ historySize: 10 });
  const long = (n: number) => random.string(n, random.chance(0.5) ? "abcdefgh" : ALPHABET);
  for (let i = 0; i < 300; i++) {
    const repeated = long(64 + random.int(200));
    const obj = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: `cm-${i}`,
        namespace: "default",
        annotations: { "last-applied": `{"data":"${repeated}"}`, short: "x" },
      },
      data: { a: repeated, b: long(64 + random.int(1000)), c: repeated, list: "y".repeat(63) },
      items: [long(70), { nested: [repeated, long(100)] }, 5, null, true],
    };
    const written = JSON.parse(JSON.stringify(obj));
    const stored = storage.put("configmaps", obj);
    written.metadata.resourceVersion = String(stored.rv);
    assert.deepEqual(stored.obj, written);
    assert.deepEqual(JSON.parse(stored.json), written);
    assert.ok(Object.isFrozen(stored.obj) && Object.isFrozen((stored.obj.data as object) ?? {}));
  }
});
