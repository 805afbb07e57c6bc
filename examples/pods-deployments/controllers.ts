// Seed 001's manager example: two controllers made from plain functions (reconcile.Func in Go),
// one for Pods and one for Deployments, that only log the requests they get, and a RunnableFunc
// the manager calls once it leads. Watching them shows when a reconciler is called: for every
// object at start (the informers' first list), then for every change.
import { kinds } from "controller-runtime/api";
import { controllerManagedBy } from "controller-runtime/builder";
import type { Logger } from "controller-runtime/log";
import { type Manager, runnableFunc } from "controller-runtime/manager";
import { reconcilerFn, requestKey } from "controller-runtime/reconcile";

export function setupPodsAndDeployments(
  mgr: Manager,
  log: Logger = mgr.getLogger().withName("manager-examples"),
): void {
  const podReconciler = reconcilerFn((req) => {
    log.info("podReconciler is called", { req: requestKey(req) });
  });
  const deploymentReconciler = reconcilerFn((req) => {
    log.info("deploymentReconciler is called", { req: requestKey(req) });
  });

  controllerManagedBy(mgr).for(kinds.Pod).complete(podReconciler);
  controllerManagedBy(mgr).for(kinds.Deployment).complete(deploymentReconciler);

  mgr.add(
    runnableFunc(async () => {
      log.info("RunnableFunc is called");
    }),
  );
}
