// Seed 001's program: a Manager with the pod and deployment reconcilers and a RunnableFunc.
//   npx tsx examples/pods-deployments/main.ts --kubeconfig ~/.kube/config --zap-devel
// Then `kubectl run nginx --image=nginx` or `kubectl create deploy nginx --image=nginx` and watch.
import { ping } from "controller-runtime/healthz";
import { loggerFromFlags } from "controller-runtime/log";
import { Manager, setupSignalHandler } from "controller-runtime/manager";
import { getConfig } from "controller-runtime/rest";
import { managerFlags, parseFlags } from "../shared/flags.js";
import { setupPodsAndDeployments } from "./controllers.js";

const flags = parseFlags(managerFlags);
const logger = loggerFromFlags();
const setupLog = logger.withName("setup");

try {
  const mgr = await Manager.create(getConfig({ kubeconfig: flags.kubeconfig }), {
    logger,
    metrics: { bindAddress: flags["metrics-bind-address"] },
    healthProbeBindAddress: flags["health-probe-bind-address"],
    leaderElection: flags["leader-elect"],
    leaderElectionID: "63ffe61d.example.com",
    leaderElectionReleaseOnCancel: true,
  });
  setupPodsAndDeployments(mgr);
  mgr.addHealthzCheck("healthz", ping);
  mgr.addReadyzCheck("readyz", ping);

  setupLog.info("starting manager");
  await mgr.start(setupSignalHandler());
} catch (err) {
  setupLog.error(err, "problem running manager");
  process.exitCode = 1;
}
