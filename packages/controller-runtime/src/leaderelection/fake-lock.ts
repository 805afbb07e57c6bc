// A lock held in memory that a test can block (controller-runtime's leaderelection/fake): a
// Manager given it leads at once without a Lease; blocking it makes every write fail, so the
// leader cannot renew and loses leadership after its renew deadline.
import { defaultIdentity } from "./identity.js";
import type { LockReading, ResourceLock } from "./lock.js";
import { type LeaderElectionRecord, recordFingerprint } from "./record.js";

/** A lock whose writes a test can make fail (Go's `ControllableResourceLockInterface`). */
export interface ControllableResourceLock extends ResourceLock {
  /** Every create and update fails from now on, as if the API server were unreachable. */
  blockLeaderElection(): void;
  unblockLeaderElection(): void;
  /** The record last written; undefined before the first. */
  readonly record: LeaderElectionRecord | undefined;
}

export interface FakeResourceLockOptions {
  /** Default: `defaultIdentity()` (`<hostname>_<uuid>`). */
  identity?: string;
}

/** An in-memory lock for tests: `Manager.create(cfg, { leaderElection: true, leaderElectionResourceLockInterface: newFakeResourceLock() })`. */
export function newFakeResourceLock(opts: FakeResourceLockOptions = {}): ControllableResourceLock {
  const identity = opts.identity ?? defaultIdentity();
  let record: LeaderElectionRecord | undefined;
  let blocked = false;
  const write = (r: LeaderElectionRecord, signal: AbortSignal, verb: string) => {
    signal.throwIfAborted();
    if (blocked) throw new Error(`leader election is blocked, cannot ${verb} the record`);
    record = { ...r };
  };
  return {
    identity,
    describe: () => `fake lock ${identity}`,
    get record() {
      return record;
    },
    async get(signal): Promise<LockReading | undefined> {
      signal.throwIfAborted();
      return record && { record: { ...record }, fingerprint: recordFingerprint(record) };
    },
    async create(r, signal) {
      write(r, signal, "create");
    },
    async update(r, signal) {
      write(r, signal, "update");
    },
    blockLeaderElection() {
      blocked = true;
    },
    unblockLeaderElection() {
      blocked = false;
    },
  };
}
