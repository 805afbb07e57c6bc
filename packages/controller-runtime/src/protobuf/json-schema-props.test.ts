// apiextensions' JSONSchemaProps in protobuf and in JSON: the union types' MarshalJSON and
// UnmarshalJSON (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/v1/marshal.go) and the
// raw JSON values, including the forms a CRD's validation refuses (an items array,
// dependencies), which a server still has to decode before it can say so. The messages are
// written and read by a generic protobuf library from kube's descriptors, independently of the
// codec under test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, fromBinary, toBinary, toJson } from "@bufbuild/protobuf";
import { decodeProtobuf, encodeProtobuf } from "./codec.js";
import { message } from "./schema.js";

const EXT = "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1";
const CRD = message(`${EXT}.CustomResourceDefinition`)!;
const UNKNOWN = message("k8s.io.apimachinery.pkg.runtime.Unknown")!;
const raw = (json: string) => ({ raw: Buffer.from(json) });

/** A CRD whose only schema is `schema` (proto fields), framed as kube frames it. */
function crdBytes(schema: object): Uint8Array {
  const crd = toBinary(
    CRD,
    create(CRD, {
      metadata: { name: "things.example.com" },
      spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: schema } }] },
    } as never),
  );
  const framed = toBinary(
    UNKNOWN,
    create(UNKNOWN, {
      typeMeta: { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" },
      raw: crd,
    } as never),
  );
  return Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0]), framed]);
}

/** The schema of a decoded CRD. */
// biome-ignore lint/suspicious/noExplicitAny: JSON of any shape
const schemaOf = (obj: any) => obj.spec.versions[0].schema.openAPIV3Schema;

const crdJson = (schema: object) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "things.example.com" },
  spec: { versions: [{ name: "v1", schema: { openAPIV3Schema: schema } }] },
});

test("each union decodes to the JSON its MarshalJSON writes, and encodes back to the same message", () => {
  const proto = {
    type: "object",
    // JSONSchemaPropsOrArray: an array of schemas, or one schema.
    items: { jSONSchemas: [{ type: "string" }, { type: "integer" }] },
    properties: {
      one: { type: "array", items: { schema: { type: "string" } } },
      // OrBool: false, true, a schema (which allows).
      closed: { type: "object", additionalProperties: { allows: false } },
      open: { type: "object", additionalProperties: { allows: true } },
      typed: { type: "object", additionalProperties: { allows: true, schema: { type: "string" } } },
      // OrStringArray: a list of properties, or a schema.
      deps: { dependencies: { a: { property: ["b", "c"] }, b: { schema: { required: ["a"] } } } },
      // Raw JSON: numbers as written, objects, null in an enum (an empty JSON).
      values: {
        default: raw('{"k":[1,"two",{"x":true}]}'),
        example: raw("1.5"),
        enum: [raw('"a"'), raw("2"), raw("null"), {}],
        maximum: 10.5,
        minimum: 0,
        maxLength: 3n,
        xKubernetesPreserveUnknownFields: false,
        xKubernetesListType: "atomic",
        xKubernetesValidations: [{ rule: "true", reason: "FieldValueForbidden", optionalOldSelf: true }],
      },
    },
    allOf: [{ not: { required: ["x"] } }],
    schema: "http://json-schema.org/draft-04/schema#",
    ref: "#/x",
  };
  const json = {
    $schema: "http://json-schema.org/draft-04/schema#",
    $ref: "#/x",
    type: "object",
    items: [{ type: "string" }, { type: "integer" }],
    allOf: [{ not: { required: ["x"] } }],
    properties: {
      one: { type: "array", items: { type: "string" } },
      closed: { type: "object", additionalProperties: false },
      open: { type: "object", additionalProperties: true },
      typed: { type: "object", additionalProperties: { type: "string" } },
      deps: { dependencies: { a: ["b", "c"], b: { required: ["a"] } } },
      values: {
        default: { k: [1, "two", { x: true }] },
        maximum: 10.5,
        minimum: 0,
        maxLength: 3,
        enum: ["a", 2, null, null],
        example: 1.5,
        "x-kubernetes-preserve-unknown-fields": false,
        "x-kubernetes-list-type": "atomic",
        "x-kubernetes-validations": [{ rule: "true", reason: "FieldValueForbidden", optionalOldSelf: true }],
      },
    },
  };
  const decoded = decodeProtobuf(crdBytes(proto));
  assert.deepEqual(schemaOf(decoded), json);
  // Keys in Go's struct order, as kube's JSON writes them.
  assert.deepEqual(Object.keys(schemaOf(decoded)), [
    "$schema",
    "$ref",
    "type",
    "items",
    "allOf",
    "properties",
  ]);

  const encoded = encodeProtobuf(crdJson(json), { exact: true });
  assert.ok(encoded, "the JSON schema encodes without loss");
  const unknown = fromBinary(UNKNOWN, encoded.subarray(4)) as unknown as { raw: Uint8Array };
  const back = toJson(CRD, fromBinary(CRD, unknown.raw)) as Record<string, unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: a message as protobuf's JSON
  const props = (schemaOf(back) as any).properties;
  assert.deepEqual(props.closed.additionalProperties, { allows: false });
  assert.deepEqual(props.typed.additionalProperties, { allows: true, schema: { type: "string" } });
  assert.deepEqual(props.deps.dependencies.a, { property: ["b", "c"] });
  assert.deepEqual(props.values.enum[2], {});
  assert.equal(props.values.maximum, 10.5);
  assert.equal(props.values.xKubernetesPreserveUnknownFields, false);
  assert.deepEqual(decodeProtobuf(encoded), crdJson(json));
});

test("a schema value of the wrong JSON type makes the encoding lossy, so a client would send JSON", () => {
  for (const bad of [
    { additionalProperties: "yes" },
    { items: 3 },
    { dependencies: { a: 1 } },
    { maximum: "1" },
  ]) {
    assert.equal(encodeProtobuf(crdJson(bad), { exact: true }), undefined, JSON.stringify(bad));
  }
});

test("raw JSON that is not JSON is a ProtobufError naming what", () => {
  assert.throws(
    () => decodeProtobuf(crdBytes({ default: raw("{nope") })),
    /a JSON value of a schema is not JSON/,
  );
});
