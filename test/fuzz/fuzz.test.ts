// A short fuzz run in every `npm test` (`npm run fuzz` runs it at length): a fixed seed, so a
// failure here replays. The servers run in a child process of their own (a crash must be seen).
import assert from "node:assert/strict";
import { test } from "node:test";
import { needs } from "../support/environment.js";
import { failuresOf, runFuzz, summaryOf } from "./fuzz.js";

test(
  "hostile requests and streams: no crash, stall, canary change or answer kube would not give",
  needs("server-internals"),
  async () => {
    const report = await runFuzz({
      seed: 20261125,
      apiRequests: 300,
      serverRequests: 150,
      streams: 40,
      batch: 100,
    });
    console.log(summaryOf(report));
    assert.deepEqual(failuresOf(report), []);
    assert.equal(report.requests.api, 300);
    assert.equal(report.requests.streams, 40);
  },
);
