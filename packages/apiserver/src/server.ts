// The embedded API server: HTTPS on loopback with a generated CA, authentication, and the router.
// start resolves once listening; stop() ends watches and destroys every connection.
import { randomBytes } from "node:crypto";
import { setMaxListeners } from "node:events";
import { chmod, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createSecureServer } from "node:http2";
import { createServer } from "node:https";
import { AnswerResponse, Http2AnswerResponse } from "./answer-response.js";
import { checkRequestTimeout } from "./request-timeout.js";
import { Faults } from "controller-runtime/envtest/faults";
import { storageHost } from "./fault-host.js";
import type { AddressInfo, Socket } from "node:net";
import { type CertificateAuthority, newCertificateAuthority, type KeyPair } from "controller-runtime/certs";
import type { RESTConfig } from "controller-runtime/rest";
import {
  Authenticator,
  ImpersonationModes,
  impersonate,
  ServiceAccountTokens,
  type TokenUser,
} from "./authn/index.js";
import { Admission, clusterDnsResolver, type ServiceResolver } from "./admission/index.js";
import {
  Authorization,
  type AuthorizationMode,
  ClusterRoleAggregator,
  deferBootstrapPolicy,
  forbiddenError,
  requestAttributes,
  seedBootstrapPolicy,
} from "./authz/index.js";
import { createHooks } from "./controllers/hooks.js";
import { Conversion } from "./conversion/index.js";
import { crdStore } from "./controllers/crd.js";
import type { ServerContext, ServerLimits, UserInfo } from "./handlers/context.js";
import { sendError } from "./http-io.js";
import { kubeconfigYaml } from "./kubeconfig.js";
import { OpenAPIService } from "./openapi/index.js";
import { builtinResources, Registry } from "./registry/index.js";
import {
  MalformedTargetError,
  type RequestTarget,
  requestTarget,
  sendMalformedTarget,
} from "./request-path.js";
import { route } from "./router.js";
import { TypeModels } from "./apply/index.js";
import { defaultWatchCacheSize, type WatchCacheSize, WatchWindows } from "./handlers/watch-windows.js";
import { objectMetaSchema, PatternCache, type Schema } from "./schema/index.js";
import { seed, seedServing } from "./seed.js";
import { ApiError } from "./status.js";
import { Storage } from "./storage/index.js";

/** Go's http.DefaultMaxHeaderBytes and the 4 KiB its server reads beyond it. */
const MAX_HEADER_BYTES = (1 << 20) + 4096;

export interface APIServerOptions {
  /** Default: 0, a free port. */
  port?: number;
  /** Default: `127.0.0.1`. */
  host?: string;
  /**
   * Whether HTTP/2 is offered by ALPN beside HTTP/1.1, as kube-apiserver offers it (kubectl and
   * client-go take it, and multiplex their watches over one connection). Default: true.
   */
  http2?: boolean;
  /** Writes the admin kubeconfig there (mode 0600). Default: not written. */
  kubeconfigPath?: string;
  /** Objects to serve; pass a previous server's `storage` to restart with the same data.
   * Default: a new, empty storage with the system namespaces. */
  storage?: Storage;
  /** Reuse a CA (a previous server's `certificateAuthority`) so clients keep trusting the server.
   * Sharing one CA between servers also saves its generation at start (about 6 ms warm, 25-60 ms
   * in a fresh process), but then each server accepts client certificates the others issued.
   * Default: a new CA. */
  certificateAuthority?: CertificateAuthority;
  /** The admin's bearer token. Default: random. */
  adminToken?: string;
  /** Further users authenticated by bearer token. Default: none. */
  users?: TokenUser[];
  /** The `iss` of ServiceAccount tokens, and the audience tokens must name to authenticate here
   * (`--service-account-issuer`, `--api-audiences`). Default: `https://kubernetes.default.svc.cluster.local`. */
  serviceAccountIssuer?: string;
  /** The key ServiceAccount tokens are signed with (PKCS#8 PEM, EC P-256); pass a previous
   * server's `serviceAccountSigningKey` so its tokens stay valid. Default: a new key. */
  serviceAccountSigningKey?: string;
  /**
   * Who may do what. `RBAC`, as kube-apiserver with `--authorization-mode=RBAC`: members of
   * `system:masters` (the admin) may do anything, others what Roles and bindings grant, starting
   * from kube's bootstrap policy. `AlwaysAllow`: every authenticated user may do anything.
   * Default: `RBAC`.
   */
  authorization?: AuthorizationMode;
  /** Owner-reference garbage collection, as kube-controller-manager does it. Default: false. */
  garbageCollection?: boolean;
  /**
   * How long a created or changed CRD takes to be served (and to show in discovery and OpenAPI),
   * in ms. kube-apiserver takes about a second; a test that uses a CRD right after writing it
   * passes here and fails on a cluster unless it waits (`eventually()`). Set this to catch such
   * tests locally. Default: 0, at once.
   */
  crdEstablishDelayMs?: number;
  /** Changes kept for watch replay and paged lists. Default: 20000. */
  historySize?: number;
  /**
   * Bytes (of JSON) all objects may take together, as etcd's quota: a write past it fails with
   * "etcdserver: mvcc: database space exceeded". Objects are limited as etcd limits them (1.5 MiB).
   * Default: 256 MiB.
   */
  storageQuotaBytes?: number;
  /** Default: 3 MiB (3145728 bytes), as kube-apiserver. */
  maxBodyBytes?: number;
  /** Unsent bytes after which a watcher is cut off: when they stay above this for a second, or
   * reach four times it. Default: 16 MiB. */
  watchBufferBytes?: number;
  /** Period of BOOKMARK events for watches that allow them. Default: 60000 ms. */
  bookmarkIntervalMs?: number;
  /** Watch length without `timeoutSeconds`. Default: 1800 s. */
  defaultWatchTimeoutSeconds?: number;
  /**
   * What each resource's watch cache keeps; a watch from before it is 410 Expired. Default: kube's
   * (the newest 100 events and all of the last 75 s, at most 102 400).
   */
  watchCacheSize?: Partial<WatchCacheSize>;
  /** Unexpected errors (a bug, never bad input). Default: printed to stderr. */
  onError?: (err: unknown) => void;
  /**
   * Where webhooks given as `clientConfig.service` are reached (admission and CRD conversion):
   * answers a base URL such as `https://127.0.0.1:9443`; TLS still checks the name
   * `<name>.<namespace>.svc`. Default: `https://<name>.<namespace>.svc:<port>`, which resolves
   * only inside a cluster.
   */
  serviceResolver?: ServiceResolver;
}

