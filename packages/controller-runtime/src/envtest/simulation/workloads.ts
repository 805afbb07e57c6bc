// Workloads, simulated: a stand-in for kube-controller-manager's Deployment, ReplicaSet and
// DaemonSet controllers and for the kubelet on a test API server (embedded or kube-apiserver),
// where nothing runs Pods: Deployments get ReplicaSets, ReplicaSets get Pods, DaemonSets get a Pod
// on the one simulated Node (and ControllerRevisions), and Pods become ready after a start-up
// delay, so that controllers watching Deployments see them become available. Written with the
// library itself: controllers on one Manager (envtest's `simulate: { workloads }`).
import { kinds } from "../../api/index.js";
import { controllerManagedBy } from "../../builder/index.js";
import { enqueueRequestsFromMapFunc } from "../../handler/index.js";
import type { Manager } from "../../manager/index.js";
import type { Reconciler } from "../../reconcile/index.js";
import { isConflict } from "../../rest/index.js";
import { ControllerRevisionKind, DaemonSetSimulator } from "./daemonset.js";
import { DeploymentSimulator } from "./deployment.js";
import { KubeletSimulator } from "./kubelet.js";
import { registerNode } from "./node.js";
import { ReplicaSetSimulator } from "./replicaset.js";

export interface WorkloadSimulationOptions {
  /** How long a Pod takes to become ready. Default: 1000 ms. */
  podStartupMs?: number;
}

export function setupWorkloadSimulation(mgr: Manager, opts: WorkloadSimulationOptions = {}): void {
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
    .named("simulated-daemonset-controller")
    .for(kinds.DaemonSet)
    .owns(kinds.Pod)
    .owns(ControllerRevisionKind)
    // A node that comes, goes or changes labels or taints may change where every DaemonSet runs.
    .watches(
      kinds.Node,
      enqueueRequestsFromMapFunc(async () => {
        const list = await apiReader.list(kinds.DaemonSet);
        return list.items.map((ds) => ({
          namespace: ds.metadata?.namespace ?? "",
          name: ds.metadata?.name ?? "",
        }));
      }),
    )
    .complete(ignoreConflicts(new DaemonSetSimulator(client, apiReader)));
  // The kubelet registers its Node once; it then runs every Pod, whatever its node.
  mgr.add({
    start: async (signal: AbortSignal) => {
      await registerNode(client, signal);
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    },
    needLeaderElection: () => false,
  });
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
