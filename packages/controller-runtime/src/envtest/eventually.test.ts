import assert from "node:assert/strict";
import { test } from "node:test";
import { EventuallyTimeoutError, eventually } from "./index.js";

test("eventually resolves with the first truthy value and treats throws as not yet", async () => {
  let calls = 0;
  const value = await eventually("the third call", () => {
    calls++;
    if (calls < 2) throw new Error("not ready");
    return calls === 3 ? { calls } : undefined;
  });
  assert.deepEqual(value, { calls: 3 });
});

test("eventually names what it waited for and the last error when time runs out", async () => {
  await assert.rejects(
    eventually(
      "a miracle",
      () => {
        throw new Error("still broken");
      },
      { timeoutMs: 30, intervalMs: 5 },
    ),
    (err) => err instanceof EventuallyTimeoutError && /a miracle: last error: still broken/.test(err.message),
  );
});
