// getConfig: where a RESTConfig comes from, as controller-runtime's config.GetConfig. This is the
// one place that reads process.argv and process.env for configuration, and only when called.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import type { RESTConfig } from "./config.js";
import { ConfigError, isConfigError } from "./config-error.js";
import { inClusterConfig } from "./in-cluster.js";
import { isSupportedExecVersion } from "./exec-credential.js";
import {
  type Kubeconfig,
  type KubeconfigCluster,
  type KubeconfigUser,
  loadKubeconfig,
  type Named,
} from "./kubeconfig.js";

export interface GetConfigOptions {
  /** A kubeconfig file to use, skipping the search. Default: the `--kubeconfig` flag. */
  kubeconfig?: string;
  /** The kubeconfig context to use. Default: the `--context` flag, else `current-context`. */
  context?: string;
  /** Where the flags are read. Default: process.argv. */
  argv?: string[];
  /** Where KUBECONFIG, HOME and KUBERNETES_SERVICE_HOST/PORT are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The home directory whose `.kube/config` is the last resort. Default: $HOME, else os.homedir(). */
  homeDir?: string;
  /** The service-account mount. Default: /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccountDir?: string;
}

/**
 * Finds the config to reach the API server, in controller-runtime's order:
 * 1. the `--kubeconfig` flag (or `opts.kubeconfig`): that file, which must exist;
 * 2. `KUBECONFIG`: its files (separated by the platform's path delimiter), merged; missing ones
 *    are skipped, and in-cluster is not tried when it is set;
 * 3. in-cluster, when running in a Pod;
 * 4. `~/.kube/config`.
 * The context is `--context` (or `opts.context`), else the kubeconfig's `current-context`.
 * Throws a {@link ConfigError}: one naming the file and field when a kubeconfig is broken, or
 * `ERR_CONFIG_NOT_FOUND` listing everything tried.
 */
export function getConfig(opts: GetConfigOptions = {}): RESTConfig {
  const argv = opts.argv ?? process.argv;
  const env = opts.env ?? process.env;
  const context = opts.context ?? flagValue(argv, "context");
  const fromFiles = (files: string[]) => configFromKubeconfig(loadKubeconfig(files), { context });

  const explicit = opts.kubeconfig ?? flagValue(argv, "kubeconfig");
  if (explicit) return fromFiles([explicit]);

  const tried = ["--kubeconfig: not set"];
  const listed = (env.KUBECONFIG ?? "").split(delimiter).filter((p) => p !== "");
  if (listed.length > 0) {
    const present = listed.filter((p) => existsSync(p));
    if (present.length > 0) return fromFiles(present);
    tried.push(`KUBECONFIG: none of ${listed.map((p) => resolve(p)).join(", ")} exists`);
  } else {
    tried.push("KUBECONFIG: not set");
    try {
      return inClusterConfig({ env, serviceAccountDir: opts.serviceAccountDir });
    } catch (err) {
      if (!isConfigError(err, "ERR_NOT_IN_CLUSTER") && !isConfigError(err, "ERR_IN_CLUSTER")) throw err;
      tried.push(`in-cluster: ${err.message}`);
    }
    const home = opts.homeDir ?? env.HOME ?? env.USERPROFILE ?? homedir();
    const homeConfig = join(home, ".kube", "config");
    if (existsSync(homeConfig)) return fromFiles([homeConfig]);
    tried.push(`${homeConfig}: no such file`);
  }
  throw new ConfigError(
    "ERR_CONFIG_NOT_FOUND",
    `no Kubernetes config found; tried ${tried.join("; ")}. ` +
      "Pass --kubeconfig PATH, set KUBECONFIG, or run in a Pod with a service account.",
  );
}

/**
 * Reads a Go-style flag: `--name=value`, `--name value`, or the same with one dash. The last
 * occurrence wins, as with Go's flag package; `--` ends the flags.
 */
function flagValue(argv: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") break;
    const m = /^--?([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!m || m[1] !== name) continue;
    if (m[2] !== undefined) value = m[2];
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new ConfigError("ERR_INVALID_FLAG", `flag --${name} needs a value: --${name}=VALUE`);
  }
  return value;
}

export interface KubeconfigContextOptions {
  /** The context to use. Default: the kubeconfig's `current-context`. */
  context?: string;
}

/**
 * Turns one context of a loaded kubeconfig into a RESTConfig: reads the files it names
 * (certificates, token file) and checks the combination, naming the file and field of any fault.
 */
export function configFromKubeconfig(kc: Kubeconfig, opts: KubeconfigContextOptions = {}): RESTConfig {
  const files = kc.files.join(delimiter);
  const name = opts.context ?? kc.currentContext;
  if (!name) {
    throw invalid(
      `kubeconfig ${files}: no context chosen: current-context is not set; ` +
        `run "kubectl config use-context NAME" or pass --context NAME`,
    );
  }
  const ctx = kc.contexts.get(name);
  if (!ctx) {
    const known = [...kc.contexts.keys()].map((k) => `"${k}"`).join(", ") || "none";
    throw invalid(
      opts.context
        ? `kubeconfig ${files}: context "${name}" (from --context) is not defined; defined contexts: ${known}`
        : `kubeconfig ${kc.currentContextFile}: current-context "${name}" names no context; defined contexts: ${known}`,
    );
  }
  const at = `kubeconfig ${ctx.file}: ${ctx.field}.context`;
  const clusterName = ctx.value.cluster ?? fail(`${at}.cluster is missing`);
  const cluster = kc.clusters.get(clusterName) ?? fail(`${at}.cluster "${clusterName}" names no cluster`);
  const userName = ctx.value.user;
  const user = userName === undefined ? undefined : kc.users.get(userName);
  if (userName !== undefined && !user) fail(`${at}.user "${userName}" names no user`);

  const config: RESTConfig = {
    host: serverUrl(cluster),
    tls: clusterTls(cluster),
    auth: {},
    source: `kubeconfig ${files}, context "${name}"${userName === undefined ? "" : `, user "${userName}"`}`,
  };
  if (cluster.value.proxyUrl) config.proxyUrl = proxyUrl(cluster);
  if (ctx.value.namespace) config.namespace = ctx.value.namespace;
  if (user) applyUser(config, user, cluster);
  return config;
}

function invalid(message: string): ConfigError {
  return new ConfigError("ERR_KUBECONFIG_INVALID", message);
}

function fail(message: string): never {
  throw invalid(message);
}

function serverUrl(cluster: Named<KubeconfigCluster>): string {
  const at = `kubeconfig ${cluster.file}: ${cluster.field}.cluster.server`;
  const server = cluster.value.server ?? fail(`${at} is missing`);
  // A bare host:port is HTTPS, as client-go defaults it.
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `https://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    fail(`${at} "${server}" is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") fail(`${at} "${server}" must be http or https`);
  return withScheme.replace(/\/+$/, "");
}

function proxyUrl(cluster: Named<KubeconfigCluster>): string {
  const value = cluster.value.proxyUrl!;
  const at = `kubeconfig ${cluster.file}: ${cluster.field}.cluster.proxy-url "${value}"`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(`${at} is not a URL`);
  }
  if (!["http:", "https:", "socks5:"].includes(url.protocol)) fail(`${at} must be http, https or socks5`);
  return value;
}

