// metav1.Time and metav1.MicroTime fields of built-in objects as kube-apiserver 1.37.2 decodes
// them: Go's time.Parse with RFC 3339 (Time: a fraction read and dropped, any offset written
// back in UTC) or the micro layout (MicroTime: six fraction digits, exactly), a 400 in
// time.Parse's words for anything else, and "of type string" for a value that is no string.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("go-times");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

/** A dry-run core Event whose firstTimestamp (a Time) is `t`. */
const coreEvent = (t: unknown) =>
  api.post(`/api/v1/namespaces/${ns}/events?dryRun=All`, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "e" },
    involvedObject: { kind: "Pod", name: "p", namespace: ns },
    firstTimestamp: t,
    reason: "R",
    message: "m",
    type: "Normal",
    source: { component: "c" },
  });

/** A dry-run events.k8s.io Event whose eventTime (a MicroTime) is `t`. */
const eventsEvent = (t: unknown) =>
  api.post(`/apis/events.k8s.io/v1/namespaces/${ns}/events?dryRun=All`, {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name: "e" },
    eventTime: t,
    reportingController: "x/y",
    reportingInstance: "i",
    action: "A",
    reason: "R",
    type: "Normal",
    regarding: { kind: "Pod", name: "p", namespace: ns },
  });

const refusal = (r: { status: number; body: unknown; text: string }) => {
  assert.equal(r.status, 400, r.text);
  return (r.body as { message: string }).message;
};
const TIME = "2006-01-02T15:04:05Z07:00";
const MICRO = "2006-01-02T15:04:05.000000Z07:00";
const cannot = (value: string, layout: string, valueElem: string, layoutElem: string) =>
  `Event in version "v1" cannot be handled as a Event: parsing time "${value}" as "${layout}": cannot parse "${valueElem}" as "${layoutElem}"`;

describe("Time and MicroTime", () => {
  test("a Time reads RFC 3339 and is written back in UTC, to the second", async () => {
    for (const [sent, stored] of [
      ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"],
      ["2026-01-01T00:00:00.123Z", "2026-01-01T00:00:00Z"],
      ["2026-01-01T02:30:00+02:00", "2026-01-01T00:30:00Z"],
    ]) {
      const r = await coreEvent(sent);
      assert.equal(r.status, 201, r.text);
      assert.equal((r.body as { firstTimestamp: string }).firstTimestamp, stored, sent);
    }
  });

  test("a Time that is not RFC 3339 is refused in time.Parse's words", async () => {
    assert.equal(refusal(await coreEvent("bad")), cannot("bad", TIME, "bad", "2006"));
    assert.equal(refusal(await coreEvent("2026-01-01")), cannot("2026-01-01", TIME, "", "T"));
    assert.equal(
      refusal(await coreEvent("2026-13-01T00:00:00Z")),
      'Event in version "v1" cannot be handled as a Event: parsing time "2026-13-01T00:00:00Z": month out of range',
    );
    assert.equal(
      refusal(await coreEvent(5)),
      'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal number into Go struct field Event.firstTimestamp of type string',
    );
  });

  test("a MicroTime takes six fraction digits, no fewer", async () => {
    const ok = await eventsEvent("2026-01-01T00:00:00.123456Z");
    assert.equal(ok.status, 201, ok.text);
    assert.equal((ok.body as { eventTime: string }).eventTime, "2026-01-01T00:00:00.123456Z");
    assert.equal(refusal(await eventsEvent("bad")), cannot("bad", MICRO, "bad", "2006"));
    assert.equal(
      refusal(await eventsEvent("2026-01-01T00:00:00Z")),
      cannot("2026-01-01T00:00:00Z", MICRO, "Z", ".000000"),
    );
    assert.equal(
      refusal(await eventsEvent("2026-01-01T00:00:00.123Z")),
      cannot("2026-01-01T00:00:00.123Z", MICRO, ".123Z", ".000000"),
    );
    assert.equal(
      refusal(await eventsEvent(5)),
      'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal number into Go struct field Event.eventTime of type string',
    );
  });
});
