// A CRD's rules are type-checked when the CRD is written, as kube-apiserver does with cel-go's
// checker and the types it declares for each schema node: a comparison of a string with an int,
// a field the schema does not declare, a rule that is no bool or a messageExpression that is no
// string refuse the CRD with cel-go's words; well-typed rules over every kind of node (formats,
// int-or-string, maps, lists, embedded resources) are accepted and run.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const run = Date.now().toString(36);
const group = `typecheck${run}.example.com`;
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(async () => {
  for (const path of created) await api.delete(path);
  await target.close();
});

/** The properties of `spec` every case's rules see. */
const properties = {
  foo: { type: "string" },
  n: { type: "integer" },
  d: { type: "number" },
  b: { type: "boolean" },
  ts: { type: "string", format: "date-time" },
  dur: { type: "string", format: "duration" },
  ios: { "x-kubernetes-int-or-string": true },
  m: { type: "object", additionalProperties: { type: "integer" } },
  l: {
    type: "array",
    maxItems: 10,
    items: { type: "object", properties: { name: { type: "string", maxLength: 10 } } },
  },
  sl: { type: "array", maxItems: 10, items: { type: "string", maxLength: 10 } },
  emb: {
    type: "object",
    "x-kubernetes-embedded-resource": true,
    properties: { spec: { type: "object", properties: { x: { type: "integer" } } } },
  },
};

let serial = 0;
/** A CRD whose `spec` has `rules`; its plural. */
function crd(rules: object[]) {
  const plural = `checks${serial++}`;
  const kind = `Check${serial}`;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural, singular: plural, kind, listKind: `${kind}List` },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: { spec: { type: "object", properties, "x-kubernetes-validations": rules } },
            },
          },
        },
      ],
    },
  };
}

const AT = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]";

/** Creates a CRD with the one rule `rule`: the field and message of each cause refusing it, the printed rule left out. */
async function refusal(rule: object): Promise<[string, string][]> {
  const body = crd([rule]);
  const r = await api.post(CRDS, body);
  if (r.status === 201) created.push(`${CRDS}/${body.metadata.name}`);
  assert.equal(r.status, 422, `${JSON.stringify(rule)} was accepted`);
  const causes = (r.body as { details: { causes: { field: string; message: string }[] } }).details.causes;
  return causes.map((c) => [
    c.field,
    // The rule printed as kube prints it (JSON), known from the request: left out.
    c.message.replace(/^Invalid value: \{"Rule":.*?"OptionalOldSelf":(null|true|false)\}: /s, ""),
  ]);
}

/** kube's name of a rule's node type, selfType<nanoseconds>: different on each CRD, as kube's. */
const SELF = "selfType#";

/** cel-go's error block for `message` at column `column` (1-based) of `rule`. */
const located = (rule: string, column: number, message: string) =>
  `ERROR: <input>:1:${column}: ${message}\n | ${rule}\n | ${".".repeat(column - 1)}^`;

