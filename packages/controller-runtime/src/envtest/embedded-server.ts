// The one door between envtest and the embedded API server. The server is a package of its own
// (`controller-runtime-apiserver`, a dev dependency: an operator in production never starts it);
// envtest loads it only in its embedded mode, and reaches it only through the interface below.
// Everything envtest does with the server — start it, stop it, restart it on the same storage,
// act out faults, record what it authorized, run the cluster simulation against it — goes
// through this file's types; the server's own modules are never imported from here.
import type { CertificateAuthority } from "../certs/index.js";
import type { RESTConfig } from "../rest/index.js";
import type { Faults } from "./faults/faults.js";

/** The package that holds the embedded API server. */
export const EMBEDDED_SERVER_PACKAGE = "controller-runtime-apiserver";

/** The user a request came from, as the server authenticated it. */
export interface AccessUser {
  name: string;
  groups: string[];
}

/** kube's authorizer.Attributes: who asks to do what to which object or path. */
export interface AccessAttributes {
  user: AccessUser;
  verb: string;
  /** False for paths outside `/api/{v}/…` and `/apis/{g}/{v}/…` (discovery, health, openapi). */
  resourceRequest: boolean;
  /** The request path (for non-resource requests). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

/** An authorizer's answer. */
export interface AccessDecider {
  decide(a: AccessAttributes): { allowed: boolean };
}

/** What the embedded server authorizes, as it happens (for envtest's AccessRecord). */
export interface AccessAuthority extends AccessDecider {
  /** Calls `listener` with every request the server authorized; returns the unsubscribe. */
  onAccess(listener: (a: AccessAttributes) => void): () => void;
}

/**
 * The server's storage, opaque to envtest: handed back in `storage` to restart a server on
 * what an earlier one held.
 */
export interface EmbeddedStorage {
  /** The newest resourceVersion written. */
  readonly resourceVersion: number;
}

/** Options of the embedded API server (a kube-apiserver takes most of these as flags). */
export interface EmbeddedServerOptions {
  /** Default: 0 (any free port). */
  port?: number;
  /** Default: 127.0.0.1. */
  host?: string;
  /** Serve HTTP/2 besides HTTP/1.1. Default: true. */
  http2?: boolean;
  /** Where to write the admin kubeconfig. Default: nowhere. */
  kubeconfigPath?: string;
  /** A stopped server's storage, to start on what it held. Default: empty. */
  storage?: EmbeddedStorage;
  /** The CA that signs the serving and client certificates. Default: a new one. */
  certificateAuthority?: CertificateAuthority;
  /** The admin's bearer token. Default: random. */
  adminToken?: string;
  /** More bearer-token users. */
  users?: { token: string; name: string; groups?: string[] }[];
  /** `RBAC` (as `--authorization-mode=RBAC`) or `AlwaysAllow`. Default: RBAC. */
  authorization?: "RBAC" | "AlwaysAllow";
  /** Runs kube's garbage collector inside the server. Default: false. */
  garbageCollection?: boolean;
  /** How long a new CRD takes to be Established. Default: 0. */
  crdEstablishDelayMs?: number;
  /** Events kept for watches from an older resourceVersion. */
  historySize?: number;
  /** etcd's quota: writes beyond it fail as kube's do. */
  storageQuotaBytes?: number;
  /** Largest request body. Default: 3 MiB, as kube-apiserver. */
  maxBodyBytes?: number;
  /** A slow watcher's buffer before it is cut off. */
  watchBufferBytes?: number;
  /** Between BOOKMARK events. Default: 60 s. */
  bookmarkIntervalMs?: number;
  /** A watch's timeout when the client gives none. Default: 1800 s. */
  defaultWatchTimeoutSeconds?: number;
  /** Called with errors no request could be answered with. Default: console.error. */
  onError?: (err: unknown) => void;
  /** Where a webhook's `clientConfig.service` is reached: its URL. */
  serviceResolver?: (service: { namespace: string; name: string; port: number }) => string;
  /** Further options of the server's own; see its package. */
  [option: string]: unknown;
}

/** A running embedded API server, as envtest uses it. */
export interface EmbeddedServer {
  readonly url: string;
  readonly port: number;
  readonly caPem: string;
  readonly adminToken: string;
  /** The admin's kubeconfig, YAML. */
  readonly kubeconfig: string;
  readonly kubeconfigPath: string | undefined;
  readonly certificateAuthority: CertificateAuthority;
  /** What it holds; pass it to a new server to restart on it. */
  readonly storage: EmbeddedStorage;
  /** Faults the server acts out itself. */
  readonly faults: Faults;
  /** What it authorizes, as it happens. */
  readonly authorization: AccessAuthority;
  restConfig(): RESTConfig;
  stop(): Promise<void>;
}

/** What the server package exports for envtest (its `embeddedServer`). */
export interface EmbeddedServerModule {
  start(opts?: EmbeddedServerOptions): Promise<EmbeddedServer>;
  /** RBAC as kube-apiserver decides it, over `objects` (Roles, ClusterRoles and their bindings) alone. */
  rbacOver(objects: readonly Record<string, unknown>[]): AccessDecider;
}

/** Thrown when the embedded mode is asked for and the server package is not installed. */
export class EmbeddedServerMissingError extends Error {
  override readonly name = "EmbeddedServerMissingError";
  readonly code = "ERR_ENVTEST_NO_EMBEDDED_SERVER";
}

let loaded: Promise<EmbeddedServerModule> | undefined;

/** The server package, loaded once; a clear error when it is not installed. */
export function loadEmbeddedServer(): Promise<EmbeddedServerModule> {
  loaded ??= import(EMBEDDED_SERVER_PACKAGE).then(
    (m: { embeddedServer?: EmbeddedServerModule }) => {
      if (!m.embeddedServer) {
        throw new EmbeddedServerMissingError(
          `envtest: ${EMBEDDED_SERVER_PACKAGE} does not export embeddedServer: install the version that matches controller-runtime`,
        );
      }
      return m.embeddedServer;
    },
    (err: unknown) => {
      loaded = undefined;
      if (
        (err as { code?: string }).code === "ERR_MODULE_NOT_FOUND" &&
        String(err).includes(EMBEDDED_SERVER_PACKAGE)
      ) {
        throw new EmbeddedServerMissingError(
          `envtest: the embedded API server is not installed: run \`npm install --save-dev ${EMBEDDED_SERVER_PACKAGE}\`, or point KUBEBUILDER_ASSETS at kube-apiserver and etcd, or set USE_EXISTING_CLUSTER=true`,
          { cause: err },
        );
      }
      throw err;
    },
  );
  return loaded;
}
