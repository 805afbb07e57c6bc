// What envtest's `simulate` option starts beside the API server: kube-controller-manager's parts
// a test may need, as controllers of this library on their own Manager, so that they behave the
// same on the embedded server and on kube-apiserver. Off unless asked for.
import { nullLogger } from "../../log/index.js";
import { Manager } from "../../manager/index.js";
import { newRESTClient, type RESTConfig } from "../../rest/index.js";
import { GarbageCollector } from "./garbage-collector.js";
import { setupNamespaceDefaults } from "./namespace-defaults.js";
import { setupStorageProtection } from "./storage-protection.js";
import { setupNamespaceLifecycle } from "./namespace-lifecycle.js";
import { setupResourceQuotaController } from "./resource-quota.js";
import { setupWorkloadSimulation, type WorkloadSimulationOptions } from "./workloads.js";

export interface SimulationOptions {
  /**
   * Owners' dependents deleted when the owners go (background, foreground, orphan); the storage
   * protection finalizers lifted from what is deleted once nothing uses it.
   */
  garbageCollection?: boolean;
  /**
   * A deleted namespace emptied, then removed (not left Terminating); every namespace given its
   * `default` ServiceAccount and `kube-root-ca.crt` ConfigMap.
   */
  namespaceLifecycle?: boolean;
  /** Deployments → ReplicaSets → Pods that become ready (`{ podStartupMs }`, default 1000). */
  workloads?: boolean | WorkloadSimulationOptions;
  /**
   * ResourceQuotas' status kept as kube-controller-manager's resource quota controller keeps it:
   * status.hard from spec.hard, status.used recomputed from the namespace's objects.
   */
  resourceQuota?: boolean;
}

export interface RunningSimulation {
  stop(): Promise<void>;
}

/** Starts the parts `opts` asks for; resolves once their caches have synced. */
export async function startSimulation(
  config: RESTConfig,
  opts: SimulationOptions,
): Promise<RunningSimulation | undefined> {
  if (!opts.garbageCollection && !opts.namespaceLifecycle && !opts.workloads && !opts.resourceQuota) {
    return undefined;
  }
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    healthProbeBindAddress: "0",
  });
  const rest = newRESTClient(config);
  if (opts.workloads) setupWorkloadSimulation(mgr, opts.workloads === true ? {} : opts.workloads);
  if (opts.namespaceLifecycle) {
    setupNamespaceLifecycle(mgr, rest);
    setupNamespaceDefaults(mgr, config.tls.ca);
  }
  if (opts.resourceQuota) setupResourceQuotaController(mgr, rest);
  if (opts.garbageCollection) {
    const gc = new GarbageCollector(config, rest, nullLogger());
    mgr.add({ start: (signal: AbortSignal) => gc.start(signal), needLeaderElection: () => false });
    setupStorageProtection(mgr);
  }
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await Promise.race([mgr.getCache().waitForCacheSync(stop.signal), running]);
  return {
    async stop() {
      stop.abort();
      await running.catch(() => {});
      await rest.close();
    },
  };
}
