// The webhook server: HTTPS on port 9443 by default, one handler per registered path, serving
// certificates re-read when their files change (new connections get the new pair through
// setSecureContext; nothing restarts), optional client-certificate verification, and
// controller-runtime's per-path metrics. A Runnable that every replica runs: no leader needed.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { connect, type TlsOptions } from "node:tls";
import type { Checker } from "../healthz/index.js";
import { requestTarget, ServerAlreadyStartedError } from "../httpserver/index.js";
import { webhookMetrics } from "../metrics/index.js";
import { type CertificateFiles, newCertWatcher } from "../certwatcher/cert-watcher.js";
import { CertificateLoadError, DuplicateWebhookPathError, InvalidWebhookPathError } from "./errors.js";
import type { WebhookHandler, WebhookHTTPHandler, WebhookRequestContext } from "./handler.js";
import { requestSignal } from "./internal/request-signal.js";
import { resolveWebhookServerOptions, type WebhookServerOptions } from "./server-options.js";

export interface WebhookServer {
  /**
   * Serves `handler` on `path` (an exact match; the query string is ignored). Works before and
   * after `start()`. Throws DuplicateWebhookPathError when the path is taken.
   */
  register(path: string, handler: WebhookHandler): void;
  /** What is registered on `path`, if anything (the builder shares `/convert` between kinds). */
  registered(path: string): WebhookHandler | undefined;
  /** Every registered path, in registration order. */
  paths(): string[];
  /** Where the server listens and reads its certificates, defaults applied. */
  options(): WebhookServerSettings;
  /** Reads the certificates, listens, serves until `signal` aborts, then shuts down gracefully. */
  start(signal: AbortSignal): Promise<void>;
  /** Resolves with the bound address once serving; rejects if `start()` failed. */
  listening(): Promise<AddressInfo>;
  /** The bound address while serving, else undefined. */
  address(): AddressInfo | undefined;
  /** Always false: webhooks are served by every replica, leader or not. */
  needLeaderElection(): boolean;
  /**
   * A readiness check that passes once the server is serving: it opens a TLS connection to the
   * port, as controller-runtime's StartedChecker dials it.
   */
  startedChecker(): Checker;
}

/** The resolved settings a server runs with (envtest points webhook configurations at them). */
export interface WebhookServerSettings {
  readonly host: string;
  readonly port: number;
  readonly certDir: string;
  readonly certName: string;
  readonly keyName: string;
  readonly clientCAName: string | undefined;
}

/** How long a connection made during shutdown may take to send its request before it is closed. */
const SILENT_GRACE_MS = 1000;

