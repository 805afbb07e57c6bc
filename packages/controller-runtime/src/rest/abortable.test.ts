import assert from "node:assert/strict";
import { test } from "node:test";
import { abortable, sleep, type Timers } from "./abortable.js";

/** Timers that fire only when the test says so. */
function manualTimers() {
  const pending: { at: number; fn: () => void; cancelled: boolean }[] = [];
  const timers: Timers = {
    setTimeout(fn, ms) {
      const t = { at: ms, fn, cancelled: false };
      pending.push(t);
      return {
        cancel: () => {
          t.cancelled = true;
        },
      };
    },
  };
  const fire = () => {
    for (const t of pending.splice(0)) if (!t.cancelled) t.fn();
  };
  return { timers, pending, fire };
}

test("sleep waits on the timers it is given and ends at once, without rejecting, on abort", async () => {
  const { timers, pending, fire } = manualTimers();
  let done = false;
  const slept = sleep(5000, undefined, timers).then(() => {
    done = true;
  });
  assert.equal(pending[0].at, 5000);
  await Promise.resolve();
  assert.equal(done, false);
  fire();
  await slept;
  assert.equal(done, true);

  const stop = new AbortController();
  const aborted = sleep(5000, stop.signal, timers);
  stop.abort(new Error("stop"));
  await aborted; // resolves
  assert.equal(pending[0].cancelled, true, "the timer is cancelled");
  await sleep(5000, stop.signal, timers); // already aborted: at once
  assert.equal(pending.length, 1, "no timer for an aborted signal");
});

test("sleep on the event loop resolves after about the delay", async () => {
  const start = performance.now();
  await sleep(20);
  assert.ok(performance.now() - start >= 15);
});

test("abortable ends the caller's wait on abort and leaves the shared promise alone", async () => {
  let resolveShared!: (v: string) => void;
  const shared = new Promise<string>((r) => {
    resolveShared = r;
  });
  const stop = new AbortController();
  const waiting = abortable(shared, stop.signal);
  stop.abort(new Error("gave up"));
  await assert.rejects(waiting, /gave up/);
  resolveShared("value");
  assert.equal(await abortable(shared, new AbortController().signal), "value");
});