export interface RunningAPIServer {
  /** `https://127.0.0.1:PORT`. */
  url: string;
  port: number;
  caPem: string;
  /** Bearer token of an admin in `system:masters`. */
  adminToken: string;
  /** The admin's client certificate (CN admin, O system:masters). */
  adminCertificate: KeyPair;
  /** Kubeconfig YAML: the admin, with client-certificate authentication. */
  kubeconfig: string;
  kubeconfigPath: string | undefined;
  /** Everything stored; give it to a new server to restart with the same data. */
  storage: Storage;
  /** The authorizer: what it decides, and listeners to what it allowed. */
  authorization: Authorization;
  /** The key ServiceAccount tokens are signed with (PKCS#8 PEM). */
  serviceAccountSigningKey: string;
  certificateAuthority: CertificateAuthority;
  /** A RESTConfig for the admin (bearer token, the server's CA). */
  restConfig(): RESTConfig;
  /** Faults to inject into requests and watches, for tests of what clients do when they fail. */
  faults: Faults;
  /** Closes every connection, including open watches. */
  stop(): Promise<void>;
}

function resolveLimits(opts: APIServerOptions): ServerLimits {
  return {
    maxBodyBytes: opts.maxBodyBytes ?? 3 * 1024 * 1024,
    watchBufferBytes: opts.watchBufferBytes ?? 16 * 1024 * 1024,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
    defaultWatchTimeoutSeconds: opts.defaultWatchTimeoutSeconds ?? 1800,
  };
}

/**
 * The server without its listener: storage, registry, admission, authorization and the router,
 * for startAPIServer and for clients that call the router in-process (the fake client).
 */
export interface ServerCore {
  context: ServerContext;
  storage: Storage;
  authorization: Authorization;
  authn: Authenticator;
  serviceAccounts: ServiceAccountTokens;
  faults: Faults;
  adminToken: string;
  /** Aborted to stop: ends watches and the server's controllers. */
  stopping: AbortController;
  /**
   * Serves one request as the server's handler does: the target checked, the user from
   * `authenticate` (impersonation applied), authorized, then routed.
   */
  serve(
    req: IncomingMessage,
    res: ServerResponse,
    authenticate: (req: IncomingMessage) => UserInfo,
    serverAddress: string,
  ): void;
}

