// The admin kubeconfig the server writes: client-certificate authentication, CA embedded.
// Written by hand, every string a JSON string (which YAML reads as a double-quoted scalar), so
// that starting the server does not load a YAML library for one fixed shape.

export interface KubeconfigInput {
  url: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  /** Default: `embedded`. */
  name?: string;
}

export function kubeconfigYaml(k: KubeconfigInput): string {
  const name = JSON.stringify(k.name ?? "embedded");
  const b64 = (s: string) => JSON.stringify(Buffer.from(s).toString("base64"));
  return [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    `    server: ${JSON.stringify(k.url)}`,
    `    certificate-authority-data: ${b64(k.caPem)}`,
    "users:",
    "- name: admin",
    "  user:",
    `    client-certificate-data: ${b64(k.clientCertPem)}`,
    `    client-key-data: ${b64(k.clientKeyPem)}`,
    "contexts:",
    `- name: ${name}`,
    "  context:",
    `    cluster: ${name}`,
    "    user: admin",
    "    namespace: default",
    `current-context: ${name}`,
    "preferences: {}",
    "",
  ].join("\n");
}
