// The TypeScript types defineCRD gives, checked by the compiler (`npm run typecheck` fails when an
// expectation breaks: each @ts-expect-error must meet an error) and once at run time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newObject, type ObjectOf } from "../api/kind.js";
import { defineCRD, k, type Static, Type } from "./index.js";

const spec = Type.Object({
  size: Type.Integer({ minimum: 1 }),
  port: Type.Optional(k.intOrString()),
  labels: Type.Optional(k.map(Type.String())),
  mode: Type.Optional(k.stringEnum(["fast", "safe"])),
  note: Type.Optional(k.nullable(Type.String())),
  template: Type.Optional(k.embeddedResource()),
});
const Memcached = defineCRD({
  group: "cache.example.com",
  kind: "Memcached",
  versions: { v1: { spec, status: Type.Object({ conditions: Type.Optional(k.conditions()) }) } },
});
type Memcached = ObjectOf<typeof Memcached>;

const Two = defineCRD({
  group: "two.example.com",
  kind: "Two",
  storage: "v2",
  versions: {
    v1: { spec: Type.Object({ a: Type.String() }) },
    v2: { spec: Type.Object({ b: Type.Number() }) },
  },
});

test("the object types follow the schemas", () => {
  const ok: Memcached = {
    spec: { size: 2, port: "http", labels: { a: "b" }, mode: "fast", note: null, template: { kind: "Pod" } },
  };
  const specType: Static<typeof spec> = ok.spec;
  const reason: string | undefined = ok.status?.conditions?.[0]?.reason;
  // @ts-expect-error size is a number
  const wrongType: Memcached = { spec: { size: "2" } };
  // @ts-expect-error spec is required (the CRD requires it too)
  const noSpec: Memcached = {};
  // @ts-expect-error mode is one of the enum's values
  const notInEnum: Memcached = { spec: { size: 1, mode: "slow" } };
  const v2: ObjectOf<typeof Two> = { spec: { b: 1 } };
  const v1: ObjectOf<typeof Two.versions.v1> = { spec: { a: "x" } };
  // @ts-expect-error the Kind itself is the storage version, v2
  const notStorage: ObjectOf<typeof Two> = { spec: { a: "x" } };
  assert.ok([ok, specType, reason, wrongType, noSpec, notInEnum, v2, v1, notStorage].length > 0);
  assert.equal(Two.apiVersion, "two.example.com/v2");
});

test("newObject types the fields from the Kind and fills in apiVersion and kind", () => {
  const m = newObject(Memcached, { metadata: { name: "m" }, spec: { size: 3 } });
  assert.deepEqual(m, {
    apiVersion: "cache.example.com/v1",
    kind: "Memcached",
    metadata: { name: "m" },
    spec: { size: 3 },
  });
  // @ts-expect-error a typo in a field name does not compile
  const typo = newObject(Memcached, { metadata: { name: "t" }, spec: { size: 1, sise: 3 } });
  // @ts-expect-error nor a wrong type
  const wrong = newObject(Memcached, { spec: { size: "3" } });
  assert.ok(typo && wrong);
});
