// Environment: a Kubernetes API server for tests, as controller-runtime's envtest.Environment.
// The embedded in-memory server by default; real etcd + kube-apiserver with KUBEBUILDER_ASSETS;
// the current kubeconfig's cluster with USE_EXISTING_CLUSTER=true.
import type { Faults } from "./faults/faults.js";
import { type FaultProxy, startFaultProxy } from "./fault-proxy.js";
import { type SettleOptions, settle } from "./settle.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { RESTConfig } from "../rest/index.js";
import { getConfig, renderKubeconfig } from "../rest/index.js";
import type { CertificateAuthority } from "../certs/index.js";
import { startControlPlane } from "./control-plane.js";
import { installCRDs, uninstallCRDs } from "./crd-install.js";
import { type RunningSimulation, type SimulationOptions, startSimulation } from "./simulation/cluster.js";
import { AccessRecord } from "./access-record.js";
import {
  type EmbeddedServer,
  type EmbeddedServerModule,
  type EmbeddedServerOptions,
  loadEmbeddedServer,
} from "./embedded-server.js";
import { readCRDs } from "../crd/manifest-files.js";
import { installRBAC, type RBACOptions } from "./rbac-manifests.js";
import { type EnvironmentMode, resolveSettings } from "./settings.js";
import {
  type InstalledWebhooks,
  installWebhooks,
  type LocalServing,
  prepareLocalServing,
  type WebhookInstallOptions,
  withLocalConversion,
} from "./webhook-install.js";

/** A user to add to a started environment (controller-runtime's envtest.User). */
export interface EnvtestUser {
  name: string;
  /** Default: none besides `system:authenticated`. */
  groups?: string[];
}

export interface EnvironmentOptions {
  /**
   * Puts a fault proxy in front of kube-apiserver or the existing cluster, so that `env.faults`
   * works there too (for the faults a proxy can make); every client reaches the server through it.
   * The embedded server always offers faults. Default: false.
   */
  faults?: boolean;
  /** CRD objects to install at start. Default: none. */
  crds?: CustomResourceDefinition[];
  /** Files and directories of CRD manifests (YAML or JSON) to install at start. Default: none. */
  crdDirectoryPaths?: string[];
  /** Fail when a CRD path does not exist. Default: false. */
  errorIfCRDPathMissing?: boolean;
  /** How long to wait for CRDs to be served. Default: 10 s. */
  crdInstallTimeoutMs?: number;
  /**
   * Delete the CRDs installed at start when the environment stops, and wait until they are gone
   * (controller-runtime's `CRDInstallOptions.CleanUpAfterUse`): for an existing cluster, which
   * otherwise keeps them. Default: false.
   */
  cleanUpCRDsAfterUse?: boolean;
  /** Use the cluster of the current kubeconfig. Default: `USE_EXISTING_CLUSTER`. */
  useExistingCluster?: boolean;
  /** Directory holding `etcd` and `kube-apiserver`. Default: `KUBEBUILDER_ASSETS`. */
  binaryAssetsDirectory?: string;
  /** Copy the control plane's output to stderr. Default: `KUBEBUILDER_ATTACH_CONTROL_PLANE_OUTPUT`. */
  attachControlPlaneOutput?: boolean;
  /** Default: `KUBEBUILDER_CONTROLPLANE_START_TIMEOUT`, else 60 s. */
  controlPlaneStartTimeoutMs?: number;
  /** Default: `KUBEBUILDER_CONTROLPLANE_STOP_TIMEOUT`, else 60 s. */
  controlPlaneStopTimeoutMs?: number;
  /** Options of the embedded API server (its default mode). Default: `{}`. */
  apiServer?: EmbeddedServerOptions;
  /**
   * Flags of kube-apiserver in the binaries mode (KUBEBUILDER_ASSETS), over envtest's own
   * (controller-runtime's `ControlPlane.APIServer.Configure().Set/Append/Disable`): a value sets
   * the flag, a list repeats it, `null` drops one of envtest's. Names without the dashes:
   * `{ "feature-gates": "MyGate=true" }`. The embedded server takes `apiServer` instead.
   * Default: none.
   */
  kubeAPIServerFlags?: Readonly<Record<string, string | readonly string[] | null>>;
  /** Environment variables to read. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * Webhooks to install at start, pointed at a local server with generated certificates (CRD
   * conversion webhooks too); read the address and certificate directory from
   * `webhookInstallOptions` after start. Default: none.
   */
  webhookInstallOptions?: WebhookInstallOptions;
  /**
   * An operator's RBAC manifests (kubebuilder's `config/rbac`) to install at start; `rbacConfig`
   * then authenticates as the ServiceAccount they bind, so a manager made with it has exactly
   * the operator's permissions and a missing rule fails with kube's 403. Default: none.
   */
  rbac?: RBACOptions;
  /**
   * Parts of kube-controller-manager a bare API server lacks, as controllers of this library
   * started with the environment: `garbageCollection`, `namespaceLifecycle`, and `workloads`
   * (Deployments get ReplicaSets, ReplicaSets get Pods, Pods become ready). They run the same on
   * the embedded server and on kube-apiserver. Default: none.
   */
  simulate?: SimulationOptions;
}

