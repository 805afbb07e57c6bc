// CredentialSource: what the transport asks, per request, for the Authorization header and the
// client certificate. Static credentials come straight from the RESTConfig; a token file is
// re-read as it rotates; exec plugins run on demand and are cached until they expire.
import { X509Certificate } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { RESTConfig } from "./config.js";
import { ConfigError } from "./config-error.js";
import { type ExecCredentialResult, runExecPlugin } from "./exec-credential.js";
import { abortable } from "./abortable.js";

export interface CredentialSource {
  /** The Authorization header value to send, or undefined. Runs/refreshes exec plugins. */
  authorization(signal?: AbortSignal): Promise<string | undefined>;
  /** Client certificate from the config or from an exec plugin (may change on refresh). */
  clientCertificate(signal?: AbortSignal): Promise<{ cert: string; key: string } | undefined>;
  /** Called after a 401: drop cached exec credentials so the next call re-runs the plugin. */
  invalidate(): void;
  /** Names the credential for error messages ("the token in file /var/run/..."), never its secret. Default: "the credentials". */
  describe?(): string;
}

export interface CredentialSourceOptions {
  /** The clock, in ms since the epoch. Default: Date.now. */
  now?: () => number;
  /**
   * How long a token file's content is used before the file is read again, in ms. A 401
   * (`invalidate()`) forces a re-read sooner. Default: 60000, as client-go.
   */
  tokenFileRefreshMs?: number;
  /** The environment exec plugins inherit. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where exec plugins' stderr is copied. Default: process.stderr. */
  stderr?: NodeJS.WritableStream;
  /** Whether exec plugins may prompt on stdin. Default: process.stdin.isTTY. */
  interactive?: boolean;
}

/**
 * Creates the credential source for `config`. Precedence, as client-go: a token file (falling
 * back to `bearerToken` while it cannot be read), a bearer token, basic auth, then the exec
 * plugin's token. The config's own client certificate wins over one from the plugin.
 */
export function newCredentialSource(
  config: RESTConfig,
  opts: CredentialSourceOptions = {},
): CredentialSource {
  const now = opts.now ?? Date.now;
  const refreshMs = opts.tokenFileRefreshMs ?? 60_000;
  const { auth, tls } = config;
  const tokenFile = auth.bearerTokenFile
    ? cachedTokenFile(auth.bearerTokenFile, auth.bearerToken, now, refreshMs)
    : undefined;
  const exec = auth.exec ? cachedExec(config, opts, now) : undefined;
  const staticCert = tls.cert && tls.key ? { cert: tls.cert, key: tls.key } : undefined;

  return {
    async authorization(signal) {
      if (tokenFile) return `Bearer ${await tokenFile.get(signal)}`;
      if (auth.bearerToken) return `Bearer ${auth.bearerToken}`;
      if (auth.username || auth.password) {
        return `Basic ${Buffer.from(`${auth.username ?? ""}:${auth.password ?? ""}`).toString("base64")}`;
      }
      if (exec) {
        const cred = await exec.get(signal);
        if (cred.token) return `Bearer ${cred.token}`;
      }
      return undefined;
    },
    async clientCertificate(signal) {
      if (staticCert) return staticCert;
      // With a static token the plugin is not needed for the header; don't run it for a cert.
      if (exec && !tokenFile && !auth.bearerToken) return (await exec.get(signal)).clientCertificate;
      return undefined;
    },
    invalidate() {
      exec?.invalidate();
      tokenFile?.invalidate();
    },
    describe: () => describeCredentials(config),
  };
}

/**
 * Which credential a config sends, in the precedence `authorization()` uses, for messages about a
 * 401: a token file, a bearer token, basic auth, an exec plugin, a client certificate (by subject).
 */
