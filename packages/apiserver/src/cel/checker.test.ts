// The type checker of CRD rules (checker.ts) on the types kube declares for each kind of schema
// node: what cel-go refuses, in its words and at its column, and what it accepts, so that no
// rule kube accepts is refused here.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Schema } from "../schema/schema-types.js";
import { ruleTypeError } from "./crd-rule-types.js";

const schema: Schema = {
  type: "object",
  properties: {
    foo: { type: "string" },
    n: { type: "integer" },
    d: { type: "number" },
    b: { type: "boolean" },
    ts: { type: "string", format: "date-time" },
    dur: { type: "string", format: "duration" },
    by: { type: "string", format: "byte" },
    ios: { "x-kubernetes-int-or-string": true },
    pu: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    m: { type: "object", additionalProperties: { type: "integer" } },
    l: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
    sl: { type: "array", items: { type: "string" } },
    o: { type: "object", properties: { a: { type: "integer" } } },
  },
};
const check = (rule: string, message = false, root = true) =>
  ruleTypeError({ schema, root, optionalOldSelf: false }, rule, message);

/** The one error cel-go reports at `column` of `rule`. */
const error = (rule: string, column: number, message: string) =>
  `compilation failed: ERROR: <input>:1:${column}: ${message}\n | ${rule}\n | ${".".repeat(column - 1)}^`;

test("operands of the wrong type are cel-go's 'no matching overload', at the operator", () => {
  const cases: [string, number, string][] = [
    ["self.foo == 1", 10, "'_==_' applied to '(string, int)'"],
    ["self.n == self.d", 8, "'_==_' applied to '(int, double)'"],
    ["self.n == 1u", 8, "'_==_' applied to '(int, uint)'"],
    ["self.ts < '2030'", 9, "'_<_' applied to '(timestamp, string)'"],
    ["self.dur > 1", 10, "'_>_' applied to '(duration, int)'"],
    ["self.by == 'a'", 9, "'_==_' applied to '(bytes, string)'"],
    ["self.foo + 1 == 'a'", 10, "'_+_' applied to '(string, int)'"],
    ["!self.n", 1, "'!_' applied to '(int)'"],
    ["self.n in ['a']", 8, "'@in' applied to '(int, list(string))'"],
    ["self.b ? self.n : self.foo", 8, "'_?_:_' applied to '(bool, int, string)'"],
    ["self.n.startsWith('1')", 18, "'startsWith' applied to 'int.(string)'"],
    ["self.foo.matches(1)", 17, "'matches' applied to 'string.(int)'"],
    ["self.n.size() == 1", 12, "'size' applied to 'int.()'"],
    ["self.m.exists(k, k > 1)", 20, "'_>_' applied to '(string, int)'"],
    ["self.foo == null", 10, "'_==_' applied to '(string, null)'"],
    ["self.l.map(x, x.name).all(n, n > 1)", 32, "'_>_' applied to '(string, int)'"],
  ];
  for (const [rule, column, applied] of cases) {
    assert.equal(check(rule), error(rule, column, `found no matching overload for ${applied}`), rule);
  }
});

test("fields the schema does not declare are undefined, preserve-unknown-fields adding none", () => {
  const cases: [string, number, string][] = [
    ["self.nope == 1", 5, "undefined field 'nope'"],
    ["self.pu.x == 1", 8, "undefined field 'x'"],
    ["has(self.pu.x)", 4, "undefined field 'x'"],
    ["self.l.all(x, x.nam == 'a')", 16, "undefined field 'nam'"],
    ["self.metadata.labels.size() > 0", 14, "undefined field 'labels'"],
    ["self.o.a.x == 1", 9, "type 'int' does not support field selection"],
  ];
  for (const [rule, column, message] of cases) assert.equal(check(rule), error(rule, column, message), rule);
  // metadata, apiVersion and kind are declared at a resource's root only.
  assert.equal(
    check("self.metadata.name == 'x'", false, false),
    error("self.metadata.name == 'x'", 5, "undefined field 'metadata'"),
  );
});

test("every error of a rule is reported, in source order", () => {
  const rule = "self.n == 'a' || self.foo == 1";
  assert.equal(
    check(rule),
    `compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(int, string)'\n | ${rule}\n | .......^\n` +
      `ERROR: <input>:1:27: found no matching overload for '_==_' applied to '(string, int)'\n | ${rule}\n | ..........................^`,
  );
});