/** A started environment: what tests need to reach it. */
export interface StartedEnvironment {
  mode: EnvironmentMode;
  config: RESTConfig;
  /** Kubeconfig YAML for the environment's admin. */
  kubeconfig: string;
  /** A file holding `kubeconfig`, for kubectl and child processes. */
  kubeconfigPath: string;
  /** The embedded server, in the embedded mode. */
  apiServer?: EmbeddedServer;
  /** The CRDs installed at start, as the server returned them. */
  crds: CustomResourceDefinition[];
  /** With `rbac`: a config for the ServiceAccount the manifests bind, and its user name. */
  rbac?: { config: RESTConfig; user: string };
}

/** Thrown when the environment is used before `start()` or started twice. */
export class EnvironmentStateError extends Error {
  override readonly name = "EnvironmentStateError";
  readonly code = "ERR_ENVTEST_STATE";
}

export class Environment {
  readonly #opts: EnvironmentOptions;
  #started: StartedEnvironment | undefined;
  #stopControlPlane: (() => Promise<void>) | undefined;
  #simulation: RunningSimulation | undefined;
  #tempDir: string | undefined;
  #serving: LocalServing | undefined;
  #webhooks: InstalledWebhooks | undefined;
  #clientCa: CertificateAuthority | undefined;
  #faultProxy: FaultProxy | undefined;
  #embedded: EmbeddedServerModule | undefined;

  constructor(opts: EnvironmentOptions = {}) {
    this.#opts = opts;
  }

