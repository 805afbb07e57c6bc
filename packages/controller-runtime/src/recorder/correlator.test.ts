// The correlator's rules on a fake wall clock: pure logic, no server.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Event } from "kubernetes-types/core/v1.js";
import { EventCorrelator } from "./correlator.js";
import { makeEvent } from "./make-event.js";
import { sprintf } from "./sprintf.js";

const T0 = Date.UTC(2026, 10, 21, 14, 0, 0);

function newEvent(nowMs: number, message: string, name = "w1", reason = "Updated"): Event {
  return makeEvent({
    ref: { kind: "Widget", apiVersion: "example.com/v1", name, namespace: "ns", uid: `uid-${name}` },
    type: "Normal",
    reason,
    message,
    component: "widget-controller",
    host: "",
    nowMs,
    seq: 0,
  });
}

/** Correlates, then plays the server: a create echoes the event, a patch applies it. */
function send(c: EventCorrelator, e: Event) {
  const r = c.correlate(e);
  if (!r.skip) c.updateState({ ...r.event, metadata: { ...r.event.metadata, resourceVersion: "1" } });
  return r;
}

test("a new event is created as made: count 1, no patch", () => {
  let now = T0;
  const c = new EventCorrelator({}, () => now);
  const r = send(c, newEvent(now, "m"));
  assert.equal(r.skip, false);
  assert.equal(r.patch, undefined);
  assert.equal(r.event.count, 1);
  assert.equal(r.event.metadata?.name, `w1.${(BigInt(T0) * 1_000_000n).toString(16)}`);
  assert.equal(r.event.firstTimestamp, "2026-11-21T14:00:00Z");
  now += 1;
});

test("repeats of an identical event become patches of the first one's count and lastTimestamp", () => {
  let now = T0;
  const c = new EventCorrelator({}, () => now);
  const first = send(c, newEvent(now, "same"));
  now += 5_000;
  const second = send(c, newEvent(now, "same"));
  assert.equal(second.event.metadata?.name, first.event.metadata?.name);
  assert.deepEqual(second.patch, { count: 2, lastTimestamp: "2026-11-21T14:00:05Z", message: "same" });
  assert.equal(second.event.firstTimestamp, "2026-11-21T14:00:00Z");
  now += 5_000;
  assert.equal(send(c, newEvent(now, "same")).patch?.count, 3);
  // A different message is a different event (until aggregation kicks in).
  const other = send(c, newEvent(now, "other"));
  assert.equal(other.patch, undefined);
});

test("ten similar events within ten minutes are combined into one aggregate event", () => {
  let now = T0;
  const c = new EventCorrelator({}, () => now);
  const results = [];
  for (let i = 0; i < 12; i++) {
    now += 1_000;
    results.push(send(c, newEvent(now, `message ${i}`)));
  }
  for (const r of results.slice(0, 9)) assert.doesNotMatch(r.event.message ?? "", /combined/);
  assert.equal(results[9].event.message, "(combined from similar events): message 9");
  assert.equal(results[9].patch, undefined, "the first aggregate is created");
  assert.equal(results[10].event.message, "(combined from similar events): message 10");
  assert.equal(results[10].event.metadata?.name, results[9].event.metadata?.name);
  assert.equal(results[10].patch?.count, 2, "later ones patch the aggregate");
  // After the window passes, messages count afresh.
  now += 601_000;
  assert.equal(send(c, newEvent(now, "fresh")).event.message, "fresh");
});

test("the spam filter allows a burst of 25 per object, then one per refill period", () => {
  let now = T0;
  const c = new EventCorrelator({ maxEvents: 1000 }, () => now);
  const skipped = [];
  for (let i = 0; i < 30; i++) skipped.push(send(c, newEvent(now, `m${i}`)).skip);
  assert.deepEqual(
    skipped.map((s, i) => (s ? i : -1)).filter((i) => i >= 0),
    [25, 26, 27, 28, 29],
  );
  assert.equal(send(c, newEvent(now, "another object", "w2")).skip, false, "budgets are per object");
  now += 299_000;
  assert.equal(send(c, newEvent(now, "x")).skip, true);
  now += 2_000;
  assert.equal(send(c, newEvent(now, "y")).skip, false, "one token after five minutes");
  assert.equal(send(c, newEvent(now, "z")).skip, true);
});

test("sprintf formats as Go's fmt for the common verbs", () => {
  assert.equal(sprintf("%s has %d replicas (%v)", "web", 3, true), "web has 3 replicas (true)");
  assert.equal(sprintf("%q %5d|%-4s|%05.1f %x %%", "a", 42, "ab", 7.5, 255), '"a"    42|ab  |007.5 ff %');
  assert.equal(sprintf("failed: %v", new Error("boom")), "failed: boom");
  assert.equal(sprintf("%v", { a: 1 }), '{"a":1}');
  assert.equal(sprintf("%s %s", "one"), "one %!s(MISSING)");
  assert.equal(sprintf("%s", "a", 2), "a%!(EXTRA number=2)");
});
