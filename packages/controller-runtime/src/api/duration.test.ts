import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGoDuration } from "./duration.js";

test("Go durations parse as time.ParseDuration reads them, in milliseconds", () => {
  const cases: [string, number | undefined][] = [
    ["10s", 10_000],
    ["1m30s", 90_000],
    ["250ms", 250],
    ["8m1s", 481_000],
    ["1.5h", 5_400_000],
    [".5s", 500],
    ["-2s", -2000],
    ["+3ms", 3],
    ["1500us", 1.5],
    ["1500µs", 1.5],
    ["1000000ns", 1],
    ["0", 0],
    ["", undefined],
    ["10", undefined],
    ["s", undefined],
    ["10x", undefined],
    ["10s ", undefined],
    ["1d", undefined],
    ["-", undefined],
  ];
  for (const [text, want] of cases) assert.equal(parseGoDuration(text), want, JSON.stringify(text));
});