  /** The started environment; throws before `start()`. */
  get started(): StartedEnvironment {
    if (!this.#started) throw new EnvironmentStateError("envtest: call start() before using the environment");
    return this.#started;
  }

  /** The RESTConfig of the environment's admin; throws before `start()`. */
  get config(): RESTConfig {
    return this.started.config;
  }

  /**
   * Faults to inject into the API server's answers and watches, so that a test sees what its
   * operator does when the API server fails: `env.faults.inject({ match, action, times,
   * probability })` with the actions `faultError({ code, retryAfterSeconds })` (409, 429, 500,
   * 503, 504 as kube answers them), `latency(ms)`, `partition()` (a caller cut off until healed),
   * `dropWatch()`, `expireWatch()` (kube's 410), `holdEvents()`, `delayEvents(ms)`,
   * `duplicateEvents()` and `staleReads({ lagRV })` (reads at resourceVersion=0 answered from
   * the past, as a lagging watch cache does); and `restart()`, `compact()`, `stealLease()`,
   * `recordWrites()`, `clear()`. `faultMatrix` runs a scenario under each standard fault. The
   * embedded server acts them all out itself; in the other modes the Environment needs
   * `{ faults: true }` (a proxy in front of the server, which cannot compact or serve stale
   * reads), else this throws.
   */
  get faults(): Faults {
    const server = this.started.apiServer;
    if (server) return server.faults;
    if (this.#faultProxy) return this.#faultProxy.faults;
    throw new EnvironmentStateError(
      `envtest: faults in the ${this.started.mode} mode need a fault proxy: create the Environment with { faults: true }`,
    );
  }

  /**
   * Resolves once every informer in this process holds what the server holds, no controller has
   * a key ready or a reconcile running, and that held for a quiet moment: assert after it, not
   * after a sleep. Rejects with a `SettleTimeoutError` naming what had not settled.
   */
  settle(opts?: SettleOptions): Promise<void> {
    return settle(opts);
  }

  /** The local webhook serving address, certificates and installed configurations; throws
   * before `start()` or when no `webhookInstallOptions` were given. */
  get webhookInstallOptions(): InstalledWebhooks {
    if (!this.#started) throw new EnvironmentStateError("envtest: call start() before using the environment");
    if (!this.#webhooks) {
      throw new EnvironmentStateError("envtest: no webhookInstallOptions were given to the Environment");
    }
    return this.#webhooks;
  }

  /** Starts the API server (or connects to the existing cluster), installs CRDs, returns a config. */
  async start(): Promise<RESTConfig> {
    if (this.#started) throw new EnvironmentStateError("envtest: the environment is already started");
    const opts = this.#opts;
    const settings = resolveSettings(opts, opts.env ?? process.env);
    // Read CRD files first: a bad path fails before anything is started.
    const crds = [
      ...(opts.crds ?? []),
      ...readCRDs(opts.crdDirectoryPaths ?? [], opts.errorIfCRDPathMissing ?? false),
    ];
    this.#tempDir = mkdtempSync(join(tmpdir(), "envtest-kubeconfig-"));
    const kubeconfigPath = join(this.#tempDir, "kubeconfig");
    try {
      let config: RESTConfig;
      let kubeconfig: string;
      let apiServer: EmbeddedServer | undefined;
      if (settings.mode === "embedded") {
        this.#embedded = await loadEmbeddedServer();
        apiServer = await this.#embedded.start(opts.apiServer);
        this.#stopControlPlane = () => apiServer!.stop();
        config = apiServer.restConfig();
        kubeconfig = apiServer.kubeconfig;
        this.#clientCa = apiServer.certificateAuthority;
      } else if (settings.mode === "binaries") {
        const plane = await startControlPlane(settings, opts.kubeAPIServerFlags);
        this.#stopControlPlane = plane.stop;
        this.#clientCa = plane.clientCa;
        config = plane.config;
        kubeconfig = renderKubeconfig(config, "envtest");
      } else {
        config = getConfig({ env: opts.env ?? process.env });
        kubeconfig = renderKubeconfig(config, "envtest");
      }
      if (settings.mode !== "embedded" && opts.faults) {
        this.#faultProxy = await startFaultProxy(config);
        config = this.#faultProxy.config;
        kubeconfig = renderKubeconfig(config, "envtest");
      }
      // Managers made with this config default to free loopback ports and quiet logs.
      config = { ...config, testEnvironment: true };
      writeFileSync(kubeconfigPath, kubeconfig, { mode: 0o600 });
      const webhookOpts = opts.webhookInstallOptions;
      if (webhookOpts) this.#serving = await prepareLocalServing(webhookOpts);
      const toInstall = this.#serving ? withLocalConversion(crds, this.#serving) : crds;
      const installed = toInstall.length
        ? await installCRDs(config, toInstall, { maxTimeMs: opts.crdInstallTimeoutMs })
        : [];
      if (webhookOpts && this.#serving)
        this.#webhooks = await installWebhooks(config, webhookOpts, this.#serving);
      const rbac = opts.rbac ? await installRBAC(config, opts.rbac) : undefined;
      this.#simulation = opts.simulate ? await startSimulation(config, opts.simulate) : undefined;
      this.#started = {
        mode: settings.mode,
        config,
        kubeconfig,
        kubeconfigPath,
        apiServer,
        crds: installed,
        rbac,
      };
      return config;
    } catch (err) {
      await this.#teardown();
      throw err;
    }
  }

  /**
   * Stops what `start()` started. On an existing cluster the CRDs installed at start are left in
   * place, as controller-runtime's envtest leaves them.
   */
  async stop(): Promise<void> {
    await this.#teardown();
  }

  /** The config of the ServiceAccount the `rbac` manifests bind; throws without `rbac`. */
  get rbacConfig(): RESTConfig {
    const rbac = this.started.rbac;
    if (!rbac) throw new EnvironmentStateError("envtest: no rbac manifests were given to the Environment");
    return rbac.config;
  }

  /**
   * Starts recording what the API server allows (`user`'s requests only, when given) until the
   * record's `stop()`: turn it into the smallest ClusterRole (`clusterRoleYAML`) or check RBAC
   * manifests against it (`missingFrom`). Needs the embedded API server, which sees every
   * authorization; kube-apiserver keeps its decisions to itself.
   */
  recordAccess(user?: string): AccessRecord {
    const server = this.started.apiServer;
    const embedded = this.#embedded;
    if (!server || !embedded) {
      throw new EnvironmentStateError(
        "envtest: recording access needs the embedded API server (not KUBEBUILDER_ASSETS or an existing cluster)",
      );
    }
    return new AccessRecord(server.authorization, user, (objects) => embedded.rbacOver(objects));
  }

  /**
   * A RESTConfig authenticating as `user` (a client certificate the API server trusts: CN the
   * name, O the groups), as controller-runtime's `Environment.AddUser`. Such a user may do only
   * what RBAC grants it. Not available on an existing cluster, whose client CA is not ours.
   */
  async addUser(user: EnvtestUser): Promise<RESTConfig> {
    const base = this.config;
    if (!this.#clientCa) {
      throw new EnvironmentStateError(
        "envtest: addUser needs a control plane envtest started, not an existing cluster",
      );
    }
    const cert = await this.#clientCa.issueClient({ user: user.name, groups: user.groups ?? [] });
    return {
      ...base,
      tls: { ...base.tls, cert: cert.certPem, key: cert.keyPem },
      auth: {},
      source: `envtest user ${user.name}`,
    };
  }

  /** Installs further CRDs into the running environment and waits until they are served. */
  async installCRDs(crds: CustomResourceDefinition[]): Promise<CustomResourceDefinition[]> {
    return installCRDs(this.config, crds, { maxTimeMs: this.#opts.crdInstallTimeoutMs });
  }

  /** Deletes CRDs from the running environment and waits until they are gone. */
  async uninstallCRDs(crds: CustomResourceDefinition[]): Promise<void> {
    await uninstallCRDs(this.config, crds, { maxTimeMs: this.#opts.crdInstallTimeoutMs });
  }

  async #teardown(): Promise<void> {
    const crds = this.#started?.crds ?? [];
    if (this.#opts.cleanUpCRDsAfterUse && crds.length > 0 && this.#started) {
      await uninstallCRDs(this.#started.config, crds, { maxTimeMs: this.#opts.crdInstallTimeoutMs });
    }
    await this.#simulation?.stop();
    this.#simulation = undefined;
    const stopPlane = this.#stopControlPlane;
    this.#stopControlPlane = undefined;
    this.#started = undefined;
    await this.#faultProxy?.close();
    this.#faultProxy = undefined;
    if (stopPlane) await stopPlane();
    if (this.#tempDir) rmSync(this.#tempDir, { recursive: true, force: true });
    this.#tempDir = undefined;
    this.#serving?.cleanup();
    this.#serving = undefined;
    this.#webhooks = undefined;
    this.#clientCa = undefined;
  }
}
