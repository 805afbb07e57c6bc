// The metrics server: `/metrics` in Prometheus text format from the manager's registry, plus
// extra handlers (pprof-like debug pages, ...) registered before it starts.
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import type { TlsOptions } from "node:tls";
import type { Registry } from "prom-client";
import { newCertificateAuthority } from "../certs/index.js";
import { type CertificateFiles, type CertWatcher, newCertWatcher } from "../certwatcher/cert-watcher.js";
import { type Logger, nullLogger } from "../log/index.js";
import type { MetricsFilter } from "./auth-filter.js";
import {
  type HTTPHandler,
  type HTTPServerRunnable,
  type HTTPServerTLS,
  newHTTPServerRunnable,
  requestTarget,
} from "../httpserver/index.js";

/** Where metrics are served. */
export const metricsPath = "/metrics";

export interface MetricsServerOptions {
  /**
   * `":8080"`, `"127.0.0.1:8080"`, `":0"` (a free port, see `address()`), or `"0"` to disable:
   * a disabled server opens no port and its `start()` resolves at once.
   * Default: `":8080"`.
   */
  bindAddress?: string;
  /** The manager's registry. */
  registry: Registry;
  /**
   * More handlers by path. A path ending in `/` also serves everything below it, as in Go's
   * ServeMux; other paths match exactly.
   * Default: none.
   */
  extraHandlers?: Record<string, HTTPHandler>;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Default: 2000 ms (see HTTPServerRunnableOptions). */
  shutdownTimeoutMs?: number;
  /** Serve HTTPS (controller-runtime's SecureServing), with the certificate in `certDir` or, without
   * one, a self-signed certificate made at start. Default: false. */
  secureServing?: boolean;
  /**
   * Where `certName` and `keyName` are read from; the server follows the files (a certificate
   * rotated by cert-manager is served without a restart). Default: none (self-signed).
   */
  certDir?: string;
  /** Default: `tls.crt`. */
  certName?: string;
  /** Default: `tls.key`. */
  keyName?: string;
  /** Checks every request first (`withAuthenticationAndAuthorization()`'s filter). Default: none. */
  filter?: MetricsFilter;
  /**
   * Further TLS settings (`minVersion`, `ciphers`, ...), controller-runtime's `TLSOpts`.
   * Default: Node's (TLS 1.2 and up).
   */
  tlsOpts?: MetricsTLSOptions;
  /**
   * Serve this watcher's certificate, following its rotations, instead of reading `certDir`
   * (controller-runtime's `TLSOpts` setting `GetCertificate` to a certwatcher's): one watcher may
   * serve several servers; run it with `mgr.add(watcher)`. Default: none.
   */
  certWatcher?: CertWatcher;
  /** Where the certificate reads of `certDir` are counted (certwatcher_*). Default: `registry`. */
  certWatcherRegistry?: Registry;
}

/** TLS settings of the metrics server: everything but the certificate it serves. */
export type MetricsTLSOptions = Omit<TlsOptions, "cert" | "key" | "pfx">;

/**
 * The TLS options of the server: the watcher's certificate, the files in certDir (followed), or a
 * self-signed one for localhost; with `tlsOpts` over them.
 */
async function servingTLS(
  opts: MetricsServerOptions,
  log: Logger,
  signal: AbortSignal,
): Promise<HTTPServerTLS> {
  const extra = opts.tlsOpts ?? {};
  const withExtra = (f: CertificateFiles): TlsOptions => ({ ...extra, cert: f.cert, key: f.key });
  let watcher = opts.certWatcher;
  if (!watcher && opts.certDir) {
    watcher = newCertWatcher({
      certPath: join(opts.certDir, opts.certName ?? "tls.crt"),
      keyPath: join(opts.certDir, opts.keyName ?? "tls.key"),
      logger: log,
      registry: opts.certWatcherRegistry ?? opts.registry,
      owner: "the metrics server",
    });
    const own = watcher;
    await own.readCertificate();
    void own.start(signal).catch((err: unknown) => log.error(err, "certificate watcher error"));
  }
  if (watcher) {
    const w = watcher;
    const files = w.getCertificate() ?? (await w.readCertificate());
    return {
      ...withExtra(files),
      follow(replace) {
        const off = w.registerCallback((next) => replace(withExtra(next)));
        signal.addEventListener("abort", off, { once: true });
      },
    };
  }
  const ca = await newCertificateAuthority("controller-runtime-metrics");
  const pair = await ca.issueServing({ dnsNames: ["localhost"], ipAddresses: ["127.0.0.1", "::1"] });
  return { ...extra, key: pair.keyPem, cert: `${pair.certPem.trimEnd()}\n${ca.certPem}` };
}

