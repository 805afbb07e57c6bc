// In-cluster config: the API server from KUBERNETES_SERVICE_HOST/PORT, and the Pod's mounted
// service-account token, CA and namespace, as client-go's rest.InClusterConfig.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RESTConfig } from "./config.js";
import { ConfigError } from "./config-error.js";

/** Where Kubernetes mounts a Pod's service-account files. */
export const defaultServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface InClusterOptions {
  /** Where KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Holds `token`, `ca.crt` and `namespace`. Default: /var/run/secrets/kubernetes.io/serviceaccount. */
  serviceAccountDir?: string;
}

/**
 * Builds the config of a process running in a Pod. The token is recorded as
 * `auth.bearerTokenFile`, so the transport re-reads it as the kubelet rotates it. A missing CA or
 * namespace file is tolerated (the system roots and no namespace are used), as in client-go.
 */
export function inClusterConfig(opts: InClusterOptions = {}): RESTConfig {
  const env = opts.env ?? process.env;
  const dir = opts.serviceAccountDir ?? defaultServiceAccountDir;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new ConfigError(
      "ERR_NOT_IN_CLUSTER",
      "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set",
    );
  }
  const tokenFile = join(dir, "token");
  let token: string;
  try {
    token = readFileSync(tokenFile, "utf8").trim();
  } catch (err) {
    throw new ConfigError(
      "ERR_IN_CLUSTER",
      `in-cluster: cannot read the service-account token ${tokenFile}: ${(err as Error).message}; ` +
        "is automountServiceAccountToken disabled for this Pod?",
      { cause: err },
    );
  }
  // IPv6 service addresses need brackets in a URL.
  const server = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const config: RESTConfig = {
    host: `https://${server}:${port}`,
    tls: {},
    auth: { bearerToken: token, bearerTokenFile: tokenFile },
    source: "in-cluster",
  };
  const ca = readOptional(join(dir, "ca.crt"));
  if (ca) config.tls.ca = ca;
  const namespace = readOptional(join(dir, "namespace"))?.trim();
  if (namespace) config.namespace = namespace;
  return config;
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
