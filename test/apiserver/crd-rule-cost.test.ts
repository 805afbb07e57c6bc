// The estimated cost of a CRD's rules, as kube-apiserver estimates it when the CRD is written:
// which rules and messageExpressions it takes and which it refuses as over budget. The cases are
// where the estimate turns on a value's size: a string a function makes has no size kube knows
// (string(), a quantity, a literal list's elements), so a rule that concatenates or searches it
// is refused, and one that only compares it is not. Each CRD is written with dryRun=All.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { versionDifference } from "../support/environment.js";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const group = `costs${Date.now().toString(36)}.example.com`;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

const bounded = { type: "string", maxLength: 10 };
const spec = {
  type: "object",
  properties: {
    s: { type: "string" },
    b: bounded,
    q: { type: "string", maxLength: 20 },
    n: { type: "integer" },
    l: { type: "array", maxItems: 10, items: bounded },
    m: { type: "object", maxProperties: 10, additionalProperties: bounded },
  },
};

/** What kube says of a CRD whose spec carries `rule` (and `messageExpression`): ok, or the cost's field. */
async function verdict(rule: string, messageExpression?: string): Promise<string> {
  const validation = { rule, ...(messageExpression ? { messageExpression } : { message: "no" }) };
  const schema = {
    type: "object",
    properties: { spec: { ...spec, "x-kubernetes-validations": [validation] } },
  };
  const r = await api.post(
    `${CRDS}?dryRun=All`,
    customResourceDefinition(group, { plural: "meters", kind: "Meter" }, schema),
  );
  if (r.status === 201) return "ok";
  assert.equal(r.status, 422, r.text);
  const causes = (r.body.details?.causes ?? []) as { field: string; message: string }[];
  const over = causes.find((c) => / cost exceeds budget/.test(c.message));
  assert.ok(over, `${rule}: refused for another reason: ${r.text}`);
  return over.field.replace(/^.*\.x-kubernetes-validations\[0\]\./, "");
}

describe("kube's estimate of a rule's cost turns on the sizes it knows", () => {
  test("a string a function makes is unbounded: concatenated or searched it is over budget", async () => {
    const cases: [rule: string, messageExpression: string | undefined, want: string][] = [
      ["self.n > 0", "'n is ' + string(self.n)", "messageExpression"],
      ["self.n > 0", "'b is ' + self.b", "ok"],
      ["string(self.n) == '1'", undefined, "ok"],
      ["string(self.n) + 'x' == 'y'", undefined, "rule"],
      ["self.s.startsWith(string(self.n))", undefined, "rule"],
      ["string(self.n).size() < 5", undefined, "ok"],
      ["self.b.lowerAscii() + 'x' == 'y'", undefined, "ok"],
    ];
    for (const [rule, message, want] of cases) assert.equal(await verdict(rule, message), want, rule);
  });

  test("a quantity compares with == at a constant cost, with != by its unknown size", async () => {
    assert.equal(await verdict("quantity(self.q).add(1) == quantity('1')"), "ok");
    assert.equal(await verdict("quantity(self.q).add(1) != quantity('1')"), "rule");
    assert.equal(await verdict("quantity(self.q).compareTo(quantity('1')) != 0"), "ok");
  });

  test("a list's elements are bounded by its schema; a literal list's are not", async () => {
    assert.equal(await verdict("self.l.join(',') + 'x' == 'y'"), "ok");
    assert.equal(await verdict("self.l.indexOf('a') >= 0"), "ok");
    assert.equal(await verdict("['a', 'b'].indexOf(self.b) >= 0"), "rule");
    assert.equal(await verdict("self.l.map(x, x + 'a').exists(y, y.contains('ba'))"), "ok");
  });

  test("format's messages and optional values are sized by their types (kube 1.31+)", async (t) => {
    if (!versionDifference("kube 1.26 has no format library nor optional values in CRD rules")) {
      t.skip("kube 1.26 offers no format.* nor optional.* in CRD rules");
      return;
    }
    const valid = "!format.uuid().validate(self.b).hasValue()";
    assert.equal(await verdict(valid, "format.uuid().validate(self.b).value()[0]"), "ok");
    assert.equal(
      await verdict(valid, "format.uuid().validate(self.b).value().join(', ')"),
      "messageExpression",
    );
    assert.equal(await verdict("optional.of(self.b).value() + 'x' == 'y'"), "rule");
    assert.equal(await verdict("self.?b.orValue('') + 'x' == 'y'"), "rule");
    assert.equal(await verdict("self.l.first().orValue('').size() < 3"), "ok");
  });

  test("kube sizes what has no path by the rule's own node: a function's list's items, their variables", async () => {
    // kube's size estimator reads a path from its second element, so `split(',')[0]` (path @items)
    // and a variable over a function's list are sized as the rule's node, an object: 0.
    assert.equal(await verdict("'lit'.contains(self.s.split(',')[0])"), "ok");
    assert.equal(await verdict("self.b.split(',', 3).exists(x, x.contains(self.s))"), "ok");
    assert.equal(await verdict("(self.l + self.l).all(x, x == self.s.substring(1))"), "ok");
    // A list library function's result has no path: a string min() is unbounded.
    assert.equal(await verdict("self.l.min() < self.l.max()"), "rule");
    assert.equal(await verdict("dyn(self.b).contains(string(self.n))"), "rule");
  });

  test("a map's value is bounded when indexed, not when selected", async () => {
    assert.equal(await verdict("!('k' in self.m) || self.m['k'].contains('x')"), "ok");
    assert.equal(await verdict("!has(self.m.k) || self.m.k.contains('x')"), "rule");
  });
});
