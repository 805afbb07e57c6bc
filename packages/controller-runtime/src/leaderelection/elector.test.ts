// The elector's timing rules on a fake clock and an in-memory lock: pure logic, no server.
// (The Lease lock against the embedded API server is tested in lease-lock.test.ts.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { newLeaderElector } from "./elector.js";
import { LeaderElectionConfigError, LeaderElectionLostError } from "./errors.js";
import type { LeaderElectorOptions } from "./options.js";
import { FakeClock, MemoryLockStore } from "../../../../test/support/leader-election.js";

interface Candidate {
  ctl: AbortController;
  run: Promise<void>;
  outcome: Promise<unknown>;
  started: number[];
  stopped: number[];
  stoppedCalls: number;
  isLeader: () => boolean;
}

const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function candidate(
  store: MemoryLockStore,
  clock: FakeClock,
  id: string,
  extra: Partial<LeaderElectorOptions> = {},
): Candidate {
  const c = { ctl: new AbortController(), started: [] as number[], stopped: [] as number[], stoppedCalls: 0 };
  const elector = newLeaderElector({
    lock: store.lock(id),
    clock,
    ...timing,
    onStartedLeading: (leading) => {
      c.started.push(clock.now());
      leading.addEventListener("abort", () => c.stopped.push(clock.now()));
    },
    onStoppedLeading: () => {
      c.stoppedCalls++;
    },
    ...extra,
  });
  const run = elector.run(c.ctl.signal);
  const outcome = run.then(
    () => "resolved",
    (e: unknown) => e,
  );
  return Object.assign(c, { run, outcome, isLeader: () => elector.isLeader() });
}

test("options breaking client-go's rules are refused with a hint", () => {
  const lock = new MemoryLockStore().lock("a");
  assert.throws(
    () => newLeaderElector({ lock, leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
    (e: unknown) => e instanceof LeaderElectionConfigError && /greater than renewDeadlineMs/.test(e.message),
  );
  assert.throws(
    () => newLeaderElector({ lock, renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }),
    (e: unknown) => e instanceof LeaderElectionConfigError && /retryPeriodMs × 1.2/.test(e.message),
  );
  assert.throws(() => newLeaderElector({ lock: new MemoryLockStore().lock("") }), LeaderElectionConfigError);
  assert.throws(() => newLeaderElector({ lock, retryPeriodMs: 0 }), LeaderElectionConfigError);
  newLeaderElector({ lock, leaseDurationMs: 1000, renewDeadlineMs: 800, retryPeriodMs: 200 });
});

test("a lone candidate creates the lock and leads at once", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  const a = candidate(store, clock, "a");
  await clock.advance(0);
  assert.deepEqual(a.started, [0]);
  assert.equal(a.isLeader(), true);
  assert.equal(store.record?.holderIdentity, "a");
  assert.equal(store.record?.leaseDurationSeconds, 15);
  assert.equal(store.record?.leaderTransitions, 0);
  await clock.advance(6_000);
  assert.ok(store.writes.length >= 3, "renewed every retry period");
  assert.equal(
    store.record?.acquireTime.getTime(),
    clock.wallNow().getTime() - 6_000,
    "renewals keep acquireTime",
  );
  a.ctl.abort();
  assert.equal(a.isLeader(), false, "stops leading synchronously with the abort");
  assert.equal(await a.outcome, "resolved");
  assert.equal(a.stoppedCalls, 1);
});

test("a second candidate waits a full lease duration from when it saw the last renewal", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  const a = candidate(store, clock, "a");
  await clock.advance(0);
  const b = candidate(store, clock, "b");
  await clock.advance(30_000);
  assert.deepEqual(b.started, [], "b never leads while a renews");
  a.ctl.abort(); // no release: the lease stays a's until it expires
  await a.outcome;
  const lastRenewal = clock.now() - (clock.now() % 2_000); // a renews on even multiples of 2 s here
  await clock.advance(40_000);
  assert.equal(b.started.length, 1);
  assert.ok(
    b.started[0] >= lastRenewal + 15_000,
    `b took over at ${b.started[0]}, before ${lastRenewal}+15s`,
  );
  assert.equal(store.record?.holderIdentity, "b");
  assert.equal(store.record?.leaderTransitions, 1);
  b.ctl.abort();
  await b.outcome;
});