/** Builds a ServerCore; `dropConnections` cuts every connection (a fault restarting the server). */
export function newServerCore(opts: APIServerOptions, dropConnections: () => void): ServerCore {
  const onError = opts.onError ?? ((e: unknown) => console.error("apiserver: unexpected error:", e));
  const adminToken = opts.adminToken ?? randomBytes(24).toString("base64url");
  const fresh = opts.storage === undefined;
  const storage =
    opts.storage ?? new Storage({ historySize: opts.historySize, quotaBytes: opts.storageQuotaBytes });
  const now = () => new Date();
  const serviceAccounts = new ServiceAccountTokens(
    storage,
    opts.serviceAccountIssuer ?? "https://kubernetes.default.svc.cluster.local",
    opts.serviceAccountSigningKey,
  );
  const authn = new Authenticator(
    [{ token: adminToken, name: "admin", groups: ["system:masters"] }, ...(opts.users ?? [])],
    serviceAccounts,
    now,
  );
  const stopping = new AbortController();
  // Every open watch listens for the server's stop: any number is expected, not a leak.
  setMaxListeners(0, stopping.signal);
  const registry = new Registry(builtinResources());
  const authorization = new Authorization(storage, opts.authorization ?? "RBAC");
  const newAggregator = () => new ClusterRoleAggregator(storage, stopping.signal, onError);
  let context: ServerContext | undefined;
  let objectMeta: Schema | undefined;
  const getContext = () => context!;
  const serviceResolver = opts.serviceResolver ?? clusterDnsResolver;
  const faults = new Faults(storageHost(storage, dropConnections, now));

  const conversion = new Conversion({ storage, serviceResolver, signal: stopping.signal });
  const hooks = createHooks(getContext, {
    garbageCollection: opts.garbageCollection ?? false,
    crdEstablishDelayMs: opts.crdEstablishDelayMs ?? 0,
    signal: stopping.signal,
    onError,
  });
  context = {
    storage,
    registry,
    limits: resolveLimits(opts),
    hooks,
    admission: new Admission({
      storage,
      registry,
      serviceResolver,
      signal: stopping.signal,
      // A webhook that asked for another version of a CRD gets the object converted to it.
      convert: async (obj, _from, to) => (await conversion.convert(to, [obj]))[0],
      decide: (a) => authorization.decide(a),
    }),
    conversion,
    authorization,
    authentication: {
      reviewToken: (token, audiences) => authn.reviewToken(token, audiences),
      apiAudiences: serviceAccounts.apiAudiences,
      openIDConfiguration: () => serviceAccounts.openIDConfiguration(),
      jwks: () => serviceAccounts.jwks(),
      issueToken: (sa, audiences, seconds, bound) =>
        serviceAccounts.issue(sa, audiences, seconds, now(), bound),
    },
    openapi: new OpenAPIService(registry),
    patterns: new PatternCache(),
    watchWindows: new WatchWindows(storage, { ...defaultWatchCacheSize, ...opts.watchCacheSize }),
    types: new TypeModels(),
    objectMetaSchema: () => {
      objectMeta ??= objectMetaSchema();
      return objectMeta;
    },
    signal: stopping.signal,
    faults,
    now,
  };
  const ctx = context;
  if (fresh) {
    // A new storage's system objects and bootstrap policy are written on its first use, not
    // before /readyz (storage/deferred-fills.ts); the policy's objects alone when only they are
    // read, as by the RBAC check of an anonymous /readyz.
    storage.fillOnFirstUse(() => seed(ctx));
    deferBootstrapPolicy(ctx);
    // The seeded roles come aggregated: the aggregation controller watches from the storage's
    // first full use on, after the policy is written. Watching from the start, it re-aggregated
    // every role once /readyz's check wrote its one, writing the whole policy during that /readyz.
    storage.fillOnFirstUse(() => void newAggregator());
  } else {
    seedBootstrapPolicy(context);
    // Seeded roles come aggregated; roles kept from a previous run may need it.
    newAggregator().sync();
    // CRDs kept from a previous run are served again.
    const crdDef = registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    for (const crd of storage.list(crdStore)) hooks.afterWrite(crdDef, crd, undefined);
  }

  const impersonationModes = new ImpersonationModes();
  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    authenticate: (req: IncomingMessage) => UserInfo,
    serverAddress: string,
  ) => {
    let target: RequestTarget;
    let user: UserInfo;
    try {
      target = requestTarget(req.url ?? "/");
      checkRequestTimeout(req.method ?? "GET", target);
      const requester = authenticate(req);
      const method = req.method ?? "GET";
      const asRequester = requestAttributes(method, target, requester);
      user = impersonate(
        req.headers,
        requester,
        (a) => authorization.decide(a),
        asRequester,
        impersonationModes,
      );
      // Without impersonation (nearly every request) the requester's attributes are the request's.
      const attrs = user === requester ? asRequester : requestAttributes(method, target, user);
      const decision = authorization.authorize(attrs);
      if (!decision.allowed) throw forbiddenError(attrs, decision.reason);
    } catch (e) {
      req.resume();
      if (e instanceof ApiError) sendError(res, e);
      else if (e instanceof MalformedTargetError) sendMalformedTarget(res);
      else res.destroy();
      return;
    }
    void route({ server: context!, serverAddress, onError }, req, res, user, target);
  };
  return { context, storage, authorization, authn, serviceAccounts, faults, adminToken, stopping, serve };
}

