import assert from "node:assert/strict";
import { test } from "node:test";
import { newFakeClock } from "./fake-clock.js";
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  maxOfRateLimiter,
} from "./rate-limiter.js";

test("exponential backoff doubles per failure from the base, per key, until forgotten", () => {
  const r = itemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1000 });
  assert.deepEqual(
    Array.from({ length: 5 }, () => r.when("one")),
    [1, 2, 4, 8, 16],
  );
  assert.equal(r.numRequeues("one"), 5);
  assert.deepEqual([r.when("two"), r.when("two")], [1, 2], "keys back off independently");
  assert.equal(r.numRequeues("two"), 2);
  r.forget("one");
  assert.equal(r.numRequeues("one"), 0);
  assert.equal(r.when("one"), 1, "a forgotten key starts over");
});

test("exponential backoff is capped, also after very many failures", () => {
  const r = itemExponentialFailureRateLimiter();
  const delays = Array.from({ length: 2000 }, () => r.when("k"));
  assert.deepEqual(delays.slice(0, 4), [5, 10, 20, 40], "5 ms base by default");
  assert.equal(delays[17], 655_360);
  assert.equal(delays[18], 1_000_000, "capped at 1000 s by default");
  assert.equal(delays[1999], 1_000_000);
  const zero = itemExponentialFailureRateLimiter({ baseDelayMs: 0 });
  for (let i = 0; i < 1100; i++) zero.when("k");
  assert.equal(zero.when("k"), 0, "a zero base never becomes NaN");
});

test("token bucket: the burst waits nothing, then calls are spaced 1/qps apart", () => {
  const clock = newFakeClock();
  const r = bucketRateLimiter({ qps: 10, burst: 100, clock });
  for (let i = 0; i < 100; i++) assert.equal(r.when(`k${i}`), 0);
  assert.deepEqual([r.when("a"), r.when("b"), r.when("c")], [100, 200, 300]);
  clock.advance(1000);
  // 10 tokens came back, 3 of which paid for the reservations above.
  for (let i = 0; i < 7; i++) assert.equal(r.when(`m${i}`), 0);
  assert.equal(r.when("x"), 100);
  assert.equal(r.numRequeues("a"), 0, "the bucket tracks no keys");
  clock.advance(1e9);
  for (let i = 0; i < 100; i++) assert.equal(r.when(`n${i}`), 0, "refills up to the burst, not beyond");
  assert.equal(r.when("y"), 100);
});

test("maxOf takes the longest delay and the most requeues, and forgets in all", () => {
  const clock = newFakeClock();
  const r = maxOfRateLimiter(
    itemExponentialFailureRateLimiter({ baseDelayMs: 10, maxDelayMs: 1000 }),
    bucketRateLimiter({ qps: 10, burst: 2, clock }),
  );
  assert.deepEqual([r.when("a"), r.when("a"), r.when("a")], [10, 20, 100]);
  assert.equal(r.numRequeues("a"), 3);
  r.forget("a");
  assert.equal(r.numRequeues("a"), 0);
  assert.throws(() => maxOfRateLimiter(), RangeError);
});

test("the default controller rate limiter: 5 ms doubling to 1000 s, and 10 qps after a burst of 100", () => {
  const clock = newFakeClock();
  const r = defaultControllerRateLimiter({ clock });
  assert.deepEqual([r.when("a"), r.when("a"), r.when("a")], [5, 10, 20]);
  for (let i = 0; i < 97; i++) r.when(`k${i}`);
  assert.equal(r.when("b"), 100, "the 101st call in the same instant waits for the bucket");
  for (let i = 0; i < 30; i++) r.when("a");
  assert.equal(r.when("a"), 1_000_000);
  r.forget("a");
  assert.equal(r.numRequeues("a"), 0);
});

test("rate limiter options are checked", () => {
  assert.throws(() => bucketRateLimiter({ qps: 0 }), /qps must be > 0/);
  assert.throws(() => itemExponentialFailureRateLimiter({ baseDelayMs: -1 }), /baseDelayMs/);
});
