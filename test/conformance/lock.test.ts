// One contract for every ResourceLock: the Lease lock on this run's API server and the in-memory
// lock the elector's timing tests use. If the in-memory lock drifted from the Lease lock, those
// tests would prove rules against a lock that does not exist.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { newLeaseLock, type ResourceLock } from "controller-runtime/leaderelection";
import type { LeaderElectionRecord } from "../../packages/controller-runtime/src/leaderelection/record.js";
import { isAlreadyExists, isConflict, newRESTClient, type RESTClient } from "controller-runtime/rest";
import { testEnvironment } from "../support/environment.js";
import { MemoryLockStore } from "../support/leader-election.js";
import { newNamespace } from "../support/objects.js";

/** Two locks on one lock object, for two candidates. */
type LockPair = (a: string, b: string) => Promise<[ResourceLock, ResourceLock]>;

const record = (holder: string, transitions = 0): LeaderElectionRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: new Date(Date.UTC(2026, 0, 1, 0, 0, 0)),
  renewTime: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)),
  leaderTransitions: transitions,
});

function lockContract(name: string, pair: () => LockPair): void {
  describe(`ResourceLock: ${name}`, () => {
    const signal = new AbortController().signal;

    test("a missing lock reads as undefined; a created one reads back as written", async () => {
      const [a] = await pair()(`a-${randomUUID()}`, "b");
      assert.equal(await a.get(signal), undefined);
      await a.create(record(a.identity), signal);
      const read = await a.get(signal);
      assert.equal(read?.record.holderIdentity, a.identity);
      assert.equal(read?.record.leaseDurationSeconds, 15);
      assert.equal(read?.record.renewTime.getTime(), Date.UTC(2026, 0, 1, 0, 0, 5));
      assert.equal(typeof read?.fingerprint, "string");
    });

    test("a second create loses with AlreadyExists", async () => {
      const [a, b] = await pair()("a", "b");
      await a.create(record("a"), signal);
      await assert.rejects(b.create(record("b"), signal), (err) => isAlreadyExists(err));
    });

    test("an update on a stale read loses with Conflict; on a fresh one it wins", async () => {
      const [a, b] = await pair()("a", "b");
      await a.create(record("a"), signal);
      const seen = await b.get(signal);
      await a.update({ ...record("a"), renewTime: new Date(Date.UTC(2026, 0, 1, 0, 0, 9)) }, signal);
      await assert.rejects(b.update(record("b", 1), signal), (err) => isConflict(err));
      const fresh = await b.get(signal);
      assert.notEqual(fresh?.fingerprint, undefined);
      assert.equal(seen?.record.holderIdentity, "a");
      await b.update(record("b", 1), signal);
      const now = await a.get(signal);
      assert.equal(now?.record.holderIdentity, "b");
      assert.equal(now?.record.leaderTransitions, 1);
    });

    test("an update that changes nothing is no write (as the API server's no-op update): a reader is not stale", async () => {
      const [a, b] = await pair()("a", "b");
      await a.create(record("a"), signal);
      await b.get(signal);
      await a.update(record("a"), signal);
      await b.update(record("b", 1), signal);
      assert.equal((await a.get(signal))?.record.holderIdentity, "b");
    });

    test("the fingerprint changes with the record and only with it", async () => {
      const [a] = await pair()("a", "b");
      await a.create(record("a"), signal);
      const first = await a.get(signal);
      const again = await a.get(signal);
      assert.equal(first?.fingerprint, again?.fingerprint);
      await a.update({ ...record("a"), renewTime: new Date(Date.UTC(2026, 0, 1, 0, 0, 7)) }, signal);
      assert.notEqual((await a.get(signal))?.fingerprint, first?.fingerprint);
    });
  });
}

lockContract("in-memory", () => async (a, b) => {
  const store = new MemoryLockStore();
  return [store.lock(a), store.lock(b)];
});

const env = testEnvironment();
let rest: RESTClient;
before(async () => {
  rest = newRESTClient(await env.start());
});
after(async () => {
  await rest.close();
  await env.stop();
});

lockContract("Lease", () => async (a, b) => {
  const namespace = await newNamespace(rest, "lock");
  const name = `lease-${randomUUID().slice(0, 8)}`;
  return [
    newLeaseLock({ client: rest, namespace, name, identity: a }),
    newLeaseLock({ client: rest, namespace, name, identity: b }),
  ];
});
