// The webhook server's options and their defaults, resolved in one place.
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TlsOptions } from "node:tls";
import { Registry } from "prom-client";
import type { CertWatcher } from "../certwatcher/cert-watcher.js";
import { type Logger, nullLogger } from "../log/index.js";

/** TLS settings merged into the server's: `minVersion`, `ciphers`, `ALPNProtocols`, ... */
export type WebhookTLSOptions = Omit<
  TlsOptions,
  "cert" | "key" | "ca" | "requestCert" | "rejectUnauthorized"
>;

export interface WebhookServerOptions {
  /** The address to listen on; "" listens on every interface. Default: "". */
  host?: string;
  /** The port to listen on; 0 picks a free one (read it with `address()`). Default: 9443. */
  port?: number;
  /** Where the serving certificate and key are. Default: `<os.tmpdir()>/k8s-webhook-server/serving-certs`. */
  certDir?: string;
  /** The certificate file in certDir (PEM, the chain after the leaf). Default: "tls.crt". */
  certName?: string;
  /** The private key file in certDir (PEM). Default: "tls.key". */
  keyName?: string;
  /**
   * The CA file in certDir that client certificates must chain to. When set, clients must present
   * a certificate signed by it, or the TLS handshake fails. Default: unset (no client certificates).
   */
  clientCAName?: string;
  /** Further TLS settings (`minVersion`, `ciphers`, ...). Default: Node's (TLS 1.2 and up). */
  tlsOpts?: WebhookTLSOptions;
  /**
   * Serve this watcher's certificate (and its `clientCAPath`'s CA), following its rotations,
   * instead of reading `certDir` (Go's `TLSOpts` setting `GetCertificate` to a certwatcher's);
   * one watcher may serve the metrics server too. Run it with `mgr.add(watcher)`. Default: none.
   */
  certWatcher?: CertWatcher;
  /** Default: nullLogger(). */
  logger?: Logger;
  /** Where the webhook metrics go: pass the manager's. Default: a new registry of its own. */
  registry?: Registry;
  /** How often the certificate files are re-read besides watching them. Default: 10000 ms. */
  certPollIntervalMs?: number;
  /**
   * On stop, requests in flight get this long to finish before their connections are closed (and
   * their signals aborted). Default: 60000 ms, as controller-runtime waits one minute.
   */
  shutdownTimeoutMs?: number;
}

export interface ResolvedWebhookServerOptions {
  host: string;
  port: number;
  certDir: string;
  certName: string;
  keyName: string;
  clientCAName: string | undefined;
  tlsOpts: WebhookTLSOptions;
  certWatcher: CertWatcher | undefined;
  logger: Logger;
  registry: Registry;
  certPollIntervalMs: number;
  shutdownTimeoutMs: number;
}

/** Applies every default, and checks what can be checked without I/O. */
export function resolveWebhookServerOptions(opts: WebhookServerOptions = {}): ResolvedWebhookServerOptions {
  const port = opts.port ?? 9443;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`invalid webhook server port ${port}: use 0 to 65535 (0 picks a free port)`);
  }
  return {
    host: opts.host ?? "",
    port,
    certDir: opts.certDir || join(tmpdir(), "k8s-webhook-server", "serving-certs"),
    certName: opts.certName || "tls.crt",
    keyName: opts.keyName || "tls.key",
    clientCAName: opts.clientCAName || undefined,
    tlsOpts: opts.tlsOpts ?? {},
    certWatcher: opts.certWatcher,
    logger: opts.logger ?? nullLogger(),
    registry: opts.registry ?? new Registry(),
    certPollIntervalMs: opts.certPollIntervalMs ?? 10_000,
    shutdownTimeoutMs: opts.shutdownTimeoutMs ?? 60_000,
  };
}