export async function startAPIServer(opts: APIServerOptions = {}): Promise<RunningAPIServer> {
  const host = opts.host ?? "127.0.0.1";
  const ca = opts.certificateAuthority ?? (await newCertificateAuthority("embedded-apiserver-ca"));
  const [serving, adminCert] = await Promise.all([
    ca.issueServing({
      dnsNames: ["localhost", "kubernetes", "kubernetes.default"],
      ipAddresses: ["127.0.0.1", "::1"],
    }),
    ca.issueClient({ user: "admin", groups: ["system:masters"] }),
  ]);
  // `sockets` is filled once the server listens: restart() drops them all, watches included.
  const sockets = new Set<Socket>();
  const core = newServerCore(opts, () => {
    for (const s of sockets) s.destroy();
  });
  const { context, storage, authorization, faults, serviceAccounts, adminToken, stopping } = core;
  let serverAddress = "";
  const tlsOptions = {
    key: serving.keyPem,
    cert: serving.certPem,
    ca: ca.certPem,
    requestCert: true,
    rejectUnauthorized: false,
    // As Go's net/http (every TCP connection TCP_NODELAY): with Nagle's algorithm, Node's default
    // for a TLS server, the last segment of a long answer or a watch event written right after
    // another waits for the client's delayed ACK (up to 40 ms on Linux).
    noDelay: true,
  };
  // HTTP/2 through Node's compatibility API: its requests and responses are used as HTTP/1's
  // (see http-io.ts for the few differences: hop-by-hop headers, backpressure).
  const authenticate = (req: IncomingMessage) => core.authn.authenticate(req);
  const handler = (req: IncomingMessage, res: ServerResponse) =>
    core.serve(req, res, authenticate, serverAddress);
  const server =
    opts.http2 === false
      ? createServer({ ...tlsOptions, ServerResponse: AnswerResponse }, handler)
      : createSecureServer(
          {
            ...tlsOptions,
            allowHTTP1: true,
            Http1ServerResponse: AnswerResponse,
            Http2ServerResponse: Http2AnswerResponse,
          },
          handler as never,
        );
  // HTTP/1.1 connections of either server read these (the HTTP/2 server passes them to
  // Node's HTTP/1 connection handling).
  // Go's http.Server reads up to DefaultMaxHeaderBytes (1 MiB) plus its 4 KiB of slack before
  // its 431; Node's default, 16 KiB, refused the long label selectors kube serves.
  Object.assign(server, {
    keepAliveTimeout: 65_000,
    headersTimeout: 70_000,
    requestTimeout: 0,
    maxHeaderSize: MAX_HEADER_BYTES,
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  serverAddress = `${host}:${port}`;
  // The server's own controllers first: the default ServiceCIDR the kubernetes Service's address
  // comes from. Both write, so they wait for the storage's first use, after its seeds; not at all
  // when this server stopped unused (its storage passed on to another, which serves its own port).
  storage.fillOnFirstUse(() => {
    if (stopping.signal.aborted) return;
    core.context.hooks.serving?.();
    seedServing(context, port, ca.certPem);
  });
  const url = `https://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const kubeconfig = kubeconfigYaml({
    url,
    caPem: ca.certPem,
    clientCertPem: adminCert.certPem,
    clientKeyPem: adminCert.keyPem,
  });
  if (opts.kubeconfigPath) {
    // writeFile's mode applies to a new file only: an existing 0644 file would keep it, with the
    // admin's key inside.
    await writeFile(opts.kubeconfigPath, kubeconfig, { mode: 0o600 });
    await chmod(opts.kubeconfigPath, 0o600);
  }

  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    caPem: ca.certPem,
    adminToken,
    adminCertificate: adminCert,
    kubeconfig,
    kubeconfigPath: opts.kubeconfigPath,
    storage,
    authorization,
    faults,
    // Made on first use (authn/service-account-tokens.ts): read, it is made now.
    get serviceAccountSigningKey() {
      return serviceAccounts.signingKeyPem;
    },
    certificateAuthority: ca,
    restConfig: () => ({
      host: url,
      tls: { ca: ca.certPem },
      auth: { bearerToken: adminToken },
      source: "embedded apiserver",
    }),
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        stopping.abort();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return stopped;
    },
  };
}
