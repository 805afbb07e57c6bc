// The manager's leader elector: a Lease lock through the shared REST client, the
// leader_election_master_status metric, and the leader runnables tied to the `leading` signal.
import {
  defaultIdentity,
  type LeaderElector,
  newLeaderElector,
  newLeaseLock,
} from "../leaderelection/index.js";
import { leaderElectionMetrics } from "../metrics/index.js";
import type { ManagerComponents } from "./components.js";
import type { ResolvedManagerOptions } from "./options.js";

/**
 * `lead(leading)` runs the leader runnables until `leading` aborts — which the elector does the
 * instant leadership is lost — and settles once they stopped, so a release comes only after.
 */
export function newManagerElector(
  c: ManagerComponents,
  o: ResolvedManagerOptions,
  lead: (leading: AbortSignal) => Promise<void>,
): LeaderElector {
  const metrics = leaderElectionMetrics(c.registry);
  return newLeaderElector({
    lock: newLeaseLock({
      client: c.rest,
      namespace: o.leaderElectionNamespace,
      name: o.leaderElectionID,
      identity: o.leaderElectionIdentity ?? defaultIdentity(),
      labels: o.leaderElectionLabels,
    }),
    leaseDurationMs: o.leaseDurationMs,
    renewDeadlineMs: o.renewDeadlineMs,
    retryPeriodMs: o.retryPeriodMs,
    releaseOnCancel: o.leaderElectionReleaseOnCancel,
    logger: o.logger.withName("leader-election"),
    onLeadingChange: (leading, name) => metrics.setLeader(name, leading),
    onSlowPath: (name) => metrics.slowpathTotal.inc({ name }),
    onStartedLeading: lead,
  });
}
