// Leader election without an API server: a clock moved by hand and an in-memory lock, for the
// elector's timing tests and the Lock and Clock conformance suites.
import type { Clock, LockReading, ResourceLock, TimerHandle } from "controller-runtime/leaderelection";
import {
  type LeaderElectionRecord,
  recordFingerprint,
} from "../../packages/controller-runtime/src/leaderelection/record.js";
import { StatusError } from "controller-runtime/rest";

function statusError(code: number, reason: string, message: string): StatusError {
  return new StatusError({ apiVersion: "v1", kind: "Status", status: "Failure", code, reason, message });
}

export const settle = async () => {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
};

/** A leader-election clock whose time moves only by `advance()`, which lets promises run between timers. */
export class FakeClock implements Clock {
  t = 0;
  private seq = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  now() {
    return this.t;
  }
  wallNow() {
    return new Date(Date.UTC(2026, 0, 1) + this.t);
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.seq++;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return { cancel: () => this.timers.delete(id) };
  }
  /** Moves time forward to `this.t + ms`, firing due timers in order and letting promises run. */
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      await settle();
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      this.timers.delete(next[0]);
      this.t = next[1].at;
      next[1].fn();
    }
    this.t = end;
    await settle();
  }
}

/**
 * An in-memory lock store: one record with a version, shared by the locks of several candidates.
 * It answers as the API server does (AlreadyExists, Conflict), and can be taken "down".
 */
export class MemoryLockStore {
  record: LeaderElectionRecord | undefined;
  version = 0;
  down = false;
  writes: LeaderElectionRecord[] = [];
  lock(identity: string): ResourceLock {
    let seen = -1;
    const store = this;
    const check = (signal: AbortSignal) => {
      if (signal.aborted) throw signal.reason;
      if (store.down) throw new Error("connection refused");
    };
    return {
      identity,
      describe: () => "ns/lease",
      async get(signal): Promise<LockReading | undefined> {
        check(signal);
        if (!store.record) return undefined;
        seen = store.version;
        return { record: { ...store.record }, fingerprint: recordFingerprint(store.record) };
      },
      async create(record, signal) {
        check(signal);
        if (store.record) throw statusError(409, "AlreadyExists", `leases "lease" already exists`);
        store.set(record);
        seen = store.version;
      },
      async update(record, signal) {
        check(signal);
        if (seen !== store.version) {
          throw statusError(
            409,
            "Conflict",
            "the object has been modified; please apply your changes to the latest version and try again",
          );
        }
        store.set(record);
        seen = store.version;
      },
    };
  }
  set(record: LeaderElectionRecord) {
    // As the API server: a write that changes nothing keeps the resourceVersion.
    if (this.record && recordFingerprint(this.record) === recordFingerprint(record)) return;
    this.record = { ...record };
    this.version++;
    this.writes.push(this.record);
  }
}
