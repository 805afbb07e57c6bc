// The StorageBucket operator's entry point, as kubebuilder's cmd/main.go:
//   npx tsx examples/storagebucket/main.ts --kubeconfig ~/.kube/config --leader-elect --zap-devel
// Install the CRD first: kubectl apply -f examples/storagebucket/config/crd/
import { getConfig } from "controller-runtime/rest";
import { ping } from "controller-runtime/healthz";
import { loggerFromFlags } from "controller-runtime/log";
import { Manager, setupSignalHandler } from "controller-runtime/manager";
import { managerFlags, parseDuration, parseFlags } from "../shared/flags.js";
import { setupStorageBucketController } from "./controller.js";

const flags = parseFlags({ ...managerFlags, "probe-interval": { type: "string", default: "10s" } });
const logger = loggerFromFlags();
const setupLog = logger.withName("setup");

try {
  const mgr = await Manager.create(getConfig({ kubeconfig: flags.kubeconfig }), {
    logger,
    metrics: { bindAddress: flags["metrics-bind-address"] },
    healthProbeBindAddress: flags["health-probe-bind-address"],
    leaderElection: flags["leader-elect"],
    leaderElectionID: "5d3c8f1e.storage.example.com",
    // The replica stepping down hands over at once instead of after a lease duration.
    leaderElectionReleaseOnCancel: true,
  });
  setupStorageBucketController(mgr, mgr.getClient(), {
    probeIntervalMs: parseDuration("probe-interval", flags["probe-interval"]),
  });
  mgr.addHealthzCheck("healthz", ping);
  mgr.addReadyzCheck("readyz", ping);

  setupLog.info("starting manager");
  await mgr.start(setupSignalHandler());
} catch (err) {
  setupLog.error(err, "problem running manager");
  process.exitCode = 1;
}