test("a rule must be a bool, not even dyn; a messageExpression a string", () => {
  for (const rule of ["self.foo", "self.n + 1", "self.ios", "dyn(self.b)", "self.b ? self.n : 1"]) {
    assert.equal(check(rule), "cel expression must evaluate to a bool", rule);
  }
  assert.equal(check("self.n", true), "messageExpression must evaluate to a string");
  assert.equal(check("'n: ' + string(self.n)", true), undefined);
});

test("well-typed rules are accepted, and what the checker cannot follow is never refused", () => {
  for (const rule of [
    "self.foo == 'a' && self.n > 1 && self.d > 0.5 && self.b",
    "self.n < self.d && self.d >= self.n",
    "self.ts < timestamp('2030-01-01T00:00:00Z') && self.ts.getFullYear() > 2000",
    "self.dur > duration('1s')",
    "size(self.by) > 1",
    "self.ios == 1 || self.ios == 'a'",
    "type(self.ios) == int ? self.ios > 0 : self.ios.startsWith('x')",
    "self.m.a > 1 && self.m['b'] > 1 && self.m.all(k, self.m[k] > 0)",
    "self.l.all(x, has(x.name) && x.name.startsWith('a'))",
    "self.l.map(x, x.name).all(n, n.size() > 1) && self.l[0].name == 'a'",
    "self.sl.filter(s, s.startsWith('a')).size() > 0 && self.sl.indexOf('a') == 0 && self.sl.join(',') == 'a'",
    "self.foo.split(',').size() == 1 && self.foo.lowerAscii() == 'a' && self.foo.indexOf('a') == 0",
    "matches(self.foo, '^a') && self.foo.find('a') == 'a'",
    "self.metadata.name.startsWith('a') && self.apiVersion == 'v1' && self.kind == 'K'",
    "self.o == oldSelf.o && self.o != null",
    "int(self.foo) > 1 && string(self.n) == '1' && double(self.n) > 0.5",
    // Libraries and syntax the checker does not model: unknown, never refused.
    "self.?foo.orValue('') == ''",
    "quantity(self.foo).isLessThan(quantity('1'))",
    "isURL(self.foo) && self.sl.isSorted() && sets.contains(self.sl, ['a'])",
  ]) {
    assert.equal(check(rule), undefined, rule);
  }
});

test("list and map literals must not mix types (kube's HomogeneousAggregateLiterals), once the check passed", () => {
  assert.equal(
    check("[1, 'a'].size() == 2"),
    error("[1, 'a'].size() == 2", 5, "expected type 'int' but found 'string'"),
  );
  assert.equal(
    check("{'a': 1, 'b': 'c'}.size() == 2"),
    error("{'a': 1, 'b': 'c'}.size() == 2", 15, "expected type 'int' but found 'string'"),
  );
  assert.equal(check("[self.n, 1].all(x, x > 0) && [self.foo, 'a'].size() == 2"), undefined);
  // Reported only when the checker found nothing.
  assert.equal(
    check("[1, 'a'].size() == self.foo"),
    error(
      "[1, 'a'].size() == self.foo",
      17,
      "found no matching overload for '_==_' applied to '(int, string)'",
    ),
  );
});

test("Kubernetes' quantity library is typed: sign is a global function, not a method", () => {
  assert.equal(check("!isQuantity(self.foo) || sign(quantity(self.foo)) == 1"), undefined);
  assert.equal(
    check("quantity(self.foo).sign() == 1"),
    error(
      "quantity(self.foo).sign() == 1",
      24,
      "found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'",
    ),
  );
  assert.equal(
    check("quantity(self.foo).isLessThan(1)"),
    error(
      "quantity(self.foo).isLessThan(1)",
      30,
      "found no matching overload for 'isLessThan' applied to 'kubernetes.Quantity.(int)'",
    ),
  );
  assert.equal(check("quantity(self.foo).add(1).sub(quantity('1')).asInteger() > 0"), undefined);
});

test("the declarations table is read whole: every line parses, the last libraries' too", async () => {
  const { overloadsOf } = await import("./declarations.js");
  assert.equal(overloadsOf("cel.@mapInsert")?.length, 2);
  assert.equal(overloadsOf("format.uuid")?.length, 1);
  assert.equal(overloadsOf("isSemver")?.length, 2);
  assert.equal(overloadsOf("min")?.length, 8);
});
