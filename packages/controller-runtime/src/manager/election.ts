// The manager's leader elector: a Lease lock through the shared REST client (or a client of the
// leaderElectionConfig, or the user's own lock), the
// leader_election_master_status metric, and the leader runnables tied to the `leading` signal.
import {
  defaultIdentity,
  type LeaderElector,
  newLeaderElector,
  newLeaseLock,
} from "../leaderelection/index.js";
import { leaderElectionMetrics, restClientMetrics } from "../metrics/index.js";
import { newRESTClient } from "../rest/index.js";
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
  // A Lease on another API server goes through a client of its own, closed when the elector ends.
  const own = !o.leaderElectionResourceLockInterface && o.leaderElectionConfig;
  const rest = own
    ? newRESTClient(o.leaderElectionConfig!, { onRequestDone: restClientMetrics(c.registry).observe })
    : c.rest;
  const elector = newLeaderElector({
    lock:
      o.leaderElectionResourceLockInterface ??
      newLeaseLock({
        client: rest,
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
  if (!own) return elector;
  return {
    ...elector,
    isLeader: () => elector.isLeader(),
    getLeader: () => elector.getLeader(),
    elected: () => elector.elected(),
    async run(signal) {
      try {
        await elector.run(signal);
      } finally {
        await rest.close();
      }
    },
  };
}
