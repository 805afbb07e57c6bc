import assert from "node:assert/strict";
import { test } from "node:test";
import type { Schema } from "../schema/index.js";
import { validateCRD } from "./validate-crd.js";
import { widgetCRD } from "./widget-crd.fixture.js";

const fields = (causes: { field?: string; message?: string }[]) =>
  causes.map((c) => `${c.field}: ${c.message}`);

test("the recorded CRD is valid", () => {
  assert.deepEqual(validateCRD(widgetCRD()), []);
});

test("metadata.name must be <plural>.<group>", () => {
  const crd = widgetCRD();
  crd.metadata = { name: "gadgets.example.com" };
  assert.deepEqual(validateCRD(crd), [
    {
      reason: "FieldValueInvalid",
      message: 'Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
      field: "metadata.name",
    },
  ]);
});

test("group, scope and names are checked with kube's words", () => {
  const crd = widgetCRD();
  crd.metadata = { name: "Widgets.example" };
  crd.spec.group = "example";
  crd.spec.scope = "Everywhere";
  crd.spec.names = { plural: "Widgets", kind: "Widget", listKind: "Widget", shortNames: ["w_d"] };
  const out = fields(validateCRD(crd));
  assert.ok(
    out[0].startsWith('metadata.name: Invalid value: "Widgets.example": a lowercase RFC 1123 subdomain'),
  );
  assert.ok(out.includes('spec.group: Invalid value: "example": should be a domain with at least one dot'));
  assert.ok(
    out.includes('spec.scope: Unsupported value: "Everywhere": supported values: "Cluster", "Namespaced"'),
  );
  assert.ok(
    out.some((l) =>
      l.startsWith('spec.names.plural: Invalid value: "Widgets": a DNS-1035 label must consist'),
    ),
  );
  assert.ok(out.some((l) => l.includes("(e.g. 'my-name',  or 'abc-123', regex used for validation is")));
  assert.ok(out.some((l) => l.startsWith('spec.names.shortNames[0]: Invalid value: "w_d"')));
  assert.ok(
    out.includes('spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same'),
  );
});

test("exactly one storage version and unique names; no version need be served", () => {
  const crd = widgetCRD();
  const v = crd.spec.versions[0];
  crd.spec.versions = [
    { ...v, served: false },
    { ...v, served: false },
  ];
  const out = validateCRD(crd).map((c) => c.message?.replace(/^Invalid value: .*: /, ""));
  // The stored versions too, as kube-apiserver 1.37.2 answers: the second v1 is a storage version
  // the one stored version, taken by the first, does not count for.
  assert.deepEqual(out, [
    "must contain unique version names",
    "must have exactly one version marked as storage version",
    "must have the storage version v1",
  ]);
});

test("structural schema rules: types, items, additionalProperties with properties, metadata", () => {
  const crd = widgetCRD();
  crd.spec.versions[0].schema = {
    openAPIV3Schema: {
      type: "object",
      properties: {
        metadata: { type: "object", properties: { labels: { type: "object" } } },
        spec: {
          properties: {
            list: { type: "array" },
            m: {
              type: "object",
              properties: { a: { type: "string" } },
              additionalProperties: { type: "string" },
            },
          },
        },
        u: { type: "array", uniqueItems: true, items: { type: "string" } },
      },
    } as object,
  };
  assert.deepEqual(fields(validateCRD(crd)), [
    "spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
    "spec.validation.openAPIV3Schema.properties[spec].properties[list].items: Required value: must be specified",
    "spec.validation.openAPIV3Schema.properties[spec].properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
    "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
    "spec.validation.openAPIV3Schema.properties[u].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
  ]);
});

test("a schema is required, metadata may restrict the name, int-or-string needs no type", () => {
  const crd = widgetCRD();
  crd.spec.versions[0].schema = undefined;
  assert.deepEqual(fields(validateCRD(crd)), [
    "spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
  ]);
  const schema: Schema = {
    type: "object",
    properties: {
      metadata: { type: "object", properties: { name: { type: "string", maxLength: 10 } } },
      port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
      free: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    },
  };
  crd.spec.versions[0].schema = { openAPIV3Schema: schema as object };
  assert.deepEqual(validateCRD(crd), []);
});

test("defaults must be valid for their schema", () => {
  const crd = widgetCRD();
  const schema: Schema = {
    type: "object",
    properties: {
      spec: { type: "object", properties: { size: { type: "integer", minimum: 1, default: 0 } } },
    },
  };
  crd.spec.versions[0].schema = { openAPIV3Schema: schema as object };
  // A default is validated as a root value of no name: kube-openapi's "%s in body" leaves one blank before "in".
  assert.deepEqual(fields(validateCRD(crd)), [
    "spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: 0:  in body should be greater than or equal to 1",
  ]);
});

test("scale paths and printer columns", () => {
  const crd = widgetCRD();
  crd.spec.versions[0].subresources = {
    scale: { specReplicasPath: "spec.replicas", statusReplicasPath: ".spec.x" },
  };
  crd.spec.versions[0].additionalPrinterColumns = [{ name: "", type: "text", jsonPath: ".spec.color" }];
  assert.deepEqual(fields(validateCRD(crd)), [
    'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
    'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.x": should be a json path under .status',
    "spec.additionalPrinterColumns[0].name: Required value",
    'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
  ]);
});

test("updates keep group and plural; scope and kind once established", () => {
  const old = widgetCRD();
  old.status = { conditions: [{ type: "Established", status: "True" }] } as never;
  const crd = widgetCRD();
  crd.spec.scope = "Cluster";
  crd.spec.names.kind = "Gizmo";
  assert.deepEqual(fields(validateCRD(crd, old)), [
    'spec.scope: Invalid value: "Cluster": field is immutable',
    'spec.names.kind: Invalid value: "Gizmo": field is immutable',
  ]);
  old.status = {} as never;
  assert.deepEqual(validateCRD(crd, old), []);
});
