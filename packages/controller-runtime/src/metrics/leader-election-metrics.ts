// controller-runtime's leader election metrics (pkg/metrics/leaderelection.go).
import type { Counter, Gauge, Registry } from "prom-client";
import { getOrCreateCounter, getOrCreateGauge } from "./registry.js";

export interface LeaderElectionMetrics {
  /** `leader_election_master_status{name}`: 1 while this replica holds the lease `name`, else 0. */
  readonly masterStatus: Gauge<"name">;
  /** `leader_election_slowpath_total{name}`: renewals that had to read the lease first. */
  readonly slowpathTotal: Counter<"name">;
  /** Sets `leader_election_master_status` of lease `name`. */
  setLeader(name: string, leading: boolean): void;
}

/** The leader election metrics on `registry`, registered once per registry. */
export function leaderElectionMetrics(registry: Registry): LeaderElectionMetrics {
  const masterStatus = getOrCreateGauge(registry, {
    name: "leader_election_master_status",
    help:
      "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. " +
      "'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ["name"],
  });
  const slowpathTotal = getOrCreateCounter(registry, {
    name: "leader_election_slowpath_total",
    help:
      "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify " +
      "the lease. Please make sure to group by name.",
    labelNames: ["name"],
  });
  return {
    masterStatus,
    slowpathTotal,
    setLeader: (name, leading) => masterStatus.set({ name }, leading ? 1 : 0),
  };
}
