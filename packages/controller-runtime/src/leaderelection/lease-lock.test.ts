// Leader election on a real Lease, over HTTPS against the embedded API server. Short durations
// (lease 1 s, renew 0.8 s, retry 0.2 s); assertions are about order and exclusion, not timing.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import { kinds } from "../api/index.js";
import { startAPIServer } from "controller-runtime-apiserver";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import {
  LeaderElectionLostError,
  type LeaderElectorOptions,
  newLeaderElector,
  newLeaseLock,
} from "./index.js";
import type { RESTConfig } from "../rest/index.js";
import { needs, testEnvironment } from "../../../../test/support/environment.js";

const LEASES = resourceOf(kinds.Lease);
const fast = { leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 };

const env = testEnvironment();
let config: RESTConfig;
let client: RESTClient;

before(async () => {
  config = await env.start();
  client = newRESTClient(config);
});
after(async () => {
  await client.close();
  await env.stop();
});

async function newNamespace(): Promise<string> {
  const name = `le-${randomUUID().slice(0, 8)}`;
  await client.create(resourceOf(kinds.Namespace), { metadata: { name } });
  return name;
}

async function eventually(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Term {
  who: string;
  start: number;
  end?: number;
}

/** A candidate whose leadership terms (from the callbacks' own records) land in `terms`. */
function candidate(
  who: string,
  namespace: string,
  terms: Term[],
  extra: Partial<LeaderElectorOptions> = {},
  restClient = client,
) {
  const ctl = new AbortController();
  const elector = newLeaderElector({
    lock: newLeaseLock({ client: restClient, namespace, name: "leader", identity: who }),
    ...fast,
    onStartedLeading(leading) {
      const term: Term = { who, start: performance.now() };
      terms.push(term);
      leading.addEventListener("abort", () => {
        term.end = performance.now();
      });
    },
    ...extra,
  });
  const run = elector.run(ctl.signal);
  const outcome = run.then(
    () => "resolved" as const,
    (e: unknown) => e,
  );
  return { who, ctl, elector, outcome };
}

const getLease = (namespace: string) => client.get<Lease>(LEASES, "leader", { namespace });

function assertNoOverlap(terms: Term[]) {
  const sorted = [...terms].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    assert.ok(prev.end !== undefined, `${prev.who} still led when ${sorted[i].who} started`);
    assert.ok(prev.end <= sorted[i].start, `${prev.who} and ${sorted[i].who} led at the same time`);
  }
}

test("the Lease holds the leader's record in client-go's format", async () => {
  const ns = await newNamespace();
  const terms: Term[] = [];
  const a = candidate("a", ns, terms);
  await a.elector.elected();
  assert.equal(a.elector.isLeader(), true);
  const lease = await getLease(ns);
  assert.equal(lease.spec?.holderIdentity, "a");
  assert.equal(lease.spec?.leaseDurationSeconds, 1);
  assert.equal(lease.spec?.leaseTransitions, 0);
  assert.match(lease.spec?.acquireTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  assert.match(lease.spec?.renewTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  const rv = lease.metadata?.resourceVersion;
  await eventually("a renews", async () => (await getLease(ns)).metadata?.resourceVersion !== rv);
  const renewed = await getLease(ns);
  assert.equal(renewed.spec?.acquireTime, lease.spec?.acquireTime, "renewals keep acquireTime");
  a.ctl.abort();
  assert.equal(await a.outcome, "resolved");
  assert.equal(a.elector.isLeader(), false);
});

test("three candidates on one Lease: exactly one leads at every instant, across fail-overs", async () => {
  const ns = await newNamespace();
  const terms: Term[] = [];
  const all = ["a", "b", "c"].map((w) => candidate(w, ns, terms));
  await eventually("someone leads", () => terms.length === 1);
  await new Promise((r) => setTimeout(r, 1500)); // several renewals; nobody else may start
  assert.equal(terms.length, 1);

  // Abort the leader without release: another takes over once the lease expired.
  const first = all.find((c) => c.who === terms[0].who)!;
  first.ctl.abort();
  assert.equal(await first.outcome, "resolved");
  await eventually("a second leader", () => terms.length === 2);
  assert.notEqual(terms[1].who, first.who);
  const lease = await getLease(ns);
  assert.equal(lease.spec?.holderIdentity, terms[1].who);
  assert.equal(lease.spec?.leaseTransitions, 1);

  // And once more, so the third gets its turn.
  const second = all.find((c) => c.who === terms[1].who)!;
  second.ctl.abort();
  await second.outcome;
  await eventually("a third leader", () => terms.length === 3);
  const third = all.find((c) => c.who === terms[2].who)!;
  assert.ok(third !== first && third !== second);
  for (const c of all) c.ctl.abort();
  await Promise.all(all.map((c) => c.outcome));
  assertNoOverlap(terms);
  assert.ok(terms.every((t) => t.end !== undefined));
});

test("with releaseOnCancel the successor does not wait for the lease to expire", async () => {
  const ns = await newNamespace();
  const terms: Term[] = [];
  // A 60 s lease: without the release, a successor would wait a minute.
  const slow = { leaseDurationMs: 60_000, renewDeadlineMs: 800, retryPeriodMs: 200, releaseOnCancel: true };
  const a = candidate("a", ns, terms, slow);
  await eventually("a leads", () => a.elector.isLeader());
  const b = candidate("b", ns, terms, slow);
  await eventually("b sees a", () => b.elector.getLeader() === "a");
  a.ctl.abort();
  assert.equal(await a.outcome, "resolved");
  const released = await getLease(ns);
  assert.ok(["", "b"].includes(released.spec?.holderIdentity ?? "?"));
  await eventually("b leads", () => b.elector.isLeader(), 10_000);
  assertNoOverlap(terms);
  assert.deepEqual(
    terms.map((t) => t.who),
    ["a", "b"],
  );
  b.ctl.abort();
  await b.outcome;
  assert.equal((await getLease(ns)).spec?.holderIdentity, "", "b released too");
});

test("a leader whose Lease is taken by another client stops leading", async () => {
  const ns = await newNamespace();
  const terms: Term[] = [];
  let stoppedCalls = 0;
  const a = candidate("a", ns, terms, { onStoppedLeading: () => stoppedCalls++ });
  await eventually("a leads", () => a.elector.isLeader());
  const lease = await getLease(ns);
  await client.update(
    LEASES,
    { ...lease, spec: { ...lease.spec, holderIdentity: "intruder" } },
    { namespace: ns },
  );
  const err = await a.outcome;
  assert.ok(err instanceof LeaderElectionLostError, String(err));
  assert.match(err.message, /held by "intruder"/);
  assert.equal(a.elector.isLeader(), false);
  assert.ok(terms[0].end !== undefined);
  assert.equal(stoppedCalls, 1);
});

test(
  "a leader whose API server stops answering stops leading after renewDeadline",
  needs("server-internals"),
  async () => {
    const own = await startAPIServer();
    const ownClient = newRESTClient(own.restConfig());
    try {
      await ownClient.create(resourceOf(kinds.Namespace), { metadata: { name: "le" } });
      const terms: Term[] = [];
      const a = candidate("a", "le", terms, {}, ownClient);
      await eventually("a leads", () => a.elector.isLeader());
      await own.stop();
      const err = await a.outcome;
      assert.ok(err instanceof LeaderElectionLostError, String(err));
      assert.match(err.message, /not renewed within renewDeadline/);
      assert.ok(terms[0].end !== undefined);
    } finally {
      await ownClient.close();
      await own.stop();
    }
  },
);
