import assert from "node:assert/strict";
import { test } from "node:test";
import { realClock } from "./clock.js";
import { newFakeClock } from "./fake-clock.js";

test("the real clock fires timers through setTimeout and cancels them", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const clock = realClock();
  const fired: string[] = [];
  clock.setTimer(() => fired.push("a"), 5);
  const b = clock.setTimer(() => fired.push("b"), 5);
  clock.clearTimer(b);
  clock.clearTimer(undefined);
  t.mock.timers.tick(4);
  assert.deepEqual(fired, []);
  t.mock.timers.tick(1);
  assert.deepEqual(fired, ["a"]);
});

test("the real clock does not fire a delay beyond setTimeout's 32-bit limit early", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const clock = realClock();
  let fired = false;
  // setTimeout alone would fire this after 1 ms.
  clock.setTimer(() => {
    fired = true;
  }, 3e9);
  t.mock.timers.tick(1000);
  assert.equal(fired, false);
});

test("the fake clock fires due timers in deadline order, each at its own time", () => {
  const clock = newFakeClock(100);
  const seen: [string, number][] = [];
  clock.setTimer(() => seen.push(["b", clock.now()]), 20);
  clock.setTimer(() => seen.push(["a", clock.now()]), 10);
  const c = clock.setTimer(() => seen.push(["c", clock.now()]), 15);
  clock.clearTimer(c);
  assert.equal(clock.pendingTimers(), 2);
  assert.equal(clock.nextDeadline(), 110);
  clock.advance(50);
  assert.deepEqual(seen, [
    ["a", 110],
    ["b", 120],
  ]);
  assert.equal(clock.now(), 150);
  assert.equal(clock.nextDeadline(), undefined);
});