export function describeCredentials(config: RESTConfig): string {
  const { auth, tls } = config;
  const parts: string[] = [];
  if (auth.bearerTokenFile) parts.push(`the token in file ${auth.bearerTokenFile}`);
  else if (auth.bearerToken) parts.push("a static bearer token");
  else if (auth.username || auth.password) parts.push(`basic auth as user "${auth.username ?? ""}"`);
  else if (auth.exec) parts.push(`the token of exec plugin "${auth.exec.command}"`);
  if (tls.cert) parts.push(`a client certificate for ${certificateSubject(tls.cert)}`);
  else if (auth.exec && !auth.bearerToken && !auth.bearerTokenFile && !parts.length) {
    parts.push(`the certificate of exec plugin "${auth.exec.command}"`);
  }
  return parts.length ? parts.join(" and ") : "no credentials (an anonymous request)";
}

function certificateSubject(pem: string): string {
  try {
    const subject = new X509Certificate(pem).subject.split("\n");
    const cn = subject.find((l) => l.startsWith("CN="))?.slice(3);
    const groups = subject.filter((l) => l.startsWith("O=")).map((l) => l.slice(2));
    const expired = Date.parse(new X509Certificate(pem).validTo) < Date.now() ? ", expired" : "";
    return `user "${cn ?? ""}"${groups.length ? ` (groups ${groups.join(", ")})` : ""}${expired}`;
  } catch {
    return "a subject that cannot be read (not a PEM certificate)";
  }
}

interface Cached<T> {
  get(signal?: AbortSignal): Promise<T>;
  invalidate(): void;
}

function cachedTokenFile(
  path: string,
  fallback: string | undefined,
  now: () => number,
  refreshMs: number,
): Cached<string> {
  let token: string | undefined;
  let readAt = Number.NEGATIVE_INFINITY;
  let reading: Promise<string> | undefined;

  const read = async (): Promise<string> => {
    try {
      const text = (await readFile(path, "utf8")).trim();
      if (text === "") throw new Error("the file is empty");
      token = text;
      readAt = now();
      return text;
    } catch (err) {
      // Keep serving the last good token (or the static one) while the file is being replaced.
      const last = token ?? fallback;
      if (last !== undefined) return last;
      throw new ConfigError(
        "ERR_TOKEN_FILE",
        `cannot read bearer token file ${path}: ${(err as Error).message}; check that the file exists and is readable`,
        { cause: err },
      );
    }
  };

  return {
    get(signal) {
      if (token !== undefined && now() - readAt < refreshMs) return Promise.resolve(token);
      if (!reading) {
        reading = read().finally(() => {
          reading = undefined;
        });
        reading.catch(() => {});
      }
      return abortable(reading, signal);
    },
    invalidate() {
      readAt = Number.NEGATIVE_INFINITY;
    },
  };
}

function cachedExec(
  config: RESTConfig,
  opts: CredentialSourceOptions,
  now: () => number,
): Cached<ExecCredentialResult> {
  const exec = config.auth.exec!;
  let cached: ExecCredentialResult | undefined;
  let running: Promise<ExecCredentialResult> | undefined;

  const fresh = (c: ExecCredentialResult) => c.expiresAt === undefined || now() < c.expiresAt;

  return {
    get(signal) {
      if (cached && fresh(cached)) return Promise.resolve(cached);
      if (!running) {
        // One run is shared by every caller; no caller's signal may kill it for the others,
        // so the plugin is bounded by its own timeout instead.
        running = runExecPlugin({
          exec,
          cluster: {
            server: config.host,
            tlsServerName: config.tls.serverName,
            insecureSkipTlsVerify: config.tls.insecureSkipVerify,
            certificateAuthority: config.tls.ca,
            proxyUrl: config.proxyUrl,
          },
          env: opts.env,
          stderr: opts.stderr,
          interactive: opts.interactive,
        })
          .then((result) => {
            cached = result;
            return result;
          })
          .finally(() => {
            running = undefined;
          });
        // Callers that gave up must not leave the rejection unhandled.
        running.catch(() => {});
      }
      return abortable(running, signal);
    },
    invalidate() {
      cached = undefined;
    },
  };
}
