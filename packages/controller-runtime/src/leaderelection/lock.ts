// The lock the elector competes for, as client-go's `resourcelock.Interface`. The Lease lock is
// the only implementation shipped; tests of the elector's timing rules use an in-memory one.
import type { LeaderElectionRecord } from "./record.js";

/** What a lock read returned. */
export interface LockReading {
  record: LeaderElectionRecord;
  /**
   * A canonical form of the record (see `recordFingerprint`): the elector restarts its expiry
   * clock only when this changes.
   */
  fingerprint: string;
}

export interface ResourceLock {
  /** Who we are: written as `holderIdentity` when we hold the lock. */
  readonly identity: string;
  /** `namespace/name` of the lock, for logs and messages. */
  describe(): string;
  /**
   * Reads the lock and remembers its version for the next `update`. Resolves `undefined` when
   * the lock does not exist yet; rejects on any other failure.
   */
  get(signal: AbortSignal): Promise<LockReading | undefined>;
  /** Creates the lock holding `record`; loses with AlreadyExists to a concurrent creator. */
  create(record: LeaderElectionRecord, signal: AbortSignal): Promise<void>;
  /**
   * Replaces the record, conditional on the version last read or written (optimistic
   * concurrency): loses with Conflict if anyone wrote in between.
   */
  update(record: LeaderElectionRecord, signal: AbortSignal): Promise<void>;
}
