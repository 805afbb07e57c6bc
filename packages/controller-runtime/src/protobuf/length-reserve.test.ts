// The encoder reserves room for a length by how long the field's last one was (wire.ts
// Writer.open): the bytes must not depend on what was encoded before, for lengths of one, two
// or three bytes, nested fields of the same message inside each other, and long non-ASCII text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeProtobuf, encodeListOf, encodeProtobuf, encodeWatchFrameOf } from "./codec.js";

const cm = (size: number, char = "x") => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: `cm-${size}`, namespace: "ns", labels: { a: char.repeat(Math.min(size, 63)) } },
  data: { big: char.repeat(size), small: "s" },
});

const sizes = [0, 10, 100, 127, 128, 200, 16_383, 16_384, 70_000, 3];

test("an object's bytes are the same whatever was encoded before it", () => {
  for (const char of ["x", "é", "😀"]) {
    const alone = new Map(sizes.map((n) => [n, encodeProtobuf(cm(n, char))!]));
    // Every order of large after small and back.
    for (const n of [...sizes, ...[...sizes].reverse()]) {
      const bytes = encodeProtobuf(cm(n, char))!;
      assert.deepEqual(bytes, alone.get(n), `${n} × ${char}`);
      assert.deepEqual(decodeProtobuf(bytes, { apiVersion: "v1", kind: "ConfigMap" }), cm(n, char));
    }
  }
});

test("watch frames and lists are the same whatever was encoded before them", () => {
  const frames = sizes.map((n) => encodeWatchFrameOf("ADDED", "v1", "ConfigMap", cm(n))!);
  const lists = sizes.map((n) =>
    Buffer.from(encodeListOf("v1", "ConfigMapList", "ConfigMap", { resourceVersion: "1" }, [cm(n), cm(3)])!),
  );
  for (const [i, n] of [...sizes].reverse().entries()) {
    const at = sizes.length - 1 - i;
    assert.deepEqual(encodeWatchFrameOf("ADDED", "v1", "ConfigMap", cm(n)), frames[at]);
    const list = encodeListOf("v1", "ConfigMapList", "ConfigMap", { resourceVersion: "1" }, [cm(n), cm(3)])!;
    assert.deepEqual(Buffer.from(list), lists[at]);
  }
});

test("a message nested in a field of its own type is framed right", () => {
  // JSONSchemaProps holds JSONSchemaProps in `properties`: the same field, open inside itself;
  // a long sibling before it and a short one after make its length and its content's differ.
  const schema = (depth: number, width: number): Record<string, unknown> =>
    depth === 0
      ? { type: "string", description: "d".repeat(width) }
      : {
          type: "object",
          properties: {
            big: { type: "string", description: "b".repeat(width) },
            inner: schema(depth - 1, width),
            other: { type: "string", description: "o" },
          },
        };
  const crd = (width: number) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "things.example.com" },
    spec: {
      group: "example.com",
      names: { plural: "things", kind: "Thing" },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: schema(4, width) } }],
    },
  });
  const type = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" };
  for (const width of [1, 300, 20_000, 5]) {
    assert.deepEqual(decodeProtobuf(encodeProtobuf(crd(width))!, type), crd(width));
  }
});
