import assert from "node:assert/strict";
import { test } from "node:test";
import { StatusError } from "../rest/index.js";
import { exponentialBackoff, withBatchBackoff } from "./backoff.js";
import { WatcherError, type WatcherEvent } from "./watcher.js";

test("after a watcher error, the backoff waits at least the server's Retry-After, read from the cause", async () => {
  const throttled = new StatusError({
    apiVersion: "v1",
    kind: "Status",
    status: "Failure",
    code: 429,
    reason: "TooManyRequests",
    message: "slow down",
    details: { retryAfterSeconds: 1 },
  });
  async function* batches(): AsyncGenerator<WatcherEvent[]> {
    yield [{ type: "error", error: new WatcherError("ListFailed", "list failed", throttled) }];
    yield [{ type: "init" }];
  }
  const times: number[] = [];
  for await (const _ of withBatchBackoff(
    batches(),
    exponentialBackoff({ initialMs: 1, maxMs: 1, jitter: 0 }),
  )) {
    times.push(performance.now());
  }
  assert.equal(times.length, 2);
  assert.ok(times[1] - times[0] >= 950, `waited ${Math.round(times[1] - times[0])} ms`);
});
