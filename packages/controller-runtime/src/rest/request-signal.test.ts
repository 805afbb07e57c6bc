// A caller's signal shared by many requests holds one abort listener, and aborts them all.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { requestSignal } from "./request-signal.js";

test("requests sharing a caller's signal add one listener to it, and all abort with it", () => {
  const caller = new AbortController();
  const requests = Array.from({ length: 50 }, () => requestSignal(caller.signal));
  assert.equal(getEventListeners(caller.signal, "abort").length, 1);
  const done = requests.slice(0, 10);
  for (const r of done) r.release();
  caller.abort(new Error("stop"));
  for (const r of requests.slice(10)) {
    assert.ok(r.signal.aborted);
    assert.equal((r.signal.reason as Error).message, "stop");
  }
  for (const r of done) assert.equal(r.signal.aborted, false, "a finished request is left alone");
  const late = requestSignal(caller.signal);
  assert.ok(late.signal.aborted, "a request on an aborted signal starts aborted");
});
