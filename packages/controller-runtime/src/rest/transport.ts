// The HTTP transport: one pooled keep-alive undici dispatcher per (cluster, user), so requests
// reuse connections instead of paying a TLS handshake each. Share one Transport among every
// client of a config (the manager does); each Transport owns exactly one pool.
import type { IncomingHttpHeaders } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, type Dispatcher, ProxyAgent } from "undici";
import type { RESTConfig } from "./config.js";
import { type CredentialSource, newCredentialSource } from "./credentials.js";
import { NetworkError, StatusError, WatchDecodeError } from "./errors.js";
import { PushBody, type PushResponse } from "./push-body.js";
import { newTokenBucket, type RateLimiter } from "./rate-limiter.js";

/** Sent when the config names no user agent. */
export const DEFAULT_USER_AGENT = `controller-runtime-ts/v0.1.0 (${process.platform}/${process.arch}) node/${process.version}`;

export interface TransportOptions {
  /** Supplies the Authorization header and client certificate. Default: `newCredentialSource(config)`. */
  credentials?: CredentialSource;
  /** Throttles requests before they are sent. Default: a token bucket from `config.qps`/`config.burst`, or none. */
  rateLimiter?: RateLimiter;
  /** Maximum connections to the server. Default: unlimited (on HTTP/1.1 each open watch holds one). */
  connections?: number;
  /** How long an idle connection is kept open, in ms. Default: 30000. */
  keepAliveTimeoutMs?: number;
  /**
   * Offer HTTP/2 by ALPN (taken when the server offers it, as kube-apiserver does). Default:
   * false: measured against HTTP/1.1 (bench/client-http2.ts), undici's HTTP/2 costs about twice
   * the client CPU per GET and 1.2-1.4 times per watch event, and it does not multiplex.
   */
  http2?: boolean;
  /**
   * Called when each request's response headers arrived (or it failed), for client-go's
   * `rest_client_requests_total` and latency metrics. Default: none.
   */
  onRequestDone?: (info: RequestDoneInfo) => void;
  /**
   * How often a request answered 429 or 5xx with a `Retry-After` header is sent again, after
   * waiting that many seconds (and for the rate limiter), as client-go's requests do. The last
   * answer goes to the caller. Default: 10 (client-go's); 0 never retries.
   */
  maxRetries?: number;
}

/** One finished request, as the REST client metrics count it. */
export interface RequestDoneInfo {
  method: string;
  /** `host:port` of the server. */
  host: string;
  /** The HTTP status code, or `"<error>"` when no response came. */
  code: number | string;
  durationSeconds: number;
}

export interface TransportRequest {
  method: Dispatcher.HttpMethod;
  /** Path and query string, relative to `config.host` (whose path prefix is prepended). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /** Longest wait for the response headers, in ms; 0 waits forever. Default: 0. */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks, in ms (an inactivity timeout); 0 waits forever. Default: 0. */
  bodyTimeoutMs?: number;
  /**
   * The body is a `PushBody` (push-body.ts) read from undici's dispatch handler rather than a
   * Readable: for watches, whose many small chunks the stream layer made costly. Internal to
   * this package; a transport of one's own may ignore it and answer with a Readable.
   */
  pushBody?: boolean;
}

export type TransportResponse = Pick<Dispatcher.ResponseData, "statusCode" | "body"> & {
  headers: IncomingHttpHeaders;
};

export interface Transport {
  /** The server's origin and path prefix, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * Sends one request with the config's TLS, credentials and user agent. A 401 invalidates the
   * credentials and retries once (a rotated token or an expired exec credential); a 429 or 5xx
   * with `Retry-After` is sent again after that wait (`maxRetries` times). Rejects with
   * a `NetworkError` when no HTTP answer came, or with the signal's reason on abort; any HTTP
   * status resolves. The caller must consume or `dump()` the body.
   */
  send(req: TransportRequest): Promise<TransportResponse>;
  /** Stops taking requests and closes connections once in-flight requests (watches too) end. */
  close(): Promise<void>;
  /** Closes every connection now, failing in-flight requests. */
  destroy(): Promise<void>;
}

