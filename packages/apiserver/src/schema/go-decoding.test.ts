// What Go's decoder refuses before kube's validation runs: resource.ParseQuantity's errors and
// encoding/base64's byte offsets; every expectation is what Go 1.19 with apimachinery 1.26
// answered for the same input.
import assert from "node:assert/strict";
import { test } from "node:test";
import { base64Error, quantityError } from "./go-types.js";

const FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX = "unable to parse quantity's suffix";

test("quantities: kube's forms parse; others get ParseQuantity's error", () => {
  // Go takes the digitless "-", "." and "Ki" as zero.
  const ok = [
    "1",
    "0",
    "1.5",
    ".5",
    "5.",
    "+1",
    "-1",
    "100m",
    "1Ki",
    "2Gi",
    "1e3",
    "1E-2",
    "500u",
    "3n",
    "1.5E",
  ];
  for (const q of [...ok, "-", ".", "Ki"]) assert.equal(quantityError(q), undefined, q);
  for (const q of ["", "Bad Value!", "1.5.5", "1Z"]) assert.equal(quantityError(q), FORMAT, q);
  for (const q of ["1mm", "1Kim"]) assert.equal(quantityError(q), SUFFIX, q);
});

test("base64: Go's StdEncoding.Decode offsets, newlines skipped", () => {
  for (const ok of ["", "YQ==", "YWI=", "YWJj", "YW\nJj", "YWJj\r\n", "YWJ="]) {
    assert.equal(base64Error(ok), undefined, JSON.stringify(ok));
  }
  const offsets: [string, number][] = [
    ["Bad Value!", 3],
    ["YQ=", 3],
    ["Y", 0],
    ["YQ", 0],
    ["!!!!", 0],
    ["YQ==YQ==", 4],
    ["Y===", 1],
  ];
  for (const [s, at] of offsets) assert.equal(base64Error(s), at, s);
});
