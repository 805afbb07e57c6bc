// TypeBox's JSON Schema → kube's structural schema: each JSON Schema spelling turns into kube's,
// and what kube would refuse is an error naming the path. (The corpus test installs the results.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { CRDDefinitionError, defineCRD, k, Type, toStructural } from "./index.js";

test("maps, literals, nullables, int-or-string, bounds and free-form values get kube's spelling", () => {
  const schema = Type.Object({
    labels: k.map(Type.String()),
    record: Type.Record(Type.String(), Type.Integer()),
    mode: Type.Union([Type.Literal("A"), Type.Literal("B")]),
    level: Type.Enum([1, 2, 3]),
    fixed: Type.Literal(true),
    maybe: Type.Union([Type.String(), Type.Null()]),
    port: Type.Union([Type.Integer(), Type.String()]),
    ratio: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
    anything: Type.Unknown(),
    kept: Type.Object({}, { additionalProperties: true }),
    size: Type.Optional(k.quantity()),
  });
  assert.deepEqual(toStructural(schema, "spec"), {
    type: "object",
    required: ["labels", "record", "mode", "level", "fixed", "maybe", "port", "ratio", "anything", "kept"],
    properties: {
      labels: { type: "object", additionalProperties: { type: "string" } },
      record: { type: "object", additionalProperties: { type: "integer" } },
      mode: { type: "string", enum: ["A", "B"] },
      level: { type: "integer", enum: [1, 2, 3] },
      fixed: { type: "boolean", enum: [true] },
      maybe: { type: "string", nullable: true },
      port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
      ratio: { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true },
      anything: { "x-kubernetes-preserve-unknown-fields": true },
      kept: { type: "object", properties: {}, "x-kubernetes-preserve-unknown-fields": true },
      size: {
        "x-kubernetes-int-or-string": true,
        anyOf: [{ type: "integer" }, { type: "string" }],
        pattern:
          "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
      },
    },
  });
});

test("what has no structural spelling is an error naming the path", () => {
  const cases: [unknown, RegExp][] = [
    [
      Type.Object({ a: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }),
      /spec\.a: a union is not structural/,
    ],
    [
      Type.Object({
        a: Type.Intersect([Type.Object({ x: Type.String() }), Type.Object({ y: Type.String() })]),
      }),
      /spec\.a: an intersection/,
    ],
    [Type.Object({ a: Type.Array(Type.String(), { uniqueItems: true }) }), /spec\.a: uniqueItems is refused/],
    [Type.Object({ a: Type.Tuple([Type.String(), Type.Number()]) }), /spec\.a: /],
    [
      Type.Object({ a: Type.Record(Type.String({ pattern: "^x" }), Type.String()) }),
      /spec\.a: patternProperties/,
    ],
    [Type.Object({ a: Type.Null() }), /spec\.a: a field of type null/],
    [Type.Object({ a: Type.Ref("Other") }), /spec\.a: .*references are not allowed/],
  ];
  for (const [schema, message] of cases) {
    assert.throws(
      () => toStructural(schema, "spec"),
      (err) => {
        assert.ok(err instanceof CRDDefinitionError, String(err));
        assert.match(err.message, message);
        return true;
      },
    );
  }
});

test("defineCRD checks names, versions and the storage version", () => {
  const spec = Type.Object({ a: Type.String() });
  assert.throws(
    () => defineCRD({ group: "nodot", kind: "A", versions: { v1: { spec } } }),
    /group: must be a DNS subdomain/,
  );
  assert.throws(
    () => defineCRD({ group: "a.example.com", kind: "lower", versions: { v1: { spec } } }),
    /kind: must be CamelCase/,
  );
  assert.throws(
    () => defineCRD({ group: "a.example.com", kind: "A", versions: { one: { spec } } }),
    /versions\.one: a version is v1/,
  );
  assert.throws(
    () => defineCRD({ group: "a.example.com", kind: "A", versions: { v1: { spec }, v2: { spec } } }),
    /storage: with several versions, name the storage one \(one of v1, v2\)/,
  );
  assert.throws(
    () =>
      defineCRD({ group: "a.example.com", kind: "A", versions: { v1: { spec, statusSubresource: true } } }),
    /the status subresource needs a status schema/,
  );
});

test("the returned value is the storage version's Kind, with the CRD and a Kind per version", () => {
  const Two = defineCRD({
    group: "two.example.com",
    kind: "Policy",
    scope: "Cluster",
    storage: "v2",
    shortNames: ["pol"],
    versions: {
      v1: {
        spec: Type.Object({ a: Type.String() }),
        served: true,
        deprecated: true,
        deprecationWarning: "use v2",
      },
      v2: { spec: Type.Object({ b: Type.Number() }), status: Type.Object({ ok: Type.Boolean() }) },
    },
  });
  assert.equal(Two.apiVersion, "two.example.com/v2");
  assert.equal(Two.plural, "policies");
  assert.equal(Two.namespaced, false);
  assert.equal(Two.versions.v1.apiVersion, "two.example.com/v1");
  assert.equal(Two.crd.metadata?.name, "policies.two.example.com");
  assert.deepEqual(Two.crd.spec.names, {
    kind: "Policy",
    listKind: "PolicyList",
    plural: "policies",
    singular: "policy",
    shortNames: ["pol"],
  });
  assert.deepEqual(
    Two.crd.spec.versions.map((v) => [v.name, v.storage, v.deprecated ?? false, v.subresources ?? null]),
    [
      ["v1", false, true, null],
      ["v2", true, false, { status: {} }],
    ],
  );
  assert.ok(Object.isFrozen(Two.crd.spec.versions[0]), "the CRD cannot be changed by accident");
});
