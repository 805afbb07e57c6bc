import assert from "node:assert/strict";
import { test } from "node:test";
import {
  SelectorParseError,
  labelSelectorFromObject,
  labelSelectorFromSet,
  labelValueErrors,
  newRequirement,
  parseLabelSelector,
  qualifiedNameErrors,
} from "./labels.js";

test("valid selectors from apimachinery's TestSelectorParse parse", () => {
  const good = [
    "",
    "x=a",
    "x=a,y=b,z=c",
    "x!=a",
    "x==a",
    "x=a,y!=b",
    "x=a,y==b",
    "x=,z= ",
    "x= ,z= ",
    "!x",
    "x>1",
    "x>1,z<5",
    "x in (a)",
    "x in (a,b)",
    "x notin (a)",
    "x in (,a)",
    "x in ()",
    "x in (in)",
    "x notin (notin)",
    "in in (in)",
    "x in (foo,,baz),y,z notin ()",
    "x,!y",
    "  x  =  a  ",
    "a.b/c-d_e=f",
    "x=a.b-c_d",
  ];
  for (const text of good) assert.doesNotThrow(() => parseLabelSelector(text), text);
});

test("invalid selectors from apimachinery's TestSelectorParse are rejected", () => {
  const bad = [
    "x=a||y=b",
    "x==a==b",
    "!x=a",
    "x<a",
    "x>a",
    "x=a,",
    ",x=a",
    "x in a",
    "x in (a",
    "x in (a b)",
    "x notin",
    "x in (a,b) y",
    "a/b/c=d",
    "x=a b",
    "x=" + "v".repeat(64),
    "!",
    "x=(",
  ];
  for (const text of bad) {
    assert.throws(() => parseLabelSelector(text), SelectorParseError, text);
  }
});

