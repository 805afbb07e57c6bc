import assert from "node:assert/strict";
import { test } from "node:test";
import { expectNoOverlap, OverlapError } from "./index.js";

test("expectNoOverlap passes periods that follow each other and names the first pair that overlaps", () => {
  const ok = [
    { key: "lease", holder: "a", start: 0, end: 10 },
    { key: "lease", holder: "b", start: 10, end: 20 },
    { key: "obj-1", holder: "a", start: 5, end: 7 },
    { key: "obj-2", holder: "b", start: 5 },
  ];
  assert.equal(expectNoOverlap(ok), 3);
  assert.throws(
    () => expectNoOverlap([...ok, { key: "lease", holder: "c", start: 19, end: 25 }]),
    (err: unknown) => {
      assert.ok(err instanceof OverlapError);
      assert.equal(err.first.holder, "b");
      assert.equal(err.second.holder, "c");
      assert.match(err.message, /b and c both ran lease/);
      return true;
    },
  );
  assert.throws(
    () =>
      expectNoOverlap([
        { key: "k", holder: "a", start: 0 },
        { key: "k", holder: "b", start: 100, end: 101 },
      ]),
    /still running/,
  );
});
