// Quantities print as Go's resource.Quantity.String() prints them: quota messages and statuses
// quote them, and a client compares them as text.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  subtractQuantities,
} from "./quantity.js";

const canonical = (text: string) => formatQuantity(parseQuantity(text)!);

test("canonical text: the largest SI suffix that keeps an integer, binary suffixes kept when exact", () => {
  const cases: [string, string][] = [
    ["0", "0"],
    ["0.5", "500m"],
    ["1000", "1k"],
    ["1500", "1500"],
    ["1.5k", "1500"],
    ["1536Mi", "1536Mi"],
    ["1.5Gi", "1536Mi"],
    ["1024", "1024"],
    ["1Ki", "1Ki"],
    ["0.5Ki", "512"],
    ["1e3", "1e3"],
    ["10e3", "10e3"],
    ["0.1n", "1n"],
    ["-1500m", "-1500m"],
    ["500Mi", "500Mi"],
    ["2", "2"],
  ];
  for (const [input, want] of cases) assert.equal(canonical(input), want, input);
  for (const bad of ["", "abc", "1.2.3", "5XYZ", "1Mii"]) assert.equal(parseQuantity(bad), undefined, bad);
  // Go reads a bare suffix as zero.
  assert.equal(canonical("Mi"), "0");
});

test("sums keep the first operand's format, or the second's when the first is zero", () => {
  const sum = (a: string, b: string) => formatQuantity(addQuantities(parseQuantity(a)!, parseQuantity(b)!));
  assert.equal(sum("0", "512Mi"), "512Mi");
  assert.equal(sum("100m", "900m"), "1");
  assert.equal(sum("1Gi", "512Mi"), "1536Mi");
  assert.equal(sum("1Gi", "0.5"), "1073741824500m");
  assert.equal(formatQuantity(subtractQuantities(parseQuantity("1")!, parseQuantity("250m")!)), "750m");
  assert.equal(compareQuantities(parseQuantity("1Gi")!, parseQuantity("1073741824")!), 0);
  assert.equal(compareQuantities(parseQuantity("1k")!, parseQuantity("1Ki")!), -1);
});

test("exponents to ±2^31 are parsed, compared, added and printed at once, never built out", () => {
  const t0 = performance.now();
  const huge = parseQuantity("1e200000000")!;
  const tiny = parseQuantity("1e-200000000")!;
  const one = parseQuantity("1")!;
  assert.equal(formatQuantity(tiny), "1e-9"); // rounded up to the nano, as Go prints it
  assert.equal(compareQuantities(huge, one), 1);
  assert.equal(compareQuantities(one, huge), -1);
  assert.equal(compareQuantities(parseQuantity("-1e200000000")!, one), -1);
  assert.equal(compareQuantities(parseQuantity("12e200000000")!, parseQuantity("1.2e200000001")!), 0);
  assert.equal(compareQuantities(addQuantities(one, huge), huge), 0); // 1 is below huge's last digit
  assert.equal(compareQuantities(subtractQuantities(one, huge), parseQuantity("-1e200000000")!), 0);
  // Go's exponents are multiples of 3, whatever their size.
  assert.equal(formatQuantity(huge), "100e199999998");
  assert.ok(performance.now() - t0 < 2000, `${performance.now() - t0} ms`);
});
