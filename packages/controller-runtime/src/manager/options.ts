// Manager options, named as controller-runtime's manager.Options, with every default applied in
// one place (resolveManagerOptions). Durations are milliseconds.
import type { CacheOptions } from "../cache/index.js";
import type { ClientOptions as ClusterClientOptions, ClusterOptions } from "../cluster/options.js";
import {
  type ResolvedShardingOptions,
  resolveShardingOptions,
  type ShardingOptions,
} from "../sharding/sharding.js";
import type { ControllerDefaults } from "../controller/index.js";
import type { CertWatcher } from "../certwatcher/index.js";
import type { HTTPHandler, MetricsFilterProvider, MetricsTLSOptions } from "../metrics/index.js";
import type { ResourceLock } from "../leaderelection/index.js";
import { type Logger, newLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/index.js";
import type { WebhookServer, WebhookServerOptions } from "../webhook/index.js";

export interface MetricsOptions {
  /** `:8080`, `127.0.0.1:8080`, `:0` (a free port), or `"0"` to disable. Default: `":8080"`. */
  bindAddress?: string;
  /** More handlers on the metrics server (pprof-like endpoints). Default: none. */
  extraHandlers?: Record<string, HTTPHandler>;
  /** Serve HTTPS, with the certificate in `certDir` or a self-signed one. Default: false. */
  secureServing?: boolean;
  /** Directory of `certName` and `keyName`. Default: none (a self-signed certificate). */
  certDir?: string;
  /** Default: `tls.crt`. */
  certName?: string;
  /** Default: `tls.key`. */
  keyName?: string;
  /** Further TLS settings (`minVersion`, `ciphers`, ...), controller-runtime's `Metrics.TLSOpts`. Default: none. */
  tlsOpts?: MetricsTLSOptions;
  /**
   * Serve this watcher's certificate, following its rotations, instead of reading `certDir`
   * (Go's `TLSOpts` setting `GetCertificate` to a certwatcher's); run it with `mgr.add(watcher)`.
   * Default: none.
   */
  certWatcher?: CertWatcher;
  /**
   * Checks callers before every request, built from the manager's API client: give
   * `withAuthenticationAndAuthorization()` to let only identities RBAC allows `get` on
   * `/metrics` scrape. Default: none.
   */
  filterProvider?: MetricsFilterProvider;
}

/** Options of the manager's client: those of `newClient` that are not the manager's own parts. */
export type ClientOptions = ClusterClientOptions;

export interface ManagerOptions
  extends Pick<ClusterOptions, "newCache" | "newClient" | "mapperProvider" | "eventBroadcaster"> {
  /** Default: JSON logs to stdout at info (`newLogger()`); with a config from envtest, errors only. */
  logger?: Logger;
  /** Options of the shared cache. Default: `{}` (all namespaces, 10 h resync). */
  cache?: CacheOptions;
  /** Options of the client `getClient()` returns. Default: `{}`. */
  client?: ClientOptions;

  /** Run leader-elected runnables only while this replica holds the Lease. Default: false. */
  leaderElection?: boolean;
  /** Name of the Lease. Required with `leaderElection`. */
  leaderElectionID?: string;
  /** Namespace of the Lease. Default: the in-cluster namespace, else `default`. */
  leaderElectionNamespace?: string;
  /** This replica's identity in the Lease. Default: `<hostname>_<uuid>`. */
  leaderElectionIdentity?: string;
  /** Give the Lease up on shutdown so a successor takes over within a retry period. Default: false. */
  leaderElectionReleaseOnCancel?: boolean;
  /**
   * Labels on the Lease, set when it is created and on each renewal (labels others set are kept),
   * as controller-runtime's `LeaderElectionLabels`. Default: none.
   */
  leaderElectionLabels?: Record<string, string>;
  /**
   * A lock of your own instead of the Lease (controller-runtime's
   * `LeaderElectionResourceLockInterface`), e.g. `newFakeResourceLock()` in tests. The ID,
   * namespace, identity and labels options then do not apply. Default: a Lease lock.
   */
  leaderElectionResourceLockInterface?: ResourceLock;
  /**
   * The API server (and credentials) the Lease is taken on, when not the Manager's (Go's
   * `LeaderElectionConfig`): replicas reconciling one cluster can elect through another.
   * Default: the Manager's config.
   */
  leaderElectionConfig?: RESTConfig;
  /** Default: 15 000 ms. */
  leaseDurationMs?: number;
  /** Default: 10 000 ms. */
  renewDeadlineMs?: number;
  /** Default: 2 000 ms. */
  retryPeriodMs?: number;
  /** @deprecated Use `leaseDurationMs` (durations are named with their unit); removed in the next release. */
  leaseDuration?: number;
  /** @deprecated Use `renewDeadlineMs`; removed in the next release. */
  renewDeadline?: number;
  /** @deprecated Use `retryPeriodMs`; removed in the next release. */
  retryPeriod?: number;

  /** Address of `/healthz` and `/readyz`, e.g. `:8081`; `"0"` or empty disables. Default: `"0"`. */
  healthProbeBindAddress?: string;
  /**
   * Address of the profiling endpoints (`/debug/pprof/profile?seconds=N`, `/debug/pprof/heap`,
   * `/debug/pprof/heapstats`), e.g. `127.0.0.1:8082`; `"0"` or empty disables. V8's formats
   * (.cpuprofile, .heapsnapshot), not Go's pprof. Default: `"0"`.
   */
  pprofBindAddress?: string;
  /** Default: `/readyz`. */
  readinessEndpointName?: string;
  /** Default: `/healthz`. */
  livenessEndpointName?: string;
  /**
   * The Prometheus metrics server. Default: `{ bindAddress: ":8080" }`; with a config from envtest,
   * `{ bindAddress: "127.0.0.1:0" }` (a free loopback port).
   */
  metrics?: MetricsOptions;

  /** How long shutdown may take before `start()` rejects with a timeout. Default: 30 000 ms. */
  gracefulShutdownTimeoutMs?: number;
  /** @deprecated Use `gracefulShutdownTimeoutMs`; removed in the next release. */
  gracefulShutdownTimeout?: number;
  /** Defaults for controllers built on this manager. Default: `{}`. */
  controller?: ControllerDefaults;
  /**
   * The webhook server `getWebhookServer()` returns: a server, or options for one made on first
   * use (port 9443, certificates from `<tmpdir>/k8s-webhook-server/serving-certs`). Default: `{}`.
   */
  webhookServer?: WebhookServer | WebhookServerOptions;
  /**
   * Share the objects of sharded controllers (`for(Kind, { sharded: true })`) with the other
   * replicas in the same ring, each reconciling its part. Default: none.
   */
  sharding?: ShardingOptions;
}

export interface ResolvedManagerOptions
  extends Pick<ClusterOptions, "newCache" | "newClient" | "mapperProvider" | "eventBroadcaster"> {
  logger: Logger;
  cache: CacheOptions;
  client: ClientOptions;
  leaderElection: boolean;
  leaderElectionID: string;
  leaderElectionNamespace: string;
  leaderElectionIdentity: string | undefined;
  leaderElectionReleaseOnCancel: boolean;
  leaderElectionLabels: Record<string, string> | undefined;
  leaderElectionResourceLockInterface: ResourceLock | undefined;
  leaderElectionConfig: RESTConfig | undefined;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  healthProbeBindAddress: string;
  pprofBindAddress: string;
  readinessEndpointName: string;
  livenessEndpointName: string;
  metrics: Required<Pick<MetricsOptions, "bindAddress">> & MetricsOptions;
  gracefulShutdownTimeoutMs: number;
  controller: ControllerDefaults;
  webhookServer: WebhookServer | WebhookServerOptions;
  sharding: ResolvedShardingOptions | undefined;
}

/** Thrown by Manager.create for options that cannot work; the message says which and why. */
export class ManagerOptionsError extends Error {
  override readonly name = "ManagerOptionsError";
  readonly code = "ERR_MANAGER_OPTIONS";
}

export function resolveManagerOptions(
  opts: ManagerOptions,
  config: Pick<RESTConfig, "namespace" | "testEnvironment"> = {},
): ResolvedManagerOptions {
  const configNamespace = config.namespace;
  // Under envtest: free loopback ports and errors-only logs, unless the options ask otherwise.
  const forTests = config.testEnvironment === true;
  const leaderElection = opts.leaderElection ?? false;
  if (leaderElection && !opts.leaderElectionID && !opts.leaderElectionResourceLockInterface) {
    throw new ManagerOptionsError(
      "manager: leaderElection needs leaderElectionID, the name of the Lease replicas compete for " +
        '(kubebuilder uses "<hash>.<domain>")',
    );
  }
  const leaseDurationMs = opts.leaseDurationMs ?? opts.leaseDuration ?? 15_000;
  const renewDeadlineMs = opts.renewDeadlineMs ?? opts.renewDeadline ?? 10_000;
  const retryPeriodMs = opts.retryPeriodMs ?? opts.retryPeriod ?? 2_000;
  const leaderElectionNamespace = opts.leaderElectionNamespace ?? configNamespace ?? "default";
  let sharding: ResolvedShardingOptions | undefined;
  try {
    sharding =
      opts.sharding &&
      resolveShardingOptions(opts.sharding, {
        leaseDurationMs,
        renewDeadlineMs,
        retryPeriodMs,
        namespace: leaderElectionNamespace,
      });
  } catch (err) {
    throw new ManagerOptionsError((err as Error).message);
  }
  return {
    logger: opts.logger ?? newLogger(forTests ? { level: "error" } : {}),
    cache: opts.cache ?? {},
    client: opts.client ?? {},
    newCache: opts.newCache,
    newClient: opts.newClient,
    mapperProvider: opts.mapperProvider,
    eventBroadcaster: opts.eventBroadcaster,
    leaderElection,
    leaderElectionID: opts.leaderElectionID ?? "",
    leaderElectionNamespace,
    leaderElectionIdentity: opts.leaderElectionIdentity,
    leaderElectionReleaseOnCancel: opts.leaderElectionReleaseOnCancel ?? false,
    leaderElectionLabels: opts.leaderElectionLabels,
    leaderElectionResourceLockInterface: opts.leaderElectionResourceLockInterface,
    leaderElectionConfig: opts.leaderElectionConfig,
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
    healthProbeBindAddress: opts.healthProbeBindAddress ?? "0",
    pprofBindAddress: opts.pprofBindAddress || "0",
    readinessEndpointName: opts.readinessEndpointName ?? "/readyz",
    livenessEndpointName: opts.livenessEndpointName ?? "/healthz",
    metrics: {
      ...opts.metrics,
      bindAddress: opts.metrics?.bindAddress ?? (forTests ? "127.0.0.1:0" : ":8080"),
    },
    gracefulShutdownTimeoutMs: opts.gracefulShutdownTimeoutMs ?? opts.gracefulShutdownTimeout ?? 30_000,
    controller: opts.controller ?? {},
    webhookServer: opts.webhookServer ?? {},
    sharding,
  };
}
