import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { newFakeClock, type FakeClock } from "./fake-clock.js";
import {
  type GetResult,
  LowPriority,
  newPriorityQueue,
  type PriorityQueue,
  type PriorityQueueOptions,
} from "./index.js";
import { itemExponentialFailureRateLimiter } from "./rate-limiter.js";

function setup(options: PriorityQueueOptions = {}): { q: PriorityQueue; clock: FakeClock } {
  const clock = newFakeClock();
  const q = newPriorityQueue({ clock, ...options });
  return { q, clock };
}

/** Takes every ready key without waiting, marking each done at once. */
function takeAll(q: PriorityQueue): string[] {
  const keys: string[] = [];
  for (let r = q.tryGet(); r !== undefined && !r.shutdown; r = q.tryGet()) {
    keys.push(r.key);
    q.done(r.key);
  }
  return keys;
}

function keyOf(r: GetResult<string> | undefined): string | undefined {
  return r === undefined || r.shutdown ? undefined : r.key;
}

/** Whether a promise has settled, after letting pending microtasks run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise<void>((resolve) => setImmediate(resolve));
  return done;
}

test("keys come out in the order they were added", () => {
  const { q } = setup();
  for (const k of ["a", "b", "c"]) q.add(k);
  assert.equal(q.len(), 3);
  assert.deepEqual(takeAll(q), ["a", "b", "c"]);
  assert.equal(q.len(), 0);
  assert.equal(q.tryGet(), undefined);
});

test("priorities whose keys all went out (some kept for reuse, more dropped) still order what comes next", () => {
  const { q } = setup();
  // Twelve priorities each emptied once: more than are kept for reuse.
  for (let p = 0; p < 12; p++) {
    q.add(`once-${p}`, { priority: p });
    assert.deepEqual(takeAll(q), [`once-${p}`]);
  }
  for (const [k, p] of [
    ["low", 0],
    ["high", 11],
    ["mid", 5],
    ["high2", 11],
    ["new", 20],
  ] as const) {
    q.add(k, { priority: p });
  }
  assert.deepEqual(takeAll(q), ["new", "high", "high2", "mid", "low"]);
});

test("a key added while queued is merged into the queued entry", () => {
  const { q } = setup();
  q.add("a");
  q.add("b");
  q.add("a");
  assert.equal(q.len(), 2);
  assert.deepEqual(takeAll(q), ["a", "b"]);
});

test("a key added while processing is not handed out again until done, then once", () => {
  const { q } = setup();
  q.add("a");
  const first = q.tryGet();
  assert.equal(keyOf(first), "a");
  q.add("a");
  q.add("a");
  q.add("b");
  assert.equal(q.len(), 2, "b ready, a waiting for done");
  assert.equal(keyOf(q.tryGet()), "b", "a is processing, so b comes first");
  assert.equal(q.tryGet(), undefined, "a must not be handed out while processing");
  q.done("a");
  assert.equal(keyOf(q.tryGet()), "a", "the change made during processing is not lost");
  assert.equal(q.tryGet(), undefined, "and the repeated adds were merged into one");
});

test("a key processed without being re-added is not queued again by done", () => {
  const { q } = setup();
  q.add("a");
  assert.equal(keyOf(q.tryGet()), "a");
  q.done("a");
  q.done("a");
  q.done("never-added");
  assert.equal(q.len(), 0);
  assert.equal(q.tryGet(), undefined);
});

test("concurrent getters are served in call order and never get the same key", async () => {
  const { q } = setup();
  const getters = [q.get(), q.get(), q.get()];
  q.add("a");
  q.add("a");
  q.add("b");
  const [ra, rb] = await Promise.all([getters[0]!, getters[1]!]);
  assert.equal(keyOf(ra), "a");
  assert.equal(keyOf(rb), "b");
  assert.equal(await settled(getters[2]!), false, "the third getter still waits: a and b are processing");
  q.add("a");
  assert.equal(await settled(getters[2]!), false, "a is still processing");
  q.done("a");
  assert.equal(keyOf(await getters[2]!), "a");
});

test("no key is ever held by two getters under a random storm of adds and dones", () => {
  const { q } = setup();
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const held = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const op = rand(3);
    if (op === 0) q.add(`k${rand(20)}`, { priority: rand(3) - 1 });
    else if (op === 1) {
      const r = q.tryGet();
      if (r !== undefined && !r.shutdown) {
        assert.equal(held.has(r.key), false, `${r.key} handed out twice`);
        held.add(r.key);
      }
    } else if (held.size > 0) {
      const k = [...held][rand(held.size)]!;
      held.delete(k);
      q.done(k);
    }
  }
});

test("get rejects with the signal's reason when aborted, and the next getter takes its place", async () => {
  const { q } = setup();
  const ac = new AbortController();
  const aborted = q.get({ signal: ac.signal });
  const next = q.get();
  ac.abort(new Error("stop"));
  await assert.rejects(aborted, /stop/);
  q.add("a");
  assert.equal(keyOf(await next), "a");
  await assert.rejects(q.get({ signal: AbortSignal.abort(new Error("already")) }), /already/);
});

test("waiters sharing a signal are all rejected by its abort, others keep their place; listeners are not left behind", async () => {
  const { q } = setup();
  const shared = new AbortController();
  const other = new AbortController();
  const listeners = (s: AbortSignal) => getEventListeners(s, "abort").length;
  const a = q.get({ signal: shared.signal });
  const b = q.get({ signal: other.signal });
  const c = q.get({ signal: shared.signal });
  assert.equal(listeners(shared.signal), 1, "one listener per signal, not per waiter");
  shared.abort(new Error("stop"));
  await assert.rejects(a, /stop/);
  await assert.rejects(c, /stop/);
  q.add("x");
  assert.equal(keyOf(await b), "x");
  q.done("x");
  // The signal used last keeps its listener between waits; a new signal takes over and shutdown
  // removes the last one.
  q.add("y");
  assert.equal(keyOf(await q.get({ signal: other.signal })), "y");
  const third = new AbortController();
  const d = q.get({ signal: third.signal });
  assert.equal(listeners(other.signal), 0);
  assert.equal(listeners(third.signal), 1);
  q.shutDown();
  assert.deepEqual(await d, { shutdown: true });
  assert.equal(listeners(third.signal), 0);
});

test("shutDown wakes waiting getters with shutdown, hands out ready keys, then reports shutdown", async () => {
  const { q } = setup();
  const waiting = q.get();
  q.shutDown();
  assert.deepEqual(await waiting, { shutdown: true });
  assert.equal(q.shuttingDown(), true);

  const { q: q2 } = setup();
  q2.add("a");
  q2.add("b");
  q2.shutDown();
  q2.add("c");
  assert.equal(keyOf(await q2.get()), "a", "keys ready before shutdown are still handed out");
  assert.equal(keyOf(await q2.get()), "b");
  assert.deepEqual(await q2.get(), { shutdown: true }, "keys added after shutdown are ignored");
});

test("shutDown drops delayed keys and clears the timer", () => {
  const { q, clock } = setup();
  q.addAfter("a", 1000);
  assert.equal(clock.pendingTimers(), 1);
  q.shutDown();
  assert.equal(clock.pendingTimers(), 0);
  clock.advance(2000);
  assert.deepEqual(q.tryGet(), { shutdown: true });
});

test("shutDownWithDrain resolves once every key handed out is done", async () => {
  const { q } = setup();
  q.add("a");
  q.add("b");
  const a = keyOf(await q.get())!;
  const b = keyOf(await q.get())!;
  const drained = q.shutDownWithDrain();
  assert.equal(q.shuttingDown(), true);
  q.done(a);
  assert.equal(await settled(drained), false, "b is still processing");
  q.done(b);
  assert.equal(await settled(drained), true);
  assert.equal(await settled(setup().q.shutDownWithDrain()), true, "an idle queue drains at once");
});

test("shutDown during a drain stops waiting for it", async () => {
  const { q } = setup();
  q.add("a");
  await q.get();
  const drained = q.shutDownWithDrain();
  assert.equal(await settled(drained), false);
  q.shutDown();
  assert.equal(await settled(drained), true);
});

test("a drain ends when nothing is processing, even if a key re-added meanwhile is ready again", async () => {
  const { q } = setup();
  q.add("a");
  await q.get();
  q.add("a");
  const drained = q.shutDownWithDrain();
  assert.equal(await settled(drained), false);
  q.done("a");
  assert.equal(await settled(drained), true, "no worker is waiting for keys after shutdown");
  assert.equal(keyOf(q.tryGet()), "a", "the change made during processing still survives the shutdown");
});

test("addAfter uses one timer and hands keys out in deadline order", () => {
  const { q, clock } = setup();
  q.addAfter("c", 300);
  q.addAfter("a", 100);
  q.addAfter("b", 200);
  q.addAfter("b2", 200);
  assert.equal(clock.pendingTimers(), 1, "one timer for all delayed keys");
  assert.equal(clock.nextDeadline(), 100, "set for the earliest deadline");
  assert.equal(q.len(), 0, "delayed keys are not counted");
  clock.advance(99);
  assert.equal(q.tryGet(), undefined);
  clock.advance(1);
  assert.deepEqual(takeAll(q), ["a"]);
  clock.advance(100);
  assert.deepEqual(takeAll(q), ["b", "b2"], "equal deadlines keep their add order");
  clock.advance(100);
  assert.deepEqual(takeAll(q), ["c"]);
  assert.equal(clock.pendingTimers(), 0, "no timer once nothing is delayed");
});

test("a waiting getter receives a delayed key when its time comes", async () => {
  const { q, clock } = setup();
  const waiting = q.get();
  q.addAfter("a", 50);
  assert.equal(await settled(waiting), false);
  clock.advance(50);
  assert.equal(keyOf(await waiting), "a");
});

test("re-adding a delayed key with an earlier deadline wins, a later one does not", () => {
  const { q, clock } = setup();
  q.addAfter("a", 1000);
  q.addAfter("a", 100);
  assert.equal(clock.nextDeadline(), 100, "the timer moved earlier");
  q.addAfter("a", 500);
  clock.advance(100);
  assert.deepEqual(takeAll(q), ["a"]);
  clock.advance(1000);
  assert.deepEqual(takeAll(q), [], "the key was merged, not queued three times");
});

test("adding a delayed key without delay makes it ready now; a ready key stays ready when added with a delay", () => {
  const { q, clock } = setup();
  q.addAfter("a", 1000);
  q.add("a");
  assert.deepEqual(takeAll(q), ["a"]);
  assert.equal(clock.pendingTimers(), 0);
  q.add("b");
  q.addAfter("b", 1000);
  assert.deepEqual(takeAll(q), ["b"]);
  clock.advance(1000);
  assert.deepEqual(takeAll(q), []);
});

test("a delayed key that falls due while processing waits for done", () => {
  const { q, clock } = setup();
  q.add("a");
  assert.equal(keyOf(q.tryGet()), "a");
  q.addAfter("a", 10);
  clock.advance(10);
  assert.equal(q.tryGet(), undefined);
  assert.equal(q.len(), 1);
  q.done("a");
  assert.deepEqual(takeAll(q), ["a"]);
});

test("a non-positive delay means now", () => {
  const { q, clock } = setup();
  q.addAfter("a", 0);
  q.addAfter("b", -5);
  assert.deepEqual(takeAll(q), ["a", "b"]);
  assert.equal(clock.pendingTimers(), 0);
  assert.throws(() => q.add("c", { after: Number.NaN }), RangeError);
  assert.throws(() => q.add("c", { priority: Number.POSITIVE_INFINITY }), RangeError);
});

test("higher priorities come first, FIFO within a priority", () => {
  const { q } = setup();
  q.add("low1", { priority: LowPriority });
  q.add("mid1");
  q.add("high1", { priority: 10 });
  q.add("low2", { priority: LowPriority });
  q.add("mid2");
  q.add("high2", { priority: 10 });
  assert.deepEqual(takeAll(q), ["high1", "high2", "mid1", "mid2", "low1", "low2"]);
});

test("get reports the priority a key was handed out with", () => {
  const { q } = setup();
  q.add("a", { priority: 3 });
  assert.deepEqual(q.tryGet(), { shutdown: false, key: "a", priority: 3 });
});

test("duplicates merge to the highest priority", () => {
  const { q } = setup();
  q.add("a", { priority: LowPriority });
  q.add("b");
  q.add("a", { priority: 5 });
  q.add("a", { priority: 1 });
  assert.deepEqual(q.tryGet(), { shutdown: false, key: "a", priority: 5 });
  assert.equal(keyOf(q.tryGet()), "b");
});

test("a raised key joins the tail of its new priority", () => {
  const { q } = setup();
  q.add("x", { priority: LowPriority });
  q.add("a");
  q.add("b");
  q.add("x");
  assert.deepEqual(takeAll(q), ["a", "b", "x"]);
});

test("duplicates merge to the highest priority and the shortest delay together", () => {
  const { q, clock } = setup();
  q.add("a", { priority: LowPriority, after: 1000 });
  q.add("a", { priority: 2, after: 5000 });
  q.add("b", { after: 100 });
  clock.advance(100);
  assert.deepEqual(takeAll(q), ["b"]);
  clock.advance(900);
  assert.deepEqual(q.tryGet(), { shutdown: false, key: "a", priority: 2 });
});

test("a ready delayed key is ordered by priority with the others", () => {
  const { q, clock } = setup();
  q.add("low", { priority: LowPriority });
  q.add("high", { priority: 1, after: 10 });
  clock.advance(10);
  assert.deepEqual(takeAll(q), ["high", "low"]);
});

test("a parked key keeps a raised priority", () => {
  const { q } = setup();
  q.add("a");
  q.tryGet();
  q.add("a", { priority: LowPriority });
  q.add("a", { priority: 7 });
  q.add("b", { priority: 1 });
  q.done("a");
  assert.deepEqual(q.tryGet(), { shutdown: false, key: "a", priority: 7 });
});

test("a queue emptied at every key (as when workers keep up) still orders and ages what comes next", () => {
  const { q, clock } = setup({ agingThreshold: 1000 });
  // One key at a time: the queue empties at each hand-out, at one priority then another.
  for (let i = 0; i < 3; i++) {
    q.add(`a${i}`);
    assert.deepEqual(takeAll(q), [`a${i}`]);
  }
  q.add("low0", { priority: LowPriority });
  assert.deepEqual(takeAll(q), ["low0"]);
  // The priority emptied last is not the one that comes back first.
  q.add("h1");
  q.add("l1", { priority: LowPriority });
  q.add("h2");
  assert.deepEqual(takeAll(q), ["h1", "h2", "l1"]);
  // Aging across an emptied queue: the low key's wait counts from its add.
  q.add("l2", { priority: LowPriority });
  clock.advance(1000);
  for (const k of ["h3", "h4", "h5"]) q.add(k);
  assert.deepEqual(takeAll(q), ["l2", "h3", "h4", "h5"]);
  // And the other way round: the low priority emptied last, then a high key and a low key.
  q.add("l3", { priority: LowPriority });
  assert.deepEqual(takeAll(q), ["l3"]);
  q.add("l4", { priority: LowPriority });
  q.add("h6");
  clock.advance(999);
  q.add("h7");
  assert.deepEqual(takeAll(q), ["h6", "h7", "l4"]);
  assert.equal(q.len(), 0);
  assert.equal(q.tryGet(), undefined);
});

test("aging: keys waiting past the threshold take every other hand-out, oldest first", () => {
  const { q, clock } = setup({ agingThreshold: 1000 });
  for (const k of ["l1", "l2", "l3"]) q.add(k, { priority: LowPriority });
  clock.advance(1000);
  for (const k of ["h1", "h2", "h3", "h4"]) q.add(k);
  assert.deepEqual(takeAll(q), ["l1", "h1", "l2", "h2", "l3", "h3", "h4"]);
});

test("aging: each key's wait counts from when it became ready at its priority", () => {
  const { q, clock } = setup({ agingThreshold: 600 });
  q.add("low", { priority: LowPriority });
  clock.advance(500);
  q.add("mid", { priority: -50 });
  clock.advance(500);
  for (const k of ["h1", "h2", "h3", "h4"]) q.add(k);
  const next = () => {
    const k = keyOf(q.tryGet())!;
    q.done(k);
    return k;
  };
  assert.deepEqual([next(), next(), next()], ["low", "h1", "h2"], "mid has waited only 500 ms");
  clock.advance(100);
  assert.deepEqual([next(), next(), next()], ["mid", "h3", "h4"]);
});

test("aging: raising a key's priority restarts its wait", () => {
  const { q, clock } = setup({ agingThreshold: 1000 });
  q.add("x", { priority: LowPriority });
  clock.advance(900);
  q.add("x", { priority: -50 });
  clock.advance(900);
  q.add("h1");
  q.add("h2");
  assert.deepEqual(takeAll(q), ["h1", "h2", "x"], "x has waited 900 ms at -50");
});

test("aging: below the threshold priorities are strict", () => {
  const { q, clock } = setup({ agingThreshold: 1000 });
  q.add("low", { priority: LowPriority });
  clock.advance(999);
  q.add("h1");
  q.add("h2");
  assert.deepEqual(takeAll(q), ["h1", "h2", "low"]);
});

test("aging: a low-priority key is served under a steady stream of higher-priority keys", () => {
  const { q, clock } = setup({ agingThreshold: 5000 });
  q.add("low", { priority: LowPriority });
  let served = -1;
  for (let i = 0; i < 100 && served < 0; i++) {
    // Two fresh keys per hand-out: without aging the backlog of high keys never ends.
    q.add(`h${2 * i}`);
    q.add(`h${2 * i + 1}`);
    clock.advance(100);
    const k = keyOf(q.tryGet())!;
    q.done(k);
    if (k === "low") served = i;
  }
  assert.ok(served >= 49 && served <= 51, `served after ~5 s of waiting, at hand-out ${served}`);
});

test("aging bound: under saturation every low-priority key is served within threshold + 2 (n + 1) hand-outs", () => {
  const threshold = 1_000;
  const serviceMs = 10;
  const run = (agingThreshold: number) => {
    const { q, clock } = setup({ agingThreshold });
    const lows = 200;
    // A new leader's replay: the initial list, at low priority, all ready at t = 0.
    for (let i = 0; i < lows; i++) q.add(`low${i}`, { priority: LowPriority });
    const servedAt = new Map<string, number>();
    let fresh = 0;
    // One worker, 10 ms per key, and two high-priority keys arriving per key served: saturated.
    for (let handOut = 0; handOut < 2_000 && servedAt.size < lows; handOut++) {
      q.add(`h${fresh++}`);
      q.add(`h${fresh++}`);
      const k = keyOf(q.tryGet())!;
      clock.advance(serviceMs);
      q.done(k);
      if (k.startsWith("low")) servedAt.set(k, clock.now());
    }
    return servedAt;
  };
  assert.equal(
    run(Number.POSITIVE_INFINITY).size,
    0,
    "without aging no low key is served: the load saturates",
  );
  const servedAt = run(threshold);
  assert.equal(servedAt.size, 200);
  let worst = 0;
  for (let n = 0; n < 200; n++) {
    const waited = servedAt.get(`low${n}`)!;
    const bound = threshold + 2 * (n + 1) * serviceMs;
    assert.ok(waited <= bound, `low${n} waited ${waited} ms, bound ${bound} ms`);
    worst = Math.max(worst, waited / bound);
  }
  assert.ok(worst > 0.9, `the bound is tight (worst ${worst.toFixed(2)} of it), not vacuous`);
});

test("aging: Infinity keeps controller-runtime's strict order", () => {
  const { q, clock } = setup({ agingThreshold: Number.POSITIVE_INFINITY });
  q.add("low", { priority: LowPriority });
  clock.advance(1e9);
  q.add("h1");
  q.add("h2");
  assert.deepEqual(takeAll(q), ["h1", "h2", "low"]);
  assert.throws(() => newPriorityQueue({ agingThreshold: -1 }), RangeError);
});

test("addRateLimited waits the rate limiter's delay; forget and numRequeues reach the limiter", () => {
  const { q, clock } = setup({ rateLimiter: itemExponentialFailureRateLimiter({ baseDelayMs: 5 }) });
  q.addRateLimited("a");
  assert.equal(q.numRequeues("a"), 1);
  assert.equal(clock.nextDeadline(), 5);
  clock.advance(5);
  assert.equal(keyOf(q.tryGet()), "a");
  q.done("a");
  q.addRateLimited("a");
  assert.equal(clock.nextDeadline(), 5 + 10, "the second failure waits twice as long");
  assert.equal(q.numRequeues("a"), 2);
  q.forget("a");
  assert.equal(q.numRequeues("a"), 0);
});

test("rateLimited with after waits the shorter of the two", () => {
  const { q, clock } = setup({ rateLimiter: itemExponentialFailureRateLimiter({ baseDelayMs: 50 }) });
  q.add("a", { rateLimited: true, after: 20 });
  assert.equal(clock.nextDeadline(), 20);
  q.add("b", { rateLimited: true, after: 80 });
  assert.equal(clock.nextDeadline(), 20);
  clock.advance(20);
  assert.deepEqual(takeAll(q), ["a"]);
  assert.equal(clock.nextDeadline(), 50);
});

test("the default rate limiter runs on the queue's clock", () => {
  const { q, clock } = setup();
  for (let i = 0; i < 100; i++) q.addRateLimited(`k${i}`);
  assert.equal(clock.nextDeadline(), 5, "within the burst only the per-key backoff applies");
  q.addRateLimited("k100");
  clock.advance(5);
  assert.equal(takeAll(q).length, 100);
  clock.advance(94);
  assert.equal(q.tryGet(), undefined, "the 101st waits for the bucket: 100 ms at 10 qps");
  clock.advance(1);
  assert.deepEqual(takeAll(q), ["k100"]);
});

test("len counts ready keys and keys waiting for done, not delayed or processing ones", () => {
  const { q } = setup();
  q.add("a");
  q.add("b");
  q.addAfter("c", 100);
  assert.equal(q.len(), 2);
  q.tryGet();
  assert.equal(q.len(), 1, "a is processing");
  q.add("a");
  assert.equal(q.len(), 2, "a waits for done");
});

test("an aborted get rejects with an AbortError by default", async () => {
  const { q } = setup();
  const ac = new AbortController();
  const pending = q.get({ signal: ac.signal });
  ac.abort();
  await assert.rejects(pending, { name: "AbortError" });
});

test("keys freed by a late timer go to earlier getters first", async () => {
  // A clock whose timers never fire: only get() notices that the deadline has passed.
  let now = 0;
  const q = newPriorityQueue({ clock: { now: () => now, setTimer: () => ({}), clearTimer() {} } });
  const first = q.get();
  q.addAfter("a", 10);
  q.addAfter("b", 10);
  now = 10;
  const second = q.get();
  assert.equal(keyOf(await first), "a", "the getter that waited longer is served first");
  assert.equal(keyOf(await second), "b");
});

test("a delayed key keeps a raised priority when it becomes ready", () => {
  const { q, clock } = setup();
  q.addAfter("a", 10);
  q.add("a", { priority: 4, after: 20 });
  q.add("b", { priority: 1 });
  clock.advance(10);
  assert.deepEqual(q.tryGet(), { shutdown: false, key: "a", priority: 4 });
});