/** Seconds to wait before sending again, for a 429 or 5xx answered with `Retry-After` (client-go's checkWait). */
function retryAfterOf(res: TransportResponse): number | undefined {
  if (res.statusCode !== 429 && res.statusCode < 500) return undefined;
  const header = res.headers["retry-after"];
  const seconds = Number((Array.isArray(header) ? header[0] : header)?.trim() || Number.NaN);
  // A wait longer than a minute is not waited out here (a crafted header must not park a
  // request for hours): the caller gets the answer and its own backoff decides.
  return Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_RETRY_AFTER_SECONDS
    ? seconds
    : undefined;
}

const MAX_RETRY_AFTER_SECONDS = 60;

/** Creates the transport for `config`. Opens no connection until the first request. */
export function newTransport(config: RESTConfig, options: TransportOptions = {}): Transport {
  let url: URL;
  try {
    url = new URL(config.host);
  } catch (cause) {
    throw new TypeError(
      `transport: host ${JSON.stringify(config.host)} is not a URL; expected https://host:port`,
      {
        cause,
      },
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError(`transport: host ${config.host} must use https:// or http://`);
  }
  const origin = url.origin;
  const prefix = url.pathname.replace(/\/+$/, "");
  const credentials = options.credentials ?? newCredentialSource(config);
  const limiter =
    options.rateLimiter ??
    (config.qps ? newTokenBucket({ qps: config.qps, burst: config.burst }) : undefined);
  const userAgent = config.userAgent || DEFAULT_USER_AGENT;
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? 30_000;
  const maxRetries = Math.max(0, options.maxRetries ?? 10);

  // The pool is keyed by the client certificate: an exec plugin may hand out a new one, and a
  // TLS connection cannot change its certificate, so a new certificate means a new pool.
  let pool: Dispatcher | undefined;
  let poolCert: string | undefined;
  let closed = false;

  function dispatcherFor(cert: { cert: string; key: string } | undefined): Dispatcher {
    if (pool && poolCert === cert?.cert) return pool;
    const old = pool;
    const tls = {
      ca: config.tls.ca,
      cert: cert?.cert,
      key: cert?.key,
      rejectUnauthorized: !config.tls.insecureSkipVerify,
      servername: config.tls.serverName,
    };
    const agentOptions = {
      connections: options.connections ?? null,
      // undici 7's HTTP/2 does not multiplex a pool's requests (it opens a connection per
      // concurrent request), and limited to one connection, requests queue behind open watches.
      allowH2: options.http2 ?? false,
      keepAliveTimeout,
      // Timeouts are per request (see TransportRequest); undici's 300 s defaults would cut watches.
      headersTimeout: 0,
      bodyTimeout: 0,
    };
    pool = config.proxyUrl
      ? new ProxyAgent({ ...agentOptions, uri: config.proxyUrl, requestTls: tls })
      : new Agent({ ...agentOptions, connect: tls });
    poolCert = cert?.cert;
    // In-flight requests on the old pool finish; new ones use the new certificate.
    old?.close().catch(() => {});
    return pool;
  }

  async function attempt(req: TransportRequest, authorization: string | undefined, dispatcher: Dispatcher) {
    const headers: Record<string, string> = { "user-agent": userAgent, ...req.headers };
    if (authorization) headers.authorization = authorization;
    try {
      if (req.pushBody === true) return await dispatchPush(dispatcher, req, headers);
      return await dispatcher.request({
        origin,
        path: prefix + req.path,
        method: req.method,
        headers,
        body: req.body,
        signal: req.signal,
        headersTimeout: req.headersTimeoutMs ?? 0,
        bodyTimeout: req.bodyTimeoutMs ?? 0,
      });
    } catch (err) {
      throw toNetworkError(err, req.signal, `${req.method} ${origin}${prefix}${req.path}`);
    }
  }

  /** As `dispatcher.request`, with the body pushed to its reader (see `TransportRequest.pushBody`). */
  function dispatchPush(
    dispatcher: Dispatcher,
    req: TransportRequest,
    headers: Record<string, string>,
  ): Promise<TransportResponse> {
    return new Promise<PushResponse>((resolve, reject) => {
      const handler = new PushBody(req.signal, resolve, reject);
      dispatcher.dispatch(
        {
          origin,
          path: prefix + req.path,
          method: req.method,
          headers,
          body: req.body,
          headersTimeout: req.headersTimeoutMs ?? 0,
          bodyTimeout: req.bodyTimeoutMs ?? 0,
        },
        handler,
      );
    }) as unknown as Promise<TransportResponse>; // the body has what callers of a pushed body use
  }

  const onDone = options.onRequestDone;
  const host = url.host;

  async function send(req: TransportRequest): Promise<TransportResponse> {
    if (!onDone) return sendOnce(req);
    const start = performance.now();
    try {
      const res = await sendOnce(req);
      onDone({
        method: req.method,
        host,
        code: res.statusCode,
        durationSeconds: (performance.now() - start) / 1000,
      });
      return res;
    } catch (err) {
      onDone({
        method: req.method,
        host,
        code: "<error>",
        durationSeconds: (performance.now() - start) / 1000,
      });
      throw err;
    }
  }

  async function sendOnce(req: TransportRequest): Promise<TransportResponse> {
    for (let retries = 0; ; retries++) {
      const res = await sendAuthorized(req);
      const wait = retries < maxRetries ? retryAfterOf(res) : undefined;
      if (wait === undefined) return res;
      // The server did not act on the request (throttled, or unavailable for a while): as
      // client-go, wait as told and send it again; the body is a string or bytes, so resendable.
      await res.body.dump().catch(() => {});
      await sleep(wait * 1000, undefined, { signal: req.signal }).catch(() => {
        throw req.signal?.reason;
      });
    }
  }

  async function sendAuthorized(req: TransportRequest): Promise<TransportResponse> {
    if (closed) throw new NetworkError(`transport to ${origin} is closed; create a new one to send requests`);
    const { signal } = req;
    await limiter?.wait(signal);
    let [authorization, cert] = await Promise.all([
      credentials.authorization(signal),
      credentials.clientCertificate(signal),
    ]);
    let res = await attempt(req, authorization, dispatcherFor(cert));
    if (res.statusCode === 401 && (authorization !== undefined || cert !== undefined)) {
      await res.body.dump().catch(() => {});
      credentials.invalidate();
      [authorization, cert] = await Promise.all([
        credentials.authorization(signal),
        credentials.clientCertificate(signal),
      ]);
      res = await attempt(req, authorization, dispatcherFor(cert));
    }
    return res;
  }

  return {
    baseUrl: origin + prefix,
    send,
    async close() {
      closed = true;
      await pool?.close();
    },
    async destroy() {
      closed = true;
      await pool?.destroy();
    },
  };
}

// What to look at next, by what went wrong: a connection cut mid-request (a server restarting) is
// not a certificate problem, and a certificate refused is not a reachability one.
const DROPPED = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED", "ECONNABORTED"]);
const NO_SERVER = new Set(["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EADDRNOTAVAIL"]);
const NO_NAME = new Set(["ENOTFOUND", "EAI_AGAIN"]);
const TLS = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/;

function networkHint(code: unknown): string {
  if (typeof code !== "string") return "check that the server is reachable at the address in the config";
  if (DROPPED.has(code))
    return "the connection was closed before the answer (the server restarting or a proxy dropping it); retry, and read the server's log if it persists";
  if (NO_SERVER.has(code))
    return "nothing answers at that address: check that the server runs and the config's server address";
  if (NO_NAME.has(code)) return "the host name does not resolve: check the config's server address";
  if (TLS.test(code))
    return "the server's certificate was refused: check the config's certificate-authority(-data) and tls-server-name";
  return "check that the server is reachable at the address in the config";
}

/**
 * Turns what undici threw while sending or reading into our errors: the caller's abort stays
 * the signal's reason, a bad argument (our bug) passes through, anything else means no usable
 * answer came and becomes a `NetworkError` with its cause.
 */
export function toNetworkError(err: unknown, signal: AbortSignal | undefined, what: string): unknown {
  if (signal?.aborted) return signal.reason;
  if (err instanceof NetworkError || err instanceof StatusError || err instanceof WatchDecodeError)
    return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === "UND_ERR_INVALID_ARG") return err;
  const timedOut =
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT";
  const hint = timedOut ? "the server sent nothing for too long" : networkHint(code);
  // A TLS hello answered in plain HTTP: OpenSSL's "wrong version number" helps nobody.
  if (code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "ERR_SSL_PACKET_LENGTH_TOO_LONG") {
    return new NetworkError(
      `${what}: the server answered in plain HTTP, not TLS; use an http:// address or check the port`,
      { cause: err },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new NetworkError(`${what}: ${message}${typeof code === "string" ? ` (${code})` : ""}; ${hint}`, {
    cause: err,
    timedOut,
  });
}