/** A webhook server; nothing is read or opened until `start()`. */
export function newWebhookServer(options: WebhookServerOptions = {}): WebhookServer {
  const opts = resolveWebhookServerOptions(options);
  const log = opts.logger.withName("webhook");
  const metrics = webhookMetrics(opts.registry);
  const handlers = new Map<string, { handler: WebhookHandler; serve: WebhookHTTPHandler }>();
  let started = false;
  let bound: AddressInfo | undefined;
  let shuttingDown = false;
  // Responses not yet closed, so that shutdown can ask their connections not to stay open.
  const inFlight = new Set<ServerResponse>();
  // Set while serving: closes connections that went idle (after their last response).
  let closeIdle: (() => void) | undefined;
  // Connections that have not sent a request yet. Node counts them as busy, so that
  // closeIdleConnections leaves them to its headers timeout (60 s) and close() waits for them; Go's
  // HTTP client (kube-apiserver's) keeps such a connection in its pool when the request it was
  // dialed for is cancelled first. Shutdown closes them, as Go's server does.
  const silent = new Set<Socket>();
  // Aborted when the shutdown grace period ends: requests still running are cut off.
  const forceStop = new AbortController();

  let resolveListening!: (a: AddressInfo) => void;
  let rejectListening!: (e: unknown) => void;
  const listening = new Promise<AddressInfo>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  listening.catch(() => {}); // nobody need wait on it; start() rejects too

  function register(path: string, handler: WebhookHandler): void {
    if (!path.startsWith("/") || /[?#]/.test(path)) throw new InvalidWebhookPathError(path);
    if (handlers.has(path)) throw new DuplicateWebhookPathError(path);
    const serve: WebhookHTTPHandler =
      typeof handler === "function" ? handler : (req, res, ctx) => handler.serveHTTP(req, res, ctx);
    handlers.set(path, { handler, serve });
    // Zero series, so that dashboards see the path before its first request (controller-runtime
    // initialises the codes 200 and 500 the same way).
    metrics.requestsInFlight.labels(path).set(0);
    metrics.requestTotal.labels(path, "200").inc(0);
    metrics.requestTotal.labels(path, "500").inc(0);
    log.info("Registering webhook", { path });
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    // A registered path matches exactly (no dot-segment resolution reaching another handler).
    const { path, query } = requestTarget(req);
    silent.delete(req.socket);
    if (shuttingDown) res.setHeader("connection", "close");
    const entry = handlers.get(path);
    if (!entry) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
      res.end("404 page not found\n");
      return;
    }
    const endTimer = metrics.requestLatency.startTimer({ webhook: path });
    metrics.requestsInFlight.labels(path).inc();
    const { signal, done } = requestSignal(req, res, query, forceStop.signal);
    inFlight.add(res);
    res.once("close", () => {
      inFlight.delete(res);
      // During shutdown, a keep-alive connection whose last response just ended goes now rather
      // than at its keep-alive timeout.
      if (shuttingDown) setImmediate(() => closeIdle?.());
      done();
      endTimer();
      metrics.requestsInFlight.labels(path).dec();
      metrics.requestTotal.labels(path, String(res.statusCode)).inc();
    });
    const ctx: WebhookRequestContext = { path, signal, logger: log.withValues({ webhook: path }), metrics };
    const fail = (err: unknown) => {
      log.error(err, "webhook handler failed", { webhook: path });
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end("internal server error\n");
      } else res.destroy();
    };
    try {
      const result = entry.serve(req, res, ctx);
      if (result instanceof Promise) result.catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  async function start(signal: AbortSignal): Promise<void> {
    if (started) throw new ServerAlreadyStartedError("the webhook server was already started");
    started = true;
    const certs = newCertWatcher({
      certPath: join(opts.certDir, opts.certName),
      keyPath: join(opts.certDir, opts.keyName),
      clientCAPath: opts.clientCAName ? join(opts.certDir, opts.clientCAName) : undefined,
      pollIntervalMs: opts.certPollIntervalMs,
      logger: log,
      registry: opts.registry,
      owner: "the webhook server",
    });
    let server: Server;
    let files: CertificateFiles;
    const given = opts.certWatcher;
    try {
      files = given ? (given.getCertificate() ?? (await given.readCertificate())) : await certs.load();
      server = createServer(tlsOptions(files), handle);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen({ host: opts.host || undefined, port: opts.port }, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (err) {
      const wrapped =
        err instanceof CertificateLoadError
          ? err
          : new Error(`the webhook server could not listen on ${opts.host}:${opts.port}: ${err}`, {
              cause: err,
            });
      rejectListening(wrapped);
      throw wrapped;
    }
    bound = server.address() as AddressInfo;
    server.on("error", (err) => log.error(err, "webhook server error"));
    server.on("secureConnection", (socket: Socket) => {
      silent.add(socket);
      socket.once("close", () => silent.delete(socket));
      // Its handshake ended after shutdown began: a moment for its request, then it goes too.
      if (shuttingDown) setTimeout(() => silent.has(socket) && socket.destroy(), SILENT_GRACE_MS).unref();
    });
    // A failed handshake (a client without the required certificate, say) is the client's problem.
    server.on("tlsClientError", (err) => log.v(1).info("TLS handshake failed", { error: err.message }));
    const watchStop = new AbortController();
    if (given) {
      const off = given.registerCallback((next) => server.setSecureContext(secureContext(next)));
      watchStop.signal.addEventListener("abort", off, { once: true });
    } else certs.watch(watchStop.signal, files, (next) => server.setSecureContext(secureContext(next)));
    log.info("Serving webhook server", { host: opts.host, port: bound.port });
    resolveListening(bound);

    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener("abort", () => resolve(), { once: true });
    });
    log.info("Shutting down webhook server", { timeoutMs: opts.shutdownTimeoutMs });
    shuttingDown = true;
    closeIdle = () => {
      server.closeIdleConnections();
      for (const socket of silent) socket.destroy();
    };
    for (const res of inFlight) if (!res.headersSent) res.setHeader("connection", "close");
    watchStop.abort();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        forceStop.abort(new Error("the webhook server shut down before the request finished"));
        server.closeAllConnections();
      }, opts.shutdownTimeoutMs);
      server.close(() => {
        clearTimeout(timer);
        closeIdle = undefined;
        resolve();
      });
      closeIdle?.();
    });
    bound = undefined;
  }

  function tlsOptions(files: CertificateFiles): TlsOptions {
    const requireClientCert = opts.certWatcher ? files.ca !== undefined : opts.clientCAName !== undefined;
    return {
      ...opts.tlsOpts,
      ...secureContext(files),
      requestCert: requireClientCert,
      rejectUnauthorized: requireClientCert,
    };
  }

  function secureContext(files: CertificateFiles): TlsOptions {
    return { ...opts.tlsOpts, cert: files.cert, key: files.key, ...(files.ca ? { ca: files.ca } : {}) };
  }

  function startedChecker(): Checker {
    return (_req, signal) => {
      const addr = bound;
      if (!addr) throw new Error("webhook server has not been started yet");
      return new Promise<void>((resolve, reject) => {
        // Our own port: the certificate need not verify (controller-runtime skips it too).
        const socket = connect({ host: dialHost(opts.host), port: addr.port, rejectUnauthorized: false });
        const onAbort = () =>
          socket.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
        signal.addEventListener("abort", onAbort, { once: true });
        socket.once("secureConnect", () => {
          signal.removeEventListener("abort", onAbort);
          socket.end();
          resolve();
        });
        socket.once("error", (err) => {
          signal.removeEventListener("abort", onAbort);
          socket.destroy();
          reject(new Error(`webhook server is not reachable: ${err.message}`, { cause: err }));
        });
      });
    };
  }

  return {
    register,
    registered: (path) => handlers.get(path)?.handler,
    paths: () => [...handlers.keys()],
    options: () => ({
      host: opts.host,
      port: opts.port,
      certDir: opts.certDir,
      certName: opts.certName,
      keyName: opts.keyName,
      clientCAName: opts.clientCAName,
    }),
    start,
    listening: () => listening,
    address: () => bound,
    needLeaderElection: () => false,
    startedChecker,
  };
}

// Where the readiness check dials: the listen host, or loopback when listening everywhere.
function dialHost(host: string): string {
  if (host === "" || host === "::") return "localhost";
  if (host === "0.0.0.0") return "127.0.0.1";
  return host;
}
