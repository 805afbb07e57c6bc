// A manager in its own process, for the SIGTERM test: a controller whose reconcile takes a while
// and marks the object when it finishes, leader election with release on cancel.
import { controllerManagedBy } from "controller-runtime/builder";
import { kinds } from "controller-runtime/api";
import { nullLogger } from "controller-runtime/log";
import { Manager, setupSignalHandler } from "controller-runtime/manager";
import { funcs } from "controller-runtime/predicate";
import { getConfig } from "controller-runtime/rest";

const config = getConfig();
const mgr = await Manager.create(config, {
  logger: nullLogger(),
  metrics: { bindAddress: "0" },
  leaderElection: true,
  leaderElectionID: "sigterm-test",
  leaderElectionIdentity: "sigterm-child",
  leaderElectionReleaseOnCancel: true,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
});
controllerManagedBy(mgr)
  .for(kinds.ConfigMap, {
    predicates: [funcs({ create: (e) => e.object.metadata?.namespace === "sigterm" })],
  })
  .complete({
    async reconcile(req) {
      process.stdout.write(`reconcile started ${req.name}\n`);
      // Long enough for the parent to send SIGTERM meanwhile; not aborted by it on purpose.
      await new Promise((r) => setTimeout(r, 1_000));
      const cm = await mgr.getAPIReader().get(kinds.ConfigMap, req);
      await mgr.getClient().update({
        ...cm,
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { ...cm.metadata, annotations: { done: "true" } },
      });
      process.stdout.write(`reconcile finished ${req.name}\n`);
    },
  });
await mgr.start(setupSignalHandler());
process.stdout.write("manager stopped\n");
