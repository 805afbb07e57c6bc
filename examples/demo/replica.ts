// One replica of the examples' operator: a Manager running all three examples, with leader
// election, so that of two replicas only one reconciles MarkdownViews, Pods and Deployments (the
// other stands by), while both share the StorageBuckets through the ring `examples`, each
// probing the buckets assigned to it.
import { hostname } from "node:os";
import { ping } from "controller-runtime/healthz";
import type { Logger } from "controller-runtime/log";
import { Manager } from "controller-runtime/manager";
import type { RESTConfig } from "controller-runtime/rest";
import { setupMarkdownViewController } from "../markdownview/controller.js";
import { setupPodsAndDeployments } from "../pods-deployments/controllers.js";
import { setupStorageBucketController } from "../storagebucket/controller.js";

/** The Lease the replicas compete for. */
export const leaderElectionID = "examples.controller-runtime.example.com";
/** The ring the replicas share StorageBuckets in. */
export const ring = "examples";

export interface ReplicaOptions {
  /** `replica-1`, ...: the logger's name and part of the leader election identity. */
  name: string;
  logger: Logger;
  /** Default: true. */
  leaderElection?: boolean;
  metricsBindAddress: string;
  healthProbeBindAddress: string;
  probeIntervalMs: number;
}

export async function newReplica(config: RESTConfig, opts: ReplicaOptions): Promise<Manager> {
  const mgr = await Manager.create(config, {
    logger: opts.logger.withName(opts.name),
    metrics: { bindAddress: opts.metricsBindAddress },
    healthProbeBindAddress: opts.healthProbeBindAddress,
    leaderElection: opts.leaderElection ?? true,
    leaderElectionID,
    leaderElectionIdentity: `${hostname()}_${opts.name}`,
    // On Ctrl-C the leader gives the Lease up, so a successor need not wait for it to expire.
    leaderElectionReleaseOnCancel: true,
    sharding: { ring, identity: opts.name },
  });
  const client = mgr.getClient();
  setupStorageBucketController(mgr, client, { probeIntervalMs: opts.probeIntervalMs, sharded: true });
  await setupMarkdownViewController(mgr, client);
  setupPodsAndDeployments(mgr);
  mgr.addHealthzCheck("healthz", ping);
  mgr.addReadyzCheck("readyz", ping);
  return mgr;
}

/** `host:port` with the port moved by `offset` (each replica needs its own); `:0` and `0` stay. */
export function offsetBindAddress(address: string, offset: number): string {
  const m = /^(.*):(\d+)$/.exec(address);
  if (!m || m[2] === "0") return address;
  return `${m[1]}:${Number(m[2]) + offset}`;
}
