import assert from "node:assert/strict";
import { test } from "node:test";
import {
  FieldSelectorParseError,
  escapeFieldValue,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
} from "./fields.js";

const getter = (fields: Record<string, string>) => (f: string) => fields[f];

test("valid field selectors from apimachinery's TestSelectorParse parse", () => {
  const good = [
    "",
    "a=b",
    "a==b",
    "a!=b",
    "a=b,c=d",
    "a=",
    "a!=",
    "x=a\\,b",
    "x=a\\=b",
    "x=a\\\\b",
    "a=b,,c=d",
  ];
  for (const text of good) assert.doesNotThrow(() => parseFieldSelector(text), text);
});

test("invalid field selectors carry apimachinery's messages", () => {
  const cases: Array<[string, string]> = [
    ["a", "invalid selector: 'a'; can't understand 'a'"],
    ["a=b,c", "invalid selector: 'a=b,c'; can't understand 'c'"],
    ["x=a=b", "invalid field selector: unescaped character in value: 61"],
    ["x=a\\b", "invalid field selector: invalid escape sequence: \\b"],
    ["x=a\\", "invalid field selector: invalid escape sequence: \\"],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseFieldSelector(text), { name: "FieldSelectorParseError", message }, text);
  }
  assert.throws(() => parseFieldSelector("a"), FieldSelectorParseError);
});

test("terms are sorted, operators split at the first occurrence, values unescaped", () => {
  const s = parseFieldSelector("spec.nodeName!=n1,metadata.name==a\\,b,status.phase=Running");
  assert.deepEqual(s.requirements, [
    { field: "metadata.name", op: "==", value: "a,b" },
    { field: "spec.nodeName", op: "!=", value: "n1" },
    { field: "status.phase", op: "=", value: "Running" },
  ]);
  assert.equal(s.toString(), "metadata.name=a\\,b,spec.nodeName!=n1,status.phase=Running");
  // "a!==b" splits at "!=" and leaves "=b", an unescaped "=".
  assert.throws(() => parseFieldSelector("a!==b"), /unescaped character in value: 61/);
  assert.deepEqual(parseFieldSelector("a==").requirements, [{ field: "a", op: "==", value: "" }]);
});

test("matching treats a missing field as the empty string", () => {
  const pod = getter({ "metadata.name": "p1", "spec.nodeName": "n1" });
  const cases: Array<[string, boolean]> = [
    ["", true],
    ["metadata.name=p1", true],
    ["metadata.name==p1", true],
    ["metadata.name=p2", false],
    ["metadata.name!=p2", true],
    ["metadata.name!=p1", false],
    ["metadata.name=p1,spec.nodeName=n1", true],
    ["metadata.name=p1,spec.nodeName=n2", false],
    ["status.phase=", true],
    ["status.phase!=Running", true],
    ["status.phase=Running", false],
  ];
  for (const [text, want] of cases) assert.equal(parseFieldSelector(text).matches(pod), want, text);
});

test("escapes round-trip and fieldSelectorFromSet sorts by field", () => {
  for (const v of ["", "plain", "a,b", "a=b", "a\\b", "\\,=", "ü=ß"]) {
    assert.equal(unescapeFieldValue(escapeFieldValue(v)), v);
    const s = fieldSelectorFromSet({ f: v });
    assert.deepEqual(parseFieldSelector(s.toString()).requirements, [{ field: "f", op: "=", value: v }]);
  }
  const s = fieldSelectorFromSet({ b: "2", a: "1" });
  assert.equal(s.toString(), "a=1,b=2");
  assert.equal(s.matches(getter({ a: "1", b: "2" })), true);
  assert.equal(fieldSelectorFromSet({}).empty, true);
  assert.equal(parseFieldSelector("").empty, true);
});

test("requiresExactMatch reports a pinned field value", () => {
  const s = parseFieldSelector("metadata.name=a,spec.nodeName==n,status.phase!=Failed");
  assert.equal(s.requiresExactMatch("metadata.name"), "a");
  assert.equal(s.requiresExactMatch("spec.nodeName"), "n");
  assert.equal(s.requiresExactMatch("status.phase"), undefined);
  assert.equal(s.requiresExactMatch("other"), undefined);
});
