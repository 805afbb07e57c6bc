// The MarkdownView operator's entry point, as the seed's cmd/main.go:
//   npx tsx examples/markdownview/main.ts --kubeconfig ~/.kube/config --leader-elect --zap-devel
// Install the CRD first: kubectl apply -f examples/markdownview/config/crd/
import { ping } from "controller-runtime/healthz";
import { loggerFromFlags } from "controller-runtime/log";
import { Manager, setupSignalHandler } from "controller-runtime/manager";
import { getConfig } from "controller-runtime/rest";
import { managerFlags, parseFlags } from "../shared/flags.js";
import { setupMarkdownViewController } from "./controller.js";

const flags = parseFlags(managerFlags);
const logger = loggerFromFlags();
const setupLog = logger.withName("setup");

try {
  const mgr = await Manager.create(getConfig({ kubeconfig: flags.kubeconfig }), {
    logger,
    metrics: { bindAddress: flags["metrics-bind-address"] },
    healthProbeBindAddress: flags["health-probe-bind-address"],
    leaderElection: flags["leader-elect"],
    leaderElectionID: "3ca5b296.zoetrope.github.io",
    leaderElectionReleaseOnCancel: true,
  });
  await setupMarkdownViewController(mgr, mgr.getClient());
  mgr.addHealthzCheck("healthz", ping);
  mgr.addReadyzCheck("readyz", ping);

  setupLog.info("starting manager");
  await mgr.start(setupSignalHandler());
} catch (err) {
  setupLog.error(err, "problem running manager");
  process.exitCode = 1;
}
