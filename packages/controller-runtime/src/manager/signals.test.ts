import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { setupSignalHandler } from "./signals.js";

// SIGUSR2 stands in for SIGINT/SIGTERM so the test runner's own handlers are not involved.
/** Sends the signal to this process and waits until its listeners ran. */
async function raise(): Promise<void> {
  const delivered = once(process, "SIGUSR2");
  // Signal handles do not keep the event loop alive; this timer does until the signal arrives.
  const keepAlive = setTimeout(() => {}, 5_000);
  process.kill(process.pid, "SIGUSR2");
  await delivered;
  clearTimeout(keepAlive);
}

test("the first signal aborts; repeats within the window are the same signal; a later one exits", async () => {
  let exits = 0;
  const signal = setupSignalHandler({
    signals: ["SIGUSR2"],
    onSecondSignal: () => exits++,
    repeatWindowMs: 200,
  });
  assert.equal(signal.aborted, false);
  await raise();
  assert.equal(signal.aborted, true);
  assert.match(String(signal.reason), /received SIGUSR2/);
  await raise();
  assert.equal(exits, 0, "a relayed copy of the first signal does not force an exit");
  await new Promise((r) => setTimeout(r, 200)); // let the repeat window pass
  await raise();
  assert.equal(exits, 1);
  process.removeAllListeners("SIGUSR2");
});
