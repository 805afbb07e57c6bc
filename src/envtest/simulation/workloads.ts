// A stand-in for kube-controller-manager and the kubelet on the embedded API server, where
// nothing runs Pods: Deployments get ReplicaSets, ReplicaSets get Pods, and Pods become ready
// after a start-up delay, so that controllers watching Deployments see them become available.
// Written with the library itself: three controllers on one Manager.
import { kinds } from "../../src/api/index.js";
import { controllerManagedBy } from "../../src/builder/index.js";
import type { Manager } from "../../src/manager/index.js";
import type { Reconciler } from "../../src/reconcile/index.js";
import { isConflict } from "../../src/rest/index.js";
import { DeploymentSimulator } from "./deployment.js";
import { KubeletSimulator } from "./kubelet.js";
import { ReplicaSetSimulator } from "./replicaset.js";

export interface SimulatorOptions {
  /** How long a Pod takes to become ready. Default: 1000 ms. */
  podStartupMs?: number;
}

export function setupSimulator(mgr: Manager, opts: SimulatorOptions = {}): void {
  const client = mgr.getClient();
  const apiReader = mgr.getAPIReader();
  controllerManagedBy(mgr)
    .named("simulated-deployment-controller")
    .for(kinds.Deployment)
    .owns(kinds.ReplicaSet)
    .complete(ignoreConflicts(new DeploymentSimulator(client, apiReader)));
  controllerManagedBy(mgr)
    .named("simulated-replicaset-controller")
    .for(kinds.ReplicaSet)
    .owns(kinds.Pod)
    .complete(ignoreConflicts(new ReplicaSetSimulator(client, apiReader)));
  controllerManagedBy(mgr)
    .named("simulated-kubelet")
    .for(kinds.Pod)
    .complete(ignoreConflicts(new KubeletSimulator(client, opts.podStartupMs ?? 1000)));
}

/**
 * A write refused with a 409 Conflict means the object changed since the cache showed it (or the
 * server refused it for its own reasons): the simulator tries again shortly from the cache,
 * without logging it as an error. The change's own watch event would queue it again too, but a
 * conflict that comes with no change (a fault test's) would then stall the chain for good.
 */
function ignoreConflicts(r: Reconciler): Reconciler {
  return {
    async reconcile(req, ctx) {
      try {
        return await r.reconcile(req, ctx);
      } catch (err) {
        if (isConflict(err)) return { requeueAfter: 50 };
        throw err;
      }
    },
  };
}