describe("CRD rules type-checked as cel-go checks them", () => {
  test("a comparison of a string with an int is refused with cel-go's overload error", async () => {
    const rule = "self.foo == 1";
    assert.deepEqual(await refusal({ rule }), [
      [
        `${AT}.rule`,
        `compilation failed: ${located(rule, 10, "found no matching overload for '_==_' applied to '(string, int)'")}`,
      ],
    ]);
  });

  test("every error of a rule is reported, in source order", async () => {
    const rule = "self.foo == 1 && self.n == 'a'";
    assert.deepEqual(await refusal({ rule }), [
      [
        `${AT}.rule`,
        `compilation failed: ${located(rule, 10, "found no matching overload for '_==_' applied to '(string, int)'")}\n${located(rule, 25, "found no matching overload for '_==_' applied to '(int, string)'")}`,
      ],
    ]);
  });

  test("a rule must evaluate to a bool, dyn included; a messageExpression to a string", async () => {
    for (const rule of ["self.foo", "self.n + 1", "self.ios"]) {
      assert.deepEqual(
        await refusal({ rule }),
        [[`${AT}.rule`, "cel expression must evaluate to a bool"]],
        rule,
      );
    }
    assert.deepEqual(await refusal({ rule: "self.n > 0", messageExpression: "self.n" }), [
      [`${AT}.messageExpression`, "messageExpression must evaluate to a string"],
    ]);
    const messageExpression = "'n is ' + self.n";
    assert.deepEqual(await refusal({ rule: "self.n > 0", messageExpression }), [
      [
        `${AT}.messageExpression`,
        `messageExpression compilation failed: ${located(messageExpression, 9, "found no matching overload for '_+_' applied to '(string, int)'")}`,
      ],
    ]);
  });

  test("formats, maps, lists and methods have kube's declared types", async () => {
    const cases: [string, number, string][] = [
      ["self.ts < '2030'", 9, "found no matching overload for '_<_' applied to '(timestamp, string)'"],
      ["self.dur > 1", 10, "found no matching overload for '_>_' applied to '(duration, int)'"],
      ["self.m.exists(k, k > 1)", 20, "found no matching overload for '_>_' applied to '(string, int)'"],
      ["self.m.a == 'x'", 10, "found no matching overload for '_==_' applied to '(int, string)'"],
      ["self.l.all(x, x.nam == 'a')", 16, "undefined field 'nam'"],
      ["self.sl.exists(s, s == 1)", 21, "found no matching overload for '_==_' applied to '(string, int)'"],
      ["self.n.startsWith('1')", 18, "found no matching overload for 'startsWith' applied to 'int.(string)'"],
      [
        "self.b ? self.n : self.foo",
        8,
        "found no matching overload for '_?_:_' applied to '(bool, int, string)'",
      ],
      ["self.emb.metadata.labels.size() > 1", 18, "undefined field 'labels'"],
      ["self.n.x == 1", 7, "type 'int' does not support field selection"],
      // null fits objects, timestamps and durations only; objects compare with their own type only.
      ["self.foo == null", 10, "found no matching overload for '_==_' applied to '(string, null)'"],
      ["self.sl != null", 9, "found no matching overload for '_!=_' applied to '(list(string), null)'"],
      [
        "self.emb == {}",
        10,
        `found no matching overload for '_==_' applied to '(${SELF}.emb, map(dyn, dyn))'`,
      ],
      [
        "self.l[0] == self.emb",
        11,
        `found no matching overload for '_==_' applied to '(${SELF}.l.@idx, ${SELF}.emb)'`,
      ],
    ];
    for (const [rule, column, message] of cases) {
      const got = (await refusal({ rule })).map(([f, m]) => [f, m.replace(/selfType\d+/g, SELF)]);
      assert.deepEqual(got, [[`${AT}.rule`, `compilation failed: ${located(rule, column, message)}`]], rule);
    }
  });

  test("well-typed rules over every kind of node are accepted and run", async () => {
    const rules = [
      "self.foo.startsWith('a') && matches(self.foo, '^a')",
      "self.n < self.d",
      "self.ts < timestamp('2030-01-01T00:00:00Z')",
      "self.dur > duration('1s')",
      "self.ios == 1 || self.ios == 'one'",
      "self.m.all(k, k.size() < 5 && self.m[k] >= 0)",
      "self.l.all(x, !has(x.name) || x.name.startsWith('a'))",
      "self.sl.map(s, s.size()).all(n, n < 5) && self.sl.indexOf('a') >= 0",
      "self.emb.kind == 'Pod' && self.emb.metadata.name.startsWith('p') && self.emb.spec.x > 0",
      "self.b ? self.n > 0 : true",
      "self.emb != null && self.ts != null && self.sl != [] && self.m != {}",
      "type(self.ios) == int ? self.ios > 0 : self.ios.startsWith('o')",
    ].map((rule) => ({ rule, messageExpression: `'failed: ' + ${JSON.stringify(rule)}` }));
    const body = crd(rules);
    const r = await api.post(CRDS, body);
    assert.equal(r.status, 201, r.text);
    created.push(`${CRDS}/${body.metadata.name}`);
    const collection = `/apis/${group}/v1/namespaces/default/${body.spec.names.plural}`;
    await eventually("the CRD served", async () => (await api.get(collection)).status === 200, {
      timeoutMs: 30_000,
    });
    const spec = {
      foo: "abc",
      n: 1,
      d: 1.5,
      b: true,
      ts: "2026-01-01T00:00:00Z",
      dur: "1m",
      ios: 1,
      m: { a: 1 },
      l: [{ name: "ann" }, {}],
      sl: ["a", "bb"],
      emb: { apiVersion: "v1", kind: "Pod", metadata: { name: "pod" }, spec: { x: 1 } },
    };
    const ok = await api.post(collection, {
      apiVersion: `${group}/v1`,
      kind: body.spec.names.kind,
      metadata: { name: "ok" },
      spec,
    });
    assert.equal(ok.status, 201, ok.text);
    const bad = await api.post(collection, {
      apiVersion: `${group}/v1`,
      kind: body.spec.names.kind,
      metadata: { name: "bad" },
      spec: { ...spec, n: 2, d: 1.5 },
    });
    assert.equal(bad.status, 422, bad.text);
    assert.deepEqual(
      (bad.body as { details: { causes: { message: string }[] } }).details.causes.map((c) => c.message),
      ["Invalid value: failed: self.n < self.d"],
    );
  });
});
