// A plain-HTTP server as a Runnable, shared by the metrics and health probe servers (and open to
// the webhook server): Go-style bind addresses, "0" disables, graceful stop on abort.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:http";
import { createServer as createHTTPSServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { TlsOptions } from "node:tls";
import { type Logger, nullLogger } from "../log/index.js";

/**
 * Answers one request. A returned promise is watched: if it rejects, or the handler throws, the
 * error is logged and the client gets a 500. (The return type is open so `(req, res) => res.end()`
 * fits.)
 */
export type HTTPHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A bind address that is neither `"0"` nor `host:port` / `:port` / `[v6]:port`. */
export class InvalidBindAddressError extends Error {
  override readonly name = "InvalidBindAddressError";
  readonly code = "ERR_INVALID_BIND_ADDRESS";
  constructor(what: string, address: string) {
    super(
      `invalid ${what} bind address ${JSON.stringify(address)}: use ":8080", "127.0.0.1:8080", ` +
        `"[::1]:8080", ":0" for a free port, or "0" to disable`,
    );
  }
}

/** `start()` was called on a server that is running or has run. */
export class ServerAlreadyStartedError extends Error {
  override readonly name = "ServerAlreadyStartedError";
  readonly code = "ERR_SERVER_ALREADY_STARTED";
}

/** Parsed bind address; `host` undefined means every interface. `undefined` means disabled. */
export function parseBindAddress(
  what: string,
  address: string,
): { host: string | undefined; port: number } | undefined {
  if (address === "0") return undefined;
  const match = /^(?:\[([0-9A-Fa-f:.%\w]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port > 65535) throw new InvalidBindAddressError(what, address);
  const host = match[1] ?? match[2];
  return { host: host === "" ? undefined : host, port };
}

export interface HTTPServerRunnableOptions {
  /** Used in log lines and errors: "metrics", "health probe". */
  name: string;
  /** `":8080"`, `"127.0.0.1:8080"`, `":0"` (a free port: read it with `address()`), `"0"` (disabled). */
  bindAddress: string;
  handler: HTTPHandler;
  /** Default: nullLogger(). */
  logger?: Logger;
  /**
   * On abort, idle connections close at once; requests still running get this long before their
   * sockets are destroyed.
   * Default: 2000 ms.
   */
  shutdownTimeoutMs?: number;
  /**
   * Serves HTTPS with the TLS options (PEM `key` and `cert`, `minVersion`, ...) this resolves to at
   * start; their `follow`, if any, is handed the function that replaces them while serving
   * (certificate rotation), until `signal` aborts. Default: plain HTTP.
   */
  tls?: (signal: AbortSignal) => Promise<HTTPServerTLS>;
}

/** The TLS options of an HTTPS server, and how it follows a rotated certificate. */
export interface HTTPServerTLS extends TlsOptions {
  /** Called once listening with the function that replaces the server's certificate and options. */
  follow?(replace: (options: TlsOptions) => void): void;
}

export interface HTTPServerRunnable {
  /** True when the bind address was `"0"`: `start()` then resolves at once and opens no port. */
  readonly disabled: boolean;
  /** Listens, serves until `signal` aborts, then stops; settles once the server has closed. */
  start(signal: AbortSignal): Promise<void>;
  /** Always false: every replica serves. */
  needLeaderElection(): boolean;
  /** The bound address while listening, else undefined. */
  address(): AddressInfo | undefined;
  /** Resolves once listening (undefined when disabled); rejects if listening failed. */
  listening(): Promise<AddressInfo | undefined>;
}

/** An HTTP server Runnable; validates the bind address now, opens nothing until `start()`. */
export function newHTTPServerRunnable(opts: HTTPServerRunnableOptions): HTTPServerRunnable {
  const bind = parseBindAddress(opts.name, opts.bindAddress);
  const log = opts.logger ?? nullLogger();
  const shutdownTimeoutMs = opts.shutdownTimeoutMs ?? 2000;
  let started = false;
  let bound: AddressInfo | undefined;
  let resolveListening!: (a: AddressInfo | undefined) => void;
  let rejectListening!: (e: unknown) => void;
  const listening = new Promise<AddressInfo | undefined>((resolve, reject) => {
    resolveListening = resolve;
    rejectListening = reject;
  });
  // Nobody may be waiting on it; the error also rejects start().
  listening.catch(() => {});
  if (!bind) resolveListening(undefined);

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const fail = (err: unknown) => {
      log.error(err, "HTTP handler failed", { server: opts.name, path: req.url });
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
        res.end("internal server error\n");
      } else res.destroy();
    };
    try {
      const result = opts.handler(req, res);
      if (result instanceof Promise) result.catch(fail);
    } catch (err) {
      fail(err);
    }
  };

  return {
    disabled: bind === undefined,
    needLeaderElection: () => false,
    address: () => bound,
    listening: () => listening,
    async start(signal: AbortSignal): Promise<void> {
      if (started) throw new ServerAlreadyStartedError(`the ${opts.name} server was already started`);
      started = true;
      if (!bind) return;
      if (signal.aborted) {
        resolveListening(undefined);
        return;
      }
      let server: ReturnType<typeof createServer>;
      let tls: HTTPServerTLS | undefined;
      try {
        tls = opts.tls ? await opts.tls(signal) : undefined;
        if (tls) {
          const { follow: _, ...options } = tls;
          server = createHTTPSServer(options, handle);
        } else server = createServer(handle);
      } catch (err) {
        const wrapped = new Error(`the ${opts.name} server could not load its certificate: ${err}`, {
          cause: err,
        });
        rejectListening(wrapped);
        throw wrapped;
      }
      try {
        await new Promise<void>((resolve, reject) => {
          server.once("error", reject);
          server.listen({ host: bind.host, port: bind.port }, () => {
            server.off("error", reject);
            resolve();
          });
        });
      } catch (err) {
        const wrapped = new Error(`the ${opts.name} server could not listen on ${opts.bindAddress}: ${err}`, {
          cause: err,
        });
        rejectListening(wrapped);
        throw wrapped;
      }
      bound = server.address() as AddressInfo;
      if (tls?.follow && "setSecureContext" in server) {
        const https = server as unknown as { setSecureContext(o: TlsOptions): void };
        tls.follow((o) => https.setSecureContext(o));
      }
      const addr = formatAddress(bound);
      log.info("starting server", { name: opts.name, addr });
      server.on("error", (err) => log.error(err, "server error", { name: opts.name, addr }));
      resolveListening(bound);

      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener("abort", () => resolve(), { once: true });
      });
      log.info("shutting down server", { name: opts.name, addr });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), shutdownTimeoutMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
      bound = undefined;
    },
  };
}

function formatAddress(a: AddressInfo): string {
  return a.family === "IPv6" ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}
