// Seed 001's manager example: two controllers made from plain functions (reconcile.Func in Go),
// one for Pods and one for Deployments, that only log the requests they get, and a RunnableFunc
// the manager calls once it leads. Watching them shows when a reconciler is called: for every
// object at start (the informers' first list), then for every change.
import { kinds } from "../../src/api/index.js";
import { controllerManagedBy } from "../../src/builder/index.js";
import type { Logger } from "../../src/log/index.js";
import { type Manager, runnableFunc } from "../../src/manager/index.js";
import { reconcilerFn, requestKey } from "../../src/reconcile/index.js";

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
