// Messages nested as deep as kube serves a CRD's schema (some 10 000 messages: 4 990 levels of
// `properties`, each a map entry and a JSONSchemaProps) encode and decode without spending the JS
// stack, and to the same bytes and JSON as at any other depth: past a few hundred levels the codec
// walks them on a stack of its own (readMessageDeep, writeFieldsDeep).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { decodeProtobuf, encodeProtobuf } from "./codec.js";
import { message } from "./schema.js";

const EXT = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1";
const CRD = message(`${EXT}.CustomResourceDefinition`)!;
const UNKNOWN = message("k8s.io.apimachinery.pkg.runtime.Unknown")!;

/** A CRD's JSON text with the schema text `schema` (built as text: V8's JSON.stringify recurses). */
const crdText = (schema: string) =>
  `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.example.com"},"spec":{"group":"example.com","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":${schema}}}]}}`;

/** `open` `d` times around `leaf`, then `close` `d` times. */
const around = (d: number, open: string, leaf: string, close: string) =>
  `${open.repeat(d)}${leaf}${close.repeat(d)}`;

/** Where two JSON trees first differ (values, or keys and their order), walked without recursion. */
function firstDifference(actual: unknown, expected: unknown): string | undefined {
  const stack: [unknown, unknown, number][] = [[actual, expected, 0]];
  while (stack.length > 0) {
    const [a, e, depth] = stack.pop()!;
    if (a === e) continue;
    if (a === null || e === null || typeof a !== "object" || typeof e !== "object")
      return `at depth ${depth}: ${String(a)} is not ${String(e)}`;
    if (Array.isArray(a) !== Array.isArray(e)) return `at depth ${depth}: an array and an object`;
    const ka = Object.keys(a);
    const ke = Object.keys(e);
    if (ka.join() !== ke.join()) return `at depth ${depth}: keys ${ka} are not ${ke}`;
    for (const k of ka)
      stack.push([(a as Record<string, unknown>)[k], (e as Record<string, unknown>)[k], depth + 1]);
  }
  return undefined;
}

const shapes: [string, string][] = [
  ["properties 4 990", around(4_990, '{"type":"object","properties":{"a":', '{"type":"string"}', "}}")],
  ["items 5 000", around(5_000, '{"type":"array","items":', '{"type":"string"}', "}")],
  ["items arrays 5 000", around(5_000, '{"items":[{"type":"string"},', '{"type":"string"}', "]}")],
  ["additionalProperties 5 000", around(5_000, '{"type":"object","additionalProperties":', "{}", "}")],
  ["not 9 990", around(9_990, '{"not":', '{"minProperties":1}', "}")],
  ["allOf 5 000", around(5_000, '{"allOf":[', '{"minProperties":1}', "]}")],
  [
    // Every kind of nested message at each level, with scalars, raw JSON and repeated messages.
    "mixed 2 000",
    around(
      2_000,
      '{"description":"d","type":"object","default":{"x":[1]},"properties":{"a":{"items":{"additionalProperties":{"anyOf":[{"type":"string"},{"not":',
      "{}",
      '}]}}}},"dependencies":{"b":["c"]},"x-kubernetes-validations":[{"rule":"true"}]}',
    ),
  ],
];

test("deep schemas encode and decode back to the same JSON, keys in order", () => {
  for (const [name, schema] of shapes) {
    const text = crdText(schema);
    const encoded = encodeProtobuf(JSON.parse(text), { exact: true });
    assert.ok(encoded, `${name}: encodes without loss`);
    const decoded = decodeProtobuf(encoded);
    const difference = firstDifference(decoded, JSON.parse(text));
    assert.equal(difference, undefined, `${name}: ${difference}`);
  }
});

test("past the depth where the walk leaves the JS stack, the bytes are a generic encoder's", () => {
  // 300 levels: a generic (recursive) protobuf library still reads and writes them.
  for (const schema of [
    around(300, '{"type":"object","properties":{"a":', '{"type":"string"}', "}}"),
    around(300, '{"allOf":[{"items":[{"type":"string"},', '{"not":{"additionalProperties":{}}}', "]}]}"),
  ]) {
    const encoded = encodeProtobuf(JSON.parse(crdText(schema)), { exact: true });
    assert.ok(encoded);
    const unknown = fromBinary(UNKNOWN, encoded.subarray(4)) as unknown as { raw: Uint8Array };
    assert.deepEqual(
      Buffer.from(toBinary(CRD, fromBinary(CRD, unknown.raw, { recursionLimit: 5_000 }))),
      Buffer.from(unknown.raw),
    );
  }
});
