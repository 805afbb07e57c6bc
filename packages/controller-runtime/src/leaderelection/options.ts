// The elector's options, their defaults, and client-go's rules on them, all in one place.
import { type Clock, realClock } from "./clock.js";
import { LeaderElectionConfigError } from "./errors.js";
import type { ResourceLock } from "./lock.js";

/** client-go's `JitterFactor`: the acquire loop waits up to 1.2 × retryPeriod more, at random. */
export const JITTER_FACTOR = 1.2;

/**
 * The logging the elector needs: a subset of the project's `Logger` (src/log), so that any
 * Logger can be passed.
 */
export interface ElectionLogger {
  info(msg: string, kv?: Record<string, unknown>): void;
  error(err: unknown, msg: string, kv?: Record<string, unknown>): void;
  v(level: number): ElectionLogger;
}

export interface LeaderElectorOptions {
  /** The lock to compete for; its `identity` is ours. Required. */
  lock: ResourceLock;
  /**
   * How long non-leaders wait, from the moment they last saw the lock change, before they may
   * take it over. Written into the Lease in whole seconds, rounded up.
   * Default: 15000.
   */
  leaseDurationMs?: number;
  /**
   * How long the leader keeps trying to renew before it gives up leading. Measured from the
   * start of the last successful renewal, so leader work is told to stop before any other
   * candidate can see the lease expire. Must be below `leaseDurationMs`.
   * Default: 10000.
   */
  renewDeadlineMs?: number;
  /**
   * Wait between tries: the leader renews this often; candidates retry this often plus up to
   * 1.2 times more at random. `renewDeadlineMs` must exceed 1.2 × `retryPeriodMs`.
   * Default: 2000.
   */
  retryPeriodMs?: number;
  /**
   * On abort of `run()`'s signal, once leader work has finished, write an empty holder with a
   * one-second duration so that a successor takes over within one retry period.
   * Default: false.
   */
  releaseOnCancel?: boolean;
  /** Names this election in logs and in the `leader_election_master_status{name}` metric. Default: `lock.describe()`. */
  name?: string;
  /**
   * Called when this replica starts leading, with a signal aborted the instant it stops (the
   * lease lost, or `run()` aborted). Leader work must stop when the signal aborts. If it returns
   * a promise, `run()` waits for it before releasing the lease (after an abort, not after a loss).
   * Default: none.
   */
  onStartedLeading?: (leading: AbortSignal) => void | Promise<void>;
  /** Called once after leading ended (after the lease was released, when it is). Never called if this replica never led. Default: none. */
  onStoppedLeading?: () => void;
  /** Called when a different holder is observed (never with the empty identity of a released lease). Default: none. */
  onNewLeader?: (identity: string) => void;
  /** Told when leading starts and stops: the hook for `leader_election_master_status`. Default: none. */
  onLeadingChange?: (leading: boolean, name: string) => void;
  /** Told each time a renewal had to fall back to reading the lock: the hook for `leader_election_slowpath_total`. Default: none. */
  onSlowPath?: (name: string) => void;
  /** Default: a logger that discards everything. */
  logger?: ElectionLogger;
  /** Monotonic time and timers. Default: `realClock()`. */
  clock?: Clock;
}

export interface ResolvedElectorOptions {
  lock: ResourceLock;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  releaseOnCancel: boolean;
  name: string;
  onStartedLeading?: (leading: AbortSignal) => void | Promise<void>;
  onStoppedLeading?: () => void;
  onNewLeader?: (identity: string) => void;
  onLeadingChange?: (leading: boolean, name: string) => void;
  onSlowPath?: (name: string) => void;
  logger: ElectionLogger;
  clock: Clock;
}

const discard: ElectionLogger = { info() {}, error() {}, v: () => discard };

/** Applies the defaults and checks client-go's rules; throws `LeaderElectionConfigError`. */
export function resolveElectorOptions(opts: LeaderElectorOptions): ResolvedElectorOptions {
  const o: ResolvedElectorOptions = {
    lock: opts.lock,
    leaseDurationMs: opts.leaseDurationMs ?? 15_000,
    renewDeadlineMs: opts.renewDeadlineMs ?? 10_000,
    retryPeriodMs: opts.retryPeriodMs ?? 2_000,
    releaseOnCancel: opts.releaseOnCancel ?? false,
    name: opts.name ?? opts.lock?.describe() ?? "",
    onStartedLeading: opts.onStartedLeading,
    onStoppedLeading: opts.onStoppedLeading,
    onNewLeader: opts.onNewLeader,
    onLeadingChange: opts.onLeadingChange,
    onSlowPath: opts.onSlowPath,
    logger: opts.logger ?? discard,
    clock: opts.clock ?? realClock(),
  };
  if (!o.lock)
    throw new LeaderElectionConfigError("leader election needs a lock: pass `lock: newLeaseLock(...)`");
  if (!o.lock.identity) {
    throw new LeaderElectionConfigError("the lock's identity is empty: give each replica a unique identity");
  }
  for (const key of ["leaseDurationMs", "renewDeadlineMs", "retryPeriodMs"] as const) {
    if (!Number.isFinite(o[key]) || o[key] <= 0) {
      throw new LeaderElectionConfigError(`${key} must be a positive number of milliseconds, got ${o[key]}`);
    }
  }
  if (o.leaseDurationMs <= o.renewDeadlineMs) {
    throw new LeaderElectionConfigError(
      `leaseDurationMs (${o.leaseDurationMs}) must be greater than renewDeadlineMs (${o.renewDeadlineMs}), ` +
        "or a new leader could start before the old one stops",
    );
  }
  if (o.renewDeadlineMs <= JITTER_FACTOR * o.retryPeriodMs) {
    throw new LeaderElectionConfigError(
      `renewDeadlineMs (${o.renewDeadlineMs}) must be greater than retryPeriodMs × ${JITTER_FACTOR} ` +
        `(${JITTER_FACTOR * o.retryPeriodMs}): lower retryPeriodMs or raise renewDeadlineMs`,
    );
  }
  return o;
}
