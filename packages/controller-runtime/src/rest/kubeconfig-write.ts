// Writes a RESTConfig as kubeconfig YAML, so kubectl and other tools can reach the same cluster.
import { stringify } from "yaml";
import type { RESTConfig } from "./config.js";

const b64 = (pem: string) => Buffer.from(pem).toString("base64");

/** A kubeconfig with one cluster, user and context, all named `name`, embedding certificates. */
export function renderKubeconfig(config: RESTConfig, name = "cluster"): string {
  const user: Record<string, unknown> = {};
  if (config.tls.cert) user["client-certificate-data"] = b64(config.tls.cert);
  if (config.tls.key) user["client-key-data"] = b64(config.tls.key);
  if (config.auth.bearerToken) user.token = config.auth.bearerToken;
  if (config.auth.bearerTokenFile) user.tokenFile = config.auth.bearerTokenFile;
  if (config.auth.username) user.username = config.auth.username;
  if (config.auth.password) user.password = config.auth.password;
  const cluster: Record<string, unknown> = { server: config.host };
  if (config.tls.ca) cluster["certificate-authority-data"] = b64(config.tls.ca);
  if (config.tls.insecureSkipVerify) cluster["insecure-skip-tls-verify"] = true;
  if (config.tls.serverName) cluster["tls-server-name"] = config.tls.serverName;
  if (config.proxyUrl) cluster["proxy-url"] = config.proxyUrl;
  const context: Record<string, unknown> = { cluster: name, user: name };
  if (config.namespace) context.namespace = config.namespace;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context }],
    "current-context": name,
    preferences: {},
  });
}
