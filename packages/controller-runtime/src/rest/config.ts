// RESTConfig: everything needed to reach one API server as one user, as client-go's rest.Config.
// Produced by getConfig() (kubeconfig, in-cluster) or by envtest; consumed by the transport.

/** An exec credential plugin (`users[].user.exec` in a kubeconfig). */
export interface ExecConfig {
  command: string;
  args?: string[];
  env?: { name: string; value: string }[];
  /** `client.authentication.k8s.io/v1` or `v1beta1`. */
  apiVersion: string;
  /** Shown when the command is missing. */
  installHint?: string;
  /** Whether the plugin receives cluster info in `KUBERNETES_EXEC_INFO`. Default: false. */
  provideClusterInfo?: boolean;
  /** `Never`, `IfAvailable` or `Always`. Default: `IfAvailable`. */
  interactiveMode?: string;
  /**
   * The cluster's `client.authentication.k8s.io/exec` extension, handed to the plugin as
   * `spec.cluster.config` when `provideClusterInfo` is set. Default: none.
   */
  clusterConfig?: unknown;
  /** How long one run of the plugin may take before it is killed, in ms. Default: 60000. */
  timeoutMs?: number;
}

export interface TLSConfig {
  /** PEM of the CAs that sign the server's certificate. Default: the system's roots. */
  ca?: string;
  /** PEM client certificate and key, for client-certificate authentication. */
  cert?: string;
  key?: string;
  /** Skips server certificate verification. Default: false. */
  insecureSkipVerify?: boolean;
  /** The name to verify the server's certificate against, when it differs from the host. */
  serverName?: string;
}

export interface AuthConfig {
  bearerToken?: string;
  /** A token file re-read as it rotates (service-account tokens). Wins over `bearerToken`. */
  bearerTokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
}

export interface RESTConfig {
  /** `https://host:port`, optionally with a path prefix. */
  host: string;
  tls: TLSConfig;
  auth: AuthConfig;
  /** An HTTP(S) proxy for every request. Default: none. */
  proxyUrl?: string;
  /** Default: `controller-runtime/<version> (<platform>/<arch>) node/<version>`. */
  userAgent?: string;
  /** Client-side rate limit, requests per second. Default: off (as controller-runtime ≥ 0.21). */
  qps?: number;
  /** Burst for `qps`. Default: 10 when `qps` is set. */
  burst?: number;
  /** Per-request timeout in milliseconds for non-streaming calls. Default: none. */
  timeoutMs?: number;
  /** The default namespace of the selected context (or of the in-cluster Pod). */
  namespace?: string;
  /** Where this config came from (a kubeconfig path and context, or "in-cluster"), for errors. */
  source?: string;
  /**
   * Set by envtest: a Manager made with this config defaults to a free loopback port for metrics
   * (two test files running managers cannot collide on :8080) and logs errors only. Default: false.
   */
  testEnvironment?: boolean;
  /**
   * How REST clients made from this config send and read built-in kinds (client-go's
   * `rest.Config.ContentType`): kube's protobuf, or JSON. Custom resources and patches are
   * always JSON. Default: `application/vnd.kubernetes.protobuf`, as controller-runtime.
   */
  contentType?: "application/vnd.kubernetes.protobuf" | "application/json";
}
