// Runs one exec credential plugin (`users[].user.exec`) and checks what it printed, as client-go's
// plugin/pkg/client/auth/exec does: the ExecCredential request goes in KUBERNETES_EXEC_INFO, the
// response comes back on stdout, stderr goes to ours. Caching lives in credentials.ts.
import { spawn } from "node:child_process";
import type { ExecConfig } from "./config.js";
import { ConfigError } from "./config-error.js";

const supportedVersions = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"];
const defaultTimeoutMs = 60_000;
const maxStdout = 1 << 20; // an ExecCredential is a few KB; more means the plugin is confused
const stderrTail = 2048;

/** What a plugin is told about the cluster when `provideClusterInfo` is set. */
export interface ExecClusterInfo {
  server: string;
  tlsServerName?: string;
  insecureSkipTlsVerify?: boolean;
  /** PEM; sent base64-encoded, as `certificate-authority-data`. */
  certificateAuthority?: string;
  proxyUrl?: string;
}

/** A credential returned by a plugin. */
export interface ExecCredentialResult {
  token?: string;
  clientCertificate?: { cert: string; key: string };
  /** When the credential stops being valid, in ms since the epoch. Default: never. */
  expiresAt?: number;
}

export interface RunExecPluginOptions {
  exec: ExecConfig;
  /** Sent to the plugin when `exec.provideClusterInfo` is set. */
  cluster?: ExecClusterInfo;
  /** The environment the plugin inherits, before `exec.env`. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the plugin's stderr is copied. Default: process.stderr. */
  stderr?: NodeJS.WritableStream;
  /** Whether stdin is a terminal the plugin may prompt on. Default: process.stdin.isTTY. */
  interactive?: boolean;
  signal?: AbortSignal;
}

/** Whether `apiVersion` is an ExecCredential version this library speaks. */
export function isSupportedExecVersion(apiVersion: string): boolean {
  return supportedVersions.includes(apiVersion);
}

function execInfo(opts: RunExecPluginOptions, interactive: boolean): string {
  const spec: Record<string, unknown> = { interactive };
  const c = opts.cluster;
  if (opts.exec.provideClusterInfo && c) {
    const cluster: Record<string, unknown> = { server: c.server };
    if (c.tlsServerName) cluster["tls-server-name"] = c.tlsServerName;
    if (c.insecureSkipTlsVerify) cluster["insecure-skip-tls-verify"] = true;
    if (c.certificateAuthority) {
      cluster["certificate-authority-data"] = Buffer.from(c.certificateAuthority).toString("base64");
    }
    if (c.proxyUrl) cluster["proxy-url"] = c.proxyUrl;
    if (opts.exec.clusterConfig !== undefined) cluster.config = opts.exec.clusterConfig;
    spec.cluster = cluster;
  }
  return JSON.stringify({ kind: "ExecCredential", apiVersion: opts.exec.apiVersion, spec });
}

function pluginError(exec: ExecConfig, what: string, cause?: unknown): ConfigError {
  const hint = exec.installHint ? `\n\n${exec.installHint}` : "";
  return new ConfigError("ERR_EXEC_PLUGIN", `exec plugin "${exec.command}": ${what}${hint}`, { cause });
}

