import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWarningHeader } from "./warnings.js";

test("parses the API server's warnings: escapes, commas inside text, dates, repeated headers", () => {
  assert.deepEqual(parseWarningHeader('299 - "unknown field \\"spec.junk\\""'), [
    { code: 299, agent: "-", text: 'unknown field "spec.junk"' },
  ]);
  assert.deepEqual(
    parseWarningHeader([
      '299 - "a, b", 299 kube-apiserver "c" "Sat, 21 Nov 2026 14:26:22 GMT"',
      '299 - "policy/v1beta1 PodSecurityPolicy is deprecated"',
    ]),
    [
      { code: 299, agent: "-", text: "a, b" },
      { code: 299, agent: "kube-apiserver", text: "c" },
      { code: 299, agent: "-", text: "policy/v1beta1 PodSecurityPolicy is deprecated" },
    ],
  );
});

test("malformed warnings are skipped, not thrown", () => {
  assert.deepEqual(parseWarningHeader(undefined), []);
  assert.deepEqual(parseWarningHeader("garbage"), []);
  assert.deepEqual(parseWarningHeader('abc - "x"'), []);
});