test("a leader that cannot renew stops leading at renewDeadline after its last renewal began", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  const a = candidate(store, clock, "a");
  const b = candidate(store, clock, "b");
  await clock.advance(4_100); // a renewed at 2 s and 4 s
  store.down = true;
  await clock.advance(20_000);
  assert.deepEqual(a.stopped, [14_000], "4 s + renewDeadline 10 s");
  const err = await a.outcome;
  assert.ok(err instanceof LeaderElectionLostError, String(err));
  assert.match((err as Error).message, /not renewed within renewDeadline/);
  assert.equal(a.stoppedCalls, 1);
  store.down = false;
  await clock.advance(40_000);
  assert.equal(b.started.length, 1);
  assert.ok(b.started[0] >= 4_000 + 15_000, "b waited out the lease after it came back");
  assert.ok(b.started[0] > a.stopped[0]);
  b.ctl.abort();
  await b.outcome;
});

test("a leader whose lease was taken stops at its next renewal", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  const slowPaths: string[] = [];
  const a = candidate(store, clock, "a", { name: "mgr", onSlowPath: (n) => slowPaths.push(n) });
  await clock.advance(3_000);
  assert.deepEqual(slowPaths, [], "renewals take the fast path: no read");
  const now = clock.wallNow();
  store.set({ ...store.record!, holderIdentity: "intruder", renewTime: now, acquireTime: now });
  await clock.advance(2_000);
  assert.deepEqual(a.stopped, [4_000]);
  const err = await a.outcome;
  assert.ok(err instanceof LeaderElectionLostError);
  assert.match((err as Error).message, /held by "intruder"/);
  assert.deepEqual(slowPaths, ["mgr"], "the conflicting renewal fell back to reading the lock");
});

test("releaseOnCancel hands the lease over once leader work finished", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  let finishWork: () => void = () => {};
  const events: string[] = [];
  const a = candidate(store, clock, "a", {
    releaseOnCancel: true,
    onStartedLeading: (leading) =>
      new Promise<void>((resolve) => {
        leading.addEventListener("abort", () => events.push("a aborted"));
        finishWork = () => {
          events.push("a work done");
          resolve();
        };
      }),
  });
  await clock.advance(0);
  const b = candidate(store, clock, "b", {
    onStartedLeading: () => {
      events.push("b leads");
    },
  });
  await clock.advance(5_000);
  a.ctl.abort();
  await clock.advance(5_000);
  assert.equal(store.record?.holderIdentity, "a", "not released while leader work runs");
  finishWork();
  await clock.advance(0);
  assert.equal(store.record?.holderIdentity, "");
  assert.equal(store.record?.leaseDurationSeconds, 1);
  assert.equal(await a.outcome, "resolved");
  await clock.advance(5_000); // one retry period and its jitter
  assert.deepEqual(events, ["a aborted", "a work done", "b leads"]);
  b.ctl.abort();
  await b.outcome;
});

test("onNewLeader reports each new holder once; getLeader shows it", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  const seen: string[] = [];
  const a = candidate(store, clock, "a");
  await clock.advance(0);
  const elector = newLeaderElector({
    lock: store.lock("b"),
    clock,
    ...timing,
    onNewLeader: (id) => seen.push(id),
  });
  const ctl = new AbortController();
  const run = elector.run(ctl.signal);
  await clock.advance(10_000);
  assert.deepEqual(seen, ["a"]);
  assert.equal(elector.getLeader(), "a");
  assert.equal(elector.isLeader(), false);
  ctl.abort();
  a.ctl.abort();
  await run;
  await a.outcome;
});

test("the leading-change hook follows leadership", async () => {
  const store = new MemoryLockStore();
  const clock = new FakeClock();
  const changes: string[] = [];
  const a = candidate(store, clock, "a", {
    name: "mgr",
    onLeadingChange: (l, n) => changes.push(`${n}=${l}`),
  });
  await clock.advance(0);
  store.down = true;
  await clock.advance(12_000);
  await a.outcome;
  assert.deepEqual(changes, ["mgr=true", "mgr=false"]);
});
