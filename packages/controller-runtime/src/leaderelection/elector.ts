// The elector: client-go's leaderelection algorithm. Candidates read the lock every retry period
// and take it over once its holder has not changed it for a lease duration, as measured on OUR
// monotonic clock from when WE saw it change: no comparison of clocks between machines.
//
// Why no two leaders act at once: the leader's work is told to stop (its signal aborted) when
// `renewDeadline` has passed since the START of its last successful renewal. Any other candidate
// first saw that renewal after it was written, so it waits at least `leaseDuration` from a later
// instant; since renewDeadline < leaseDuration, leader work has `leaseDuration - renewDeadline`
// to wind down before anyone else may take over.
import { isConflict, isNotFound, sleep } from "../rest/index.js";
import { type Clock, jitter, type TimerHandle, withDeadline } from "./clock.js";
import { LeaderElectionLostError } from "./errors.js";
import type { LockReading } from "./lock.js";
import {
  JITTER_FACTOR,
  type LeaderElectorOptions,
  type ResolvedElectorOptions,
  resolveElectorOptions,
} from "./options.js";
import { type LeaderElectionRecord, recordFingerprint } from "./record.js";

export interface LeaderElector {
  /**
   * Competes for the lock until `signal` aborts, leading whenever it holds it. Resolves after an
   * abort (once leader work finished and, with `releaseOnCancel`, the lease was released).
   * Rejects with `LeaderElectionLostError` when this replica led and lost the lease without
   * being asked to: it does not compete again (start a new elector to do so).
   */
  run(signal: AbortSignal): Promise<void>;
  /** True while this replica leads: from `onStartedLeading` until its signal aborts. */
  isLeader(): boolean;
  /** The holder last observed in the lock; `""` if none or not yet read. */
  getLeader(): string;
  /** Resolves when this replica first starts leading; stays pending if it never does. */
  elected(): Promise<void>;
}

/** Creates an elector; checks the options (throws `LeaderElectionConfigError`). Does no I/O. */
export function newLeaderElector(opts: LeaderElectorOptions): LeaderElector {
  return new Elector(resolveElectorOptions(opts));
}

class Elector implements LeaderElector {
  private observed: LeaderElectionRecord | undefined;
  private observedFingerprint = "";
  /** Monotonic time at which we saw the lock's record change. */
  private observedTime = 0;
  private reportedLeader = "";
  private leading = false;
  private running = false;
  private readonly clock: Clock;
  private readonly identity: string;
  private readonly desc: string;
  private readonly electedPromise: Promise<void>;
  private markElected: () => void = () => {};

  constructor(private readonly o: ResolvedElectorOptions) {
    this.electedPromise = new Promise((resolve) => {
      this.markElected = resolve;
    });
    this.clock = o.clock;
    this.identity = o.lock.identity;
    this.desc = o.lock.describe();
  }

  isLeader(): boolean {
    return this.leading;
  }

  getLeader(): string {
    return this.observed?.holderIdentity ?? "";
  }

