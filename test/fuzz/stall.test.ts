// The fuzz run's stall check: robust to a machine busy for a moment, and still able to fail.
import assert from "node:assert/strict";
import { test } from "node:test";
import { confirmStall } from "./fuzz.js";

const bound = () => 1_000;

test("a request slow every time it is sent is a stall", async () => {
  let replays = 0;
  const times = await confirmStall(
    4_000,
    async () => {
      replays++;
      return 3_000;
    },
    bound,
  );
  assert.deepEqual(times, [4_000, 3_000, 3_000]);
  assert.equal(replays, 2);
});

test("a request slow once, fast when sent again alone, is not a stall", async () => {
  const slowThenFast = [1_500, 20];
  const times = await confirmStall(5_000, async () => slowThenFast.shift()!, bound);
  assert.equal(times, undefined);
  assert.equal(slowThenFast.length, 0);
});

test("a request within the bound is not sent again", async () => {
  const times = await confirmStall(900, async () => assert.fail("not replayed"), bound);
  assert.equal(times, undefined);
});