test("parse errors carry apimachinery's messages", () => {
  const cases: Array<[string, string]> = [
    ["x=a,", "found '', expected: identifier after ','"],
    [",x", "found ',', expected: !, identifier, or 'end of string'"],
    ["x in a", "unable to parse requirement: found 'a' expected: '('"],
    ["x (a)", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt"],
    ["x in (a b)", "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ["!x=a", "found '=', expected: ',' or 'end of string'"],
    ["x=a y", "found 'y', expected: ',' or 'end of string'"],
    ["x=a<b", "found '<', expected: ',' or 'end of string'"],
    ["x=!a", "unable to parse requirement: found '!', expected: identifier"],
    ["x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier"],
    [
      "x>a",
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseLabelSelector(text), { name: "SelectorParseError", message }, text);
  }
});

test("key and value validation errors name the offending part", () => {
  assert.throws(() => parseLabelSelector("a/b/c=d"), {
    message:
      /^unable to parse requirement: <nil>: Invalid value: "a\/b\/c": a valid label key must consist of/,
  });
  assert.throws(() => parseLabelSelector("Example.com/x=d"), {
    message: /<nil>: Invalid value: "Example.com\/x": prefix part a lowercase RFC 1123 subdomain/,
  });
  assert.throws(() => parseLabelSelector("x=-a"), {
    message:
      /^unable to parse requirement: values\[0\]\[x\]: Invalid value: "-a": a valid label must be an empty string/,
  });
  assert.throws(() => parseLabelSelector(`x=${"a".repeat(64)}`), {
    message: /Invalid value: "a{64}": must be no more than 63 bytes$/,
  });
  assert.throws(() => parseLabelSelector(`x=-${"a".repeat(63)}`), {
    message: /must be no more than 63 bytes; a valid label/,
  });
  assert.deepEqual(qualifiedNameErrors("/a"), ["prefix part must be non-empty"]);
  assert.deepEqual(qualifiedNameErrors("a/"), [
    "name part must be non-empty",
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  assert.deepEqual(qualifiedNameErrors("example.com/MyName"), []);
  assert.deepEqual(qualifiedNameErrors("k".repeat(63)), []);
  assert.equal(qualifiedNameErrors("k".repeat(64))[0], "name part must be no more than 63 bytes");
  assert.deepEqual(labelValueErrors(""), []);
  assert.deepEqual(labelValueErrors("a_b.c-d"), []);
});

test("requirements are sorted by key and values sorted and distinct", () => {
  const s = parseLabelSelector("z in (c,a,a,b),a,!m,b!=x,c==y,d=,e notin ()");
  assert.deepEqual(
    s.requirements.map((r) => [r.key, r.operator, r.values]),
    [
      ["a", "exists", []],
      ["b", "!=", ["x"]],
      ["c", "==", ["y"]],
      ["d", "=", [""]],
      ["e", "notin", [""]],
      ["m", "!", []],
      ["z", "in", ["a", "b", "c"]],
    ],
  );
  assert.equal(s.toString(), "a,b!=x,c==y,d=,e notin (),!m,z in (a,b,c)");
  assert.equal(parseLabelSelector(s.toString()).toString(), s.toString());
  assert.equal(parseLabelSelector("x in (foo,,baz)").toString(), "x in (,baz,foo)");
  assert.equal(parseLabelSelector("x>1,y<2").toString(), "x>1,y<2");
});

test("matching follows apimachinery: != and notin match objects without the label", () => {
  const labels = { x: "a", y: "b", n: "5" };
  const cases: Array<[string, Record<string, string> | undefined, boolean]> = [
    ["", labels, true],
    ["", undefined, true],
    ["x=a", labels, true],
    ["x==a", labels, true],
    ["x=b", labels, false],
    ["x!=b", labels, true],
    ["x!=a", labels, false],
    ["q!=a", labels, true],
    ["q!=a", undefined, true],
    ["x in (a,c)", labels, true],
    ["x in (c)", labels, false],
    ["q in (a)", labels, false],
    ["x notin (a)", labels, false],
    ["x notin (c)", labels, true],
    ["q notin (a)", labels, true],
    ["x", labels, true],
    ["q", labels, false],
    ["!q", labels, true],
    ["!x", labels, false],
    ["x=a,y=b", labels, true],
    ["x=a,y=c", labels, false],
    ["n>4", labels, true],
    ["n>5", labels, false],
    ["n<6", labels, true],
    ["x>1", labels, false],
    ["q>1", labels, false],
    ["e=", { e: "" }, true],
    ["e=", {}, false],
    ["toString", {}, false],
  ];
  for (const [text, l, want] of cases) assert.equal(parseLabelSelector(text).matches(l), want, text);
});

test("empty reports a selector that restricts nothing", () => {
  assert.equal(parseLabelSelector("").empty, true);
  assert.equal(parseLabelSelector("  ").empty, true);
  assert.equal(parseLabelSelector("x").empty, false);
  assert.equal(labelSelectorFromObject(undefined).empty, true);
  assert.equal(labelSelectorFromObject({}).empty, true);
  assert.equal(labelSelectorFromSet({}).empty, true);
});

test("labelSelectorFromObject combines matchLabels and matchExpressions", () => {
  const s = labelSelectorFromObject({
    matchLabels: { app: "web" },
    matchExpressions: [
      { key: "tier", operator: "In", values: ["front", "back"] },
      { key: "env", operator: "NotIn", values: ["prod"] },
      { key: "owner", operator: "Exists" },
      { key: "legacy", operator: "DoesNotExist" },
    ],
  });
  assert.equal(s.toString(), "app=web,env notin (prod),!legacy,owner,tier in (back,front)");
  assert.equal(s.matches({ app: "web", tier: "front", owner: "me" }), true);
  assert.equal(s.matches({ app: "web", tier: "front", owner: "me", env: "prod" }), false);
  assert.equal(s.matches({ app: "web", tier: "front", owner: "me", legacy: "1" }), false);
  assert.equal(s.matches({ app: "web", tier: "side", owner: "me" }), false);
  assert.throws(() => labelSelectorFromObject({ matchExpressions: [{ key: "a", operator: "Has" }] }), {
    message: '"Has" is not a valid label selector operator',
  });
  assert.throws(
    () => labelSelectorFromObject({ matchExpressions: [{ key: "a", operator: "In", values: [] }] }),
    {
      message: `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`,
    },
  );
  assert.throws(
    () => labelSelectorFromObject({ matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }),
    {
      message: `values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist`,
    },
  );
  assert.throws(() => labelSelectorFromObject({ matchLabels: { "a b": "x" } }), {
    message: /^key: Invalid value: "a b"/,
  });
});

test("labelSelectorFromSet matches exactly the set, sorted by key", () => {
  const s = labelSelectorFromSet({ b: "2", a: "1" });
  assert.equal(s.toString(), "a=1,b=2");
  assert.equal(s.matches({ a: "1", b: "2", c: "3" }), true);
  assert.equal(s.matches({ a: "1" }), false);
});

test("newRequirement validates like labels.NewRequirement", () => {
  assert.deepEqual(newRequirement("x", "in", ["b", "a"]).values, ["a", "b"]);
  assert.throws(() => newRequirement("x", "=", ["a", "b"]), {
    message: `values: Invalid value: []string{"a", "b"}: exact-match compatibility requires one single value`,
  });
  assert.throws(() => newRequirement("-x", "exists"), /key: Invalid value: "-x"/);
  assert.throws(() => newRequirement("x", "gt", ["a", "1"]), {
    message:
      /^\[values: Invalid value: \[\]string\{"a", "1"\}: for 'Gt', 'Lt' operators, exactly one value is required, values\[0\]: Invalid value: "a": /,
  });
});

test("requiresExactMatch reports a pinned label value", () => {
  const s = parseLabelSelector("a=1,b==2,c in (3),d in (4,5),e!=6,f");
  assert.equal(s.requiresExactMatch("a"), "1");
  assert.equal(s.requiresExactMatch("b"), "2");
  assert.equal(s.requiresExactMatch("c"), "3");
  assert.equal(s.requiresExactMatch("d"), undefined);
  assert.equal(s.requiresExactMatch("e"), undefined);
  assert.equal(s.requiresExactMatch("f"), undefined);
  assert.equal(s.requiresExactMatch("z"), undefined);
});