  elected(): Promise<void> {
    return this.electedPromise;
  }

  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error("LeaderElector.run() is already running: call it once at a time");
    this.running = true;
    try {
      const acquiredAt = await this.acquire(signal);
      if (acquiredAt === undefined) return;
      await this.lead(signal, acquiredAt);
    } finally {
      this.running = false;
    }
  }

  /** Tries until it holds the lock; returns the monotonic time the winning try started, or undefined on abort. */
  private async acquire(signal: AbortSignal): Promise<number | undefined> {
    this.o.logger.info("attempting to acquire leader lease", { lock: this.desc });
    while (!signal.aborted) {
      const start = this.clock.now();
      const ok = await withDeadline(this.clock, signal, start + this.o.renewDeadlineMs, (s) =>
        this.tryAcquireOrRenew(s),
      );
      this.maybeReportTransition();
      if (ok) {
        if (!signal.aborted) {
          this.o.logger.info("successfully acquired lease", { lock: this.desc });
          return start;
        }
        // Won the lock just as we were told to stop: never lead, hand it back if asked to.
        if (this.o.releaseOnCancel) await this.release();
        return undefined;
      }
      this.o.logger.v(4).info("failed to acquire lease", { lock: this.desc });
      await sleep(jitter(this.o.retryPeriodMs, JITTER_FACTOR), signal, this.clock);
    }
    return undefined;
  }

  /** Leads from `acquiredAt` until the signal aborts or the lease is lost. */
  private async lead(signal: AbortSignal, acquiredAt: number): Promise<void> {
    const leadingCtl = new AbortController();
    let lostDetail: string | undefined;
    let lastRenew = acquiredAt;
    let deadline: TimerHandle | undefined;
    const lose = (detail: string) => {
      if (leadingCtl.signal.aborted) return;
      lostDetail = detail;
      this.setLeading(false);
      leadingCtl.abort(new LeaderElectionLostError(this.desc, detail));
    };
    const armDeadline = () => {
      deadline?.cancel();
      deadline = this.clock.setTimeout(
        () => lose(`the lease was not renewed within renewDeadline (${this.o.renewDeadlineMs} ms)`),
        lastRenew + this.o.renewDeadlineMs - this.clock.now(),
      );
    };
    // Abort leader work synchronously with the caller's abort, not a tick later.
    const onAbort = () => {
      if (!leadingCtl.signal.aborted) {
        this.setLeading(false);
        leadingCtl.abort(signal.reason);
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });

    this.setLeading(true);
    this.markElected();
    armDeadline();
    const work = this.startLeaderWork(leadingCtl.signal);
    const loop = leadingCtl.signal;
    while (!loop.aborted) {
      await sleep(this.o.retryPeriodMs, loop, this.clock);
      if (loop.aborted) break;
      const start = this.clock.now();
      const ok = await withDeadline(this.clock, loop, lastRenew + this.o.renewDeadlineMs, (s) =>
        this.tryAcquireOrRenew(s),
      );
      this.maybeReportTransition();
      if (loop.aborted) break;
      if (ok) {
        lastRenew = start;
        armDeadline();
        this.o.logger.v(5).info("successfully renewed lease", { lock: this.desc });
      } else if (this.observed && this.observed.holderIdentity !== this.identity) {
        // client-go keeps polling until renewDeadline; another holder will not hand it back.
        lose(`the lease is now held by ${JSON.stringify(this.observed.holderIdentity)}`);
      }
    }
    deadline?.cancel();
    signal.removeEventListener("abort", onAbort);
    this.setLeading(false);

    if (lostDetail === undefined) {
      // Asked to stop: let leader work finish before the lease may pass to anyone else.
      await work;
      if (this.o.releaseOnCancel) await this.release();
    } else {
      this.o.logger.info("failed to renew lease", { lock: this.desc, reason: lostDetail });
    }
    this.o.onStoppedLeading?.();
    if (lostDetail !== undefined) throw new LeaderElectionLostError(this.desc, lostDetail);
  }

  private startLeaderWork(leading: AbortSignal): Promise<void> {
    const report = (err: unknown) => this.o.logger.error(err, "leader work failed", { lock: this.desc });
    try {
      return Promise.resolve(this.o.onStartedLeading?.(leading)).catch(report);
    } catch (err) {
      report(err);
      return Promise.resolve();
    }
  }

  /** One try: client-go's `tryAcquireOrRenew`. True when we hold the lock afterwards. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const now = this.clock.now();
    const wallNow = this.clock.wallNow();
    const desired: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: wallNow,
      renewTime: wallNow,
      leaderTransitions: 0,
    };

    // 1. Fast path (client-go ≥ 1.25): the leader renews with a PUT on the version it last
    // wrote, skipping the read. A conflict (someone else wrote) falls back to the slow path.
    const observed = this.observed;
    if (
      observed?.holderIdentity === this.identity &&
      this.observedTime + observed.leaseDurationSeconds * 1000 > now
    ) {
      desired.acquireTime = observed.acquireTime;
      desired.leaderTransitions = observed.leaderTransitions;
      try {
        await this.o.lock.update(desired, signal);
        this.setObserved(desired);
        return true;
      } catch (err) {
        if (signal.aborted) return false;
        this.o.logger.v(1).info("failed to update lock optimistically, falling back to slow path", {
          lock: this.desc,
          error: err,
        });
        this.o.onSlowPath?.(this.o.name);
      }
      desired.acquireTime = wallNow;
      desired.leaderTransitions = 0;
    }

    // 2. Read the lock, or create it.
    let reading: LockReading | undefined;
    try {
      reading = await this.o.lock.get(signal);
    } catch (err) {
      // Stopping (a graceful hand-over) aborts the read: that is no error.
      if (signal.aborted) return false;
      this.o.logger.error(err, "error retrieving resource lock", { lock: this.desc });
      return false;
    }
    if (reading === undefined) {
      try {
        await this.o.lock.create(desired, signal);
      } catch (err) {
        this.o.logger
          .v(1)
          .info("error initially creating leader election record", { lock: this.desc, error: err });
        return false;
      }
      this.setObserved(desired);
      return true;
    }

    // 3. Restart the expiry clock if the record changed; back off while it is held and fresh.
    if (reading.fingerprint !== this.observedFingerprint) {
      this.observed = reading.record;
      this.observedFingerprint = reading.fingerprint;
      this.observedTime = this.clock.now();
    }
    const current = reading.record;
    const holdsIt = current.holderIdentity === this.identity;
    if (
      current.holderIdentity !== "" &&
      !holdsIt &&
      this.observedTime + current.leaseDurationSeconds * 1000 > now
    ) {
      this.o.logger.v(4).info("lock is held and has not yet expired", {
        lock: this.desc,
        holder: current.holderIdentity,
      });
      return false;
    }

    // 4. Renew (keeping acquireTime and transitions) or take over (one more transition).
    if (holdsIt) {
      desired.acquireTime = current.acquireTime;
      desired.leaderTransitions = current.leaderTransitions;
    } else {
      desired.leaderTransitions = current.leaderTransitions + 1;
    }
    try {
      await this.o.lock.update(desired, signal);
    } catch (err) {
      this.o.logger.v(1).info("failed to update lock", { lock: this.desc, error: err });
      return false;
    }
    this.setObserved(desired);
    return true;
  }

  /** client-go's `release`: an empty holder and a one-second lease, if we still hold it. */
  private async release(): Promise<void> {
    if (this.observed?.holderIdentity !== this.identity) return;
    const now = this.clock.wallNow();
    const released: LeaderElectionRecord = {
      holderIdentity: "",
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaderTransitions: this.observed.leaderTransitions,
    };
    const never = new AbortController().signal;
    try {
      await withDeadline(this.clock, never, this.clock.now() + this.o.renewDeadlineMs, (s) =>
        this.o.lock.update(released, s),
      );
      this.setObserved(released);
      this.o.logger.info("released leader lease", { lock: this.desc });
    } catch (err) {
      // Another candidate took the lease first, or it is gone: there is nothing left to release.
      if (isConflict(err) || isNotFound(err)) {
        this.o.logger.info("leader lease already taken over; nothing to release", { lock: this.desc });
        return;
      }
      this.o.logger.error(err, "failed to release lock", { lock: this.desc });
    }
  }

  private setObserved(r: LeaderElectionRecord): void {
    this.observed = r;
    this.observedFingerprint = recordFingerprint(r);
    this.observedTime = this.clock.now();
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    this.o.onLeadingChange?.(leading, this.o.name);
  }

  private maybeReportTransition(): void {
    const holder = this.observed?.holderIdentity ?? "";
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder !== "") this.o.onNewLeader?.(holder);
  }
}
