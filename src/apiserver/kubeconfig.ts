// The admin kubeconfig the server writes: client-certificate authentication, CA embedded.
import { stringify } from "yaml";

export interface KubeconfigInput {
  url: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** Default: `embedded`. */
  name?: string;
}

export function kubeconfigYaml(k: KubeconfigInput): string {
  const name = k.name ?? "embedded";
  const b64 = (s: string) => Buffer.from(s).toString("base64");
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server: k.url, "certificate-authority-data": b64(k.caPem) } }],
    users: [
      {
        name: "admin",
        user: { "client-certificate-data": b64(k.clientCertPem), "client-key-data": b64(k.clientKeyPem) },
      },
    ],
    contexts: [{ name, context: { cluster: name, user: "admin", namespace: "default" } }],
    "current-context": name,
    preferences: {},
  });
}