export interface MetricsServer extends HTTPServerRunnable {
  /** Serves `handler` at `path`; only before `start()`, and never at `/metrics` or a taken path. */
  addExtraHandler(path: string, handler: HTTPHandler): void;
}

/** A handler that cannot be registered: bad or taken path, or the server already started. */
export class ExtraHandlerError extends Error {
  override readonly name = "ExtraHandlerError";
  readonly code = "ERR_METRICS_EXTRA_HANDLER";
}

/** A metrics server Runnable; nothing listens until `start()`. */
export function newMetricsServer(opts: MetricsServerOptions): MetricsServer {
  const log = (opts.logger ?? nullLogger()).withName("controller-runtime").withName("metrics");
  const { registry } = opts;
  const handlers = new Map<string, HTTPHandler>();
  let started = false;

  const serveMetrics = async (_req: IncomingMessage, res: ServerResponse) => {
    let body: string;
    try {
      body = await registry.metrics();
    } catch (err) {
      log.error(err, "error gathering metrics");
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end(
        `An error has occurred while serving metrics:\n\n${err instanceof Error ? err.message : err}\n`,
      );
      return;
    }
    res.writeHead(200, { "content-type": registry.contentType });
    res.end(body);
  };

  const route = (path: string): HTTPHandler | undefined => {
    if (path === metricsPath) return serveMetrics;
    const exact = handlers.get(path);
    if (exact) return exact;
    // Go's ServeMux: the longest registered subtree ("/debug/") containing the path.
    let best: string | undefined;
    for (const p of handlers.keys()) {
      if (p.endsWith("/") && path.startsWith(p) && (best === undefined || p.length > best.length)) best = p;
    }
    return best === undefined ? undefined : handlers.get(best);
  };

  const serve: HTTPHandler = (req, res) => {
    const { path } = requestTarget(req);
    const handler = route(path);
    if (handler) return handler(req, res);
    res.writeHead(404, {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
    });
    res.end("404 page not found\n");
  };
  const server = newHTTPServerRunnable({
    name: "metrics",
    bindAddress: opts.bindAddress ?? ":8080",
    logger: log,
    shutdownTimeoutMs: opts.shutdownTimeoutMs,
    handler: opts.filter ? opts.filter(serve) : serve,
    tls: opts.secureServing ? (signal) => servingTLS(opts, log, signal) : undefined,
  });

  const addExtraHandler = (path: string, handler: HTTPHandler) => {
    if (started) {
      throw new ExtraHandlerError(
        `cannot add an extra handler for ${path}: the metrics server has already started; add handlers before starting the manager`,
      );
    }
    if (!path.startsWith("/"))
      throw new ExtraHandlerError(`extra handler path ${JSON.stringify(path)} must start with "/"`);
    if (path === metricsPath)
      throw new ExtraHandlerError(`overriding the builtin ${metricsPath} endpoint is not allowed`);
    if (handlers.has(path)) {
      throw new ExtraHandlerError(
        `can't register extra handler by duplicate path ${JSON.stringify(path)} on metrics http server`,
      );
    }
    handlers.set(path, handler);
  };
  for (const [path, handler] of Object.entries(opts.extraHandlers ?? {})) addExtraHandler(path, handler);

  return {
    disabled: server.disabled,
    needLeaderElection: () => false,
    address: () => server.address(),
    listening: () => server.listening(),
    addExtraHandler,
    async start(signal: AbortSignal): Promise<void> {
      started = true;
      if (server.disabled) return server.start(signal);
      log.info("Starting metrics server");
      const running = server.start(signal);
      server.listening().then(
        (addr) =>
          addr &&
          log.info("Serving metrics server", {
            bindAddress: opts.bindAddress ?? ":8080",
            secure: opts.secureServing ?? false,
          }),
        () => {},
      );
      return running;
    },
  };
}