/** Runs the plugin once and returns the credential it printed. Throws a ConfigError otherwise. */
export function runExecPlugin(opts: RunExecPluginOptions): Promise<ExecCredentialResult> {
  const { exec } = opts;
  if (!isSupportedExecVersion(exec.apiVersion)) {
    return Promise.reject(
      pluginError(
        exec,
        `apiVersion "${exec.apiVersion}" is not supported; use one of ${supportedVersions.join(", ")}`,
      ),
    );
  }
  const mode = exec.interactiveMode ?? "IfAvailable";
  const tty = opts.interactive ?? process.stdin.isTTY === true;
  if (mode === "Always" && !tty) {
    return Promise.reject(
      pluginError(
        exec,
        "interactiveMode is Always but standard input is not a terminal; run it from a terminal",
      ),
    );
  }
  const interactive = mode !== "Never" && tty;
  const env: NodeJS.ProcessEnv = { ...(opts.env ?? process.env) };
  for (const { name, value } of exec.env ?? []) env[name] = value;
  env.KUBERNETES_EXEC_INFO = execInfo(opts, interactive);
  const stderrSink = opts.stderr ?? process.stderr;
  const timeoutMs = exec.timeoutMs ?? defaultTimeoutMs;

  return new Promise<ExecCredentialResult>((resolve, reject) => {
    opts.signal?.throwIfAborted();
    const child = spawn(exec.command, exec.args ?? [], {
      env,
      stdio: [interactive ? "inherit" : "ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let errTail = "";
    let failure: ConfigError | undefined;
    const stop = (err: ConfigError) => {
      failure ??= err;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => stop(pluginError(exec, `did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onAbort = () => stop(pluginError(exec, "cancelled", opts.signal?.reason));
    opts.signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxStdout) stop(pluginError(exec, `printed more than ${maxStdout} bytes`));
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderrSink.write(chunk);
      errTail = (errTail + chunk.toString("utf8")).slice(-stderrTail);
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") failure ??= pluginError(exec, "executable not found", err);
      else if (err.code === "EACCES") failure ??= pluginError(exec, "executable is not executable", err);
      else failure ??= pluginError(exec, `could not be started: ${err.message}`, err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (failure) return reject(failure);
      if (code !== 0) {
        const why = code === null ? `was killed by ${signal}` : `failed with exit code ${code}`;
        const tail = errTail.trim() ? `: ${errTail.trim()}` : "";
        return reject(pluginError(exec, why + tail));
      }
      try {
        resolve(parseExecCredential(exec, Buffer.concat(out).toString("utf8")));
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** Checks a plugin's stdout as client-go does and extracts the credential. */
export function parseExecCredential(exec: ExecConfig, stdout: string): ExecCredentialResult {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch (err) {
    throw pluginError(exec, `printed something that is not JSON: ${(err as Error).message}`, err);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw pluginError(exec, "printed JSON that is not an ExecCredential object");
  }
  const cred = doc as Record<string, unknown>;
  if (cred.kind !== "ExecCredential") {
    throw pluginError(exec, `printed kind "${String(cred.kind)}", want ExecCredential`);
  }
  if (cred.apiVersion !== exec.apiVersion) {
    throw pluginError(
      exec,
      `is configured for apiVersion "${exec.apiVersion}" but printed "${String(cred.apiVersion)}"`,
    );
  }
  const status = cred.status;
  if (typeof status !== "object" || status === null) throw pluginError(exec, "printed no status");
  const {
    token,
    clientCertificateData: cert,
    clientKeyData: key,
    expirationTimestamp,
  } = status as Record<string, unknown>;
  const result: ExecCredentialResult = {};
  if (typeof token === "string" && token !== "") result.token = token;
  const hasCert = typeof cert === "string" && cert !== "";
  const hasKey = typeof key === "string" && key !== "";
  if (hasCert !== hasKey) {
    throw pluginError(exec, "printed only one of status.clientCertificateData and status.clientKeyData");
  }
  if (hasCert && hasKey) result.clientCertificate = { cert: cert as string, key: key as string };
  if (!result.token && !result.clientCertificate) {
    throw pluginError(exec, "printed neither status.token nor status.clientCertificateData/clientKeyData");
  }
  if (expirationTimestamp !== undefined && expirationTimestamp !== null && expirationTimestamp !== "") {
    const at = typeof expirationTimestamp === "string" ? Date.parse(expirationTimestamp) : Number.NaN;
    if (Number.isNaN(at)) {
      throw pluginError(
        exec,
        `printed an unreadable status.expirationTimestamp ${JSON.stringify(expirationTimestamp)}`,
      );
    }
    result.expiresAt = at;
  }
  return result;
}
