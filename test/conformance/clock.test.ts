// One contract per Clock interface, run against the real clock and the fake one tests drive by
// hand: a test that passes on the fake clock then says something about the real one.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type Clock as LeaseClock, realClock as realLeaseClock } from "controller-runtime/leaderelection";
import {
  type Clock as QueueClock,
  newFakeClock,
  realClock as realQueueClock,
} from "controller-runtime/workqueue";
import { FakeClock } from "../support/leader-election.js";

/** A clock and a way to let `ms` of its time pass. */
interface Driven<C> {
  clock: C;
  pass(ms: number): Promise<void>;
}

// Real time: delays are long against the checks' margins, so a loaded machine cannot reorder them.
const realTime = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function queueClockContract(name: string, make: () => Driven<QueueClock>): void {
  describe(`workqueue Clock: ${name}`, () => {
    test("now() never goes back and moves with the time that passes", async () => {
      const { clock, pass } = make();
      const t0 = clock.now();
      await pass(40);
      const t1 = clock.now();
      assert.ok(t1 - t0 >= 39, `${t1 - t0}`); // timers may round down by a millisecond
    });

    test("a timer fires once, not before its delay; timers fire in deadline order", async () => {
      const { clock, pass } = make();
      const fired: string[] = [];
      clock.setTimer(() => fired.push("late"), 600);
      clock.setTimer(() => fired.push("early"), 300);
      await pass(20);
      assert.deepEqual(fired, []);
      await pass(900);
      assert.deepEqual(fired, ["early", "late"]);
      await pass(100);
      assert.deepEqual(fired, ["early", "late"], "each fires once");
    });

    test("a cleared timer never fires; clearing a fired or unknown handle is harmless", async () => {
      const { clock, pass } = make();
      let fired = 0;
      const handle = clock.setTimer(() => fired++, 20);
      clock.clearTimer(handle);
      const done = clock.setTimer(() => fired++, 10);
      await pass(50);
      assert.equal(fired, 1);
      clock.clearTimer(done);
      clock.clearTimer(undefined);
    });
  });
}

function leaseClockContract(name: string, make: () => Driven<LeaseClock>): void {
  describe(`leader-election Clock: ${name}`, () => {
    test("now() is monotonic and moves with time; wallNow() is a date", async () => {
      const { clock, pass } = make();
      const t0 = clock.now();
      await pass(40);
      assert.ok(clock.now() - t0 >= 39);
      assert.ok(clock.wallNow() instanceof Date && !Number.isNaN(clock.wallNow().getTime()));
    });

    test("setTimeout fires once after its delay; cancel() stops it", async () => {
      const { clock, pass } = make();
      const fired: string[] = [];
      clock.setTimeout(() => fired.push("kept"), 300);
      const cancelled = clock.setTimeout(() => fired.push("cancelled"), 300);
      cancelled.cancel();
      await pass(20);
      assert.deepEqual(fired, []);
      await pass(600);
      assert.deepEqual(fired, ["kept"]);
      cancelled.cancel();
    });
  });
}

queueClockContract("realClock", () => ({ clock: realQueueClock(), pass: realTime }));
queueClockContract("newFakeClock", () => {
  const clock = newFakeClock();
  return { clock, pass: async (ms) => clock.advance(ms) };
});
leaseClockContract("realClock", () => ({ clock: realLeaseClock(), pass: realTime }));
leaseClockContract("FakeClock (test support)", () => {
  const clock = new FakeClock();
  return { clock, pass: (ms) => clock.advance(ms) };
});