function clusterTls(cluster: Named<KubeconfigCluster>): RESTConfig["tls"] {
  const c = cluster.value;
  const at = `kubeconfig ${cluster.file}: ${cluster.field}.cluster`;
  const tls: RESTConfig["tls"] = {};
  const ca = pem(at, "certificate-authority", c.certificateAuthorityData, c.certificateAuthority);
  if (ca && c.insecureSkipTlsVerify) {
    fail(`${at}: insecure-skip-tls-verify cannot be combined with certificate-authority(-data); remove one`);
  }
  if (ca) tls.ca = ca;
  if (c.insecureSkipTlsVerify) tls.insecureSkipVerify = true;
  if (c.tlsServerName) tls.serverName = c.tlsServerName;
  return tls;
}

function applyUser(config: RESTConfig, user: Named<KubeconfigUser>, cluster: Named<KubeconfigCluster>): void {
  const u = user.value;
  const at = `kubeconfig ${user.file}: ${user.field}.user`;
  if (u.authProvider) {
    throw new ConfigError(
      "ERR_AUTH_PROVIDER_UNSUPPORTED",
      `${at}.auth-provider "${u.authProvider.name}" of user "${user.name}" is not supported: ` +
        "auth providers were removed from client-go; configure an exec credential plugin instead " +
        "(for example gke-gcloud-auth-plugin or kubelogin)",
    );
  }
  const cert = pem(at, "client-certificate", u.clientCertificateData, u.clientCertificate);
  const key = pem(at, "client-key", u.clientKeyData, u.clientKey, "PRIVATE KEY");
  if (cert && !key) fail(`${at} has client-certificate but no client-key; set both`);
  if (key && !cert) fail(`${at} has client-key but no client-certificate; set both`);
  if (cert && key) Object.assign(config.tls, { cert, key });

  const hasToken = u.token !== undefined || u.tokenFile !== undefined;
  const hasBasic = u.username !== undefined || u.password !== undefined;
  if (hasToken && hasBasic) fail(`${at} has both a token and username/password; only one is allowed`);
  if (u.token) config.auth.bearerToken = u.token;
  if (u.tokenFile) {
    // As clientcmd: read now so a wrong path fails at start, and keep the path to follow rotation.
    config.auth.bearerToken ??= readOrFail(`${at}.tokenFile`, u.tokenFile).trim();
    config.auth.bearerTokenFile = u.tokenFile;
  }
  if (u.username !== undefined) config.auth.username = u.username;
  if (u.password !== undefined) config.auth.password = u.password;
  if (u.exec) {
    if (!isSupportedExecVersion(u.exec.apiVersion)) {
      fail(
        `${at}.exec.apiVersion "${u.exec.apiVersion}" is not supported; ` +
          "use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1",
      );
    }
    config.auth.exec = { ...u.exec };
    if (cluster.value.execExtension !== undefined)
      config.auth.exec.clusterConfig = cluster.value.execExtension;
  }
}

/** A PEM from `<field>-data` (base64) or from the file `<field>`; the data wins, as in client-go. */
function pem(
  at: string,
  field: string,
  data?: string,
  file?: string,
  label = "CERTIFICATE",
): string | undefined {
  let text: string;
  let where: string;
  if (data) {
    text = Buffer.from(data, "base64").toString("utf8");
    where = `${at}.${field}-data`;
  } else if (file) {
    text = readOrFail(`${at}.${field}`, file);
    where = `${at}.${field} ${file}`;
  } else {
    return undefined;
  }
  if (!text.includes("-----BEGIN") || !text.includes(label)) {
    fail(`${where} holds no PEM ${label === "CERTIFICATE" ? "certificate" : "private key"}`);
  }
  return text;
}

function readOrFail(at: string, file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError("ERR_KUBECONFIG_READ", `${at}: cannot read ${file}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
