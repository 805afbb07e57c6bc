// The Runnable scope: a user's runnable starts inside it (so a Channel.send without a signal
// follows the runnable's), the library's own runnables outside it, so that no AsyncLocalStorage
// (and, on Node 20, no process-wide promise hook) is paid for unless a user's runnable runs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { currentRunnableSignal, isUnscopedRunnable, markUnscoped, startRunnable } from "./runnable-scope.js";

test("a user's runnable sees its signal as the current one; a marked one starts outside the scope", async () => {
  const signal = new AbortController().signal;
  const seen: (AbortSignal | undefined)[] = [];
  const user = {
    async start() {
      await Promise.resolve();
      seen.push(currentRunnableSignal());
    },
  };
  const own = markUnscoped({
    async start() {
      await Promise.resolve();
      seen.push(currentRunnableSignal());
    },
  });
  await startRunnable(user, signal);
  await startRunnable(own, signal);
  assert.equal(seen[0], signal, "the user's runnable, after an await too");
  assert.equal(seen[1], undefined, "the library's own");
  assert.equal(isUnscopedRunnable(own), true);
  assert.equal(isUnscopedRunnable(user), false);
  assert.deepEqual(Object.keys(own), ["start"], "the mark is not an enumerable field");
});
