// The few lines `npm start` prints once everything runs: where things are and how to look.
import type { AddressInfo } from "node:net";

export interface ReplicaInfo {
  name: string;
  metrics: AddressInfo | undefined;
  probes: AddressInfo | undefined;
  leader: boolean;
  /** The StorageBuckets assigned to this replica in the ring, of all there are. */
  share?: { held: number; total: number };
}

export interface BannerInfo {
  apiServer: string;
  embedded: boolean;
  kubeconfigPath: string;
  replicas: ReplicaInfo[];
  s3Endpoint?: string | undefined;
  /** The label that names each StorageBucket's replica. */
  shardLabel?: string;
  /** Standard input is a terminal, so Enter can show the banner again. */
  interactive?: boolean;
}

/** A URL for a bound address: a wildcard bind is reached on loopback. */
export function urlOf(addr: AddressInfo | undefined, path: string): string {
  if (!addr) return "(disabled)";
  const host = addr.address === "::" || addr.address === "0.0.0.0" ? "127.0.0.1" : addr.address;
  return `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}${path}`;
}

export function banner(info: BannerInfo): string {
  const lines = [
    "",
    "controller-runtime examples: StorageBucket, MarkdownView, Pods and Deployments",
    `  API server  ${info.apiServer}${info.embedded ? "  (embedded, in memory)" : ""}`,
    `  kubeconfig  ${info.kubeconfigPath}`,
    ...info.replicas.map(
      (r) =>
        `  ${r.name}   metrics ${urlOf(r.metrics, "/metrics")}  readyz ${urlOf(r.probes, "/readyz")}` +
        (r.share ? `  ${r.share.held} of ${r.share.total} StorageBuckets` : "") +
        (r.leader ? "  (leader)" : "  (standing by)"),
    ),
  ];
  if (info.s3Endpoint) {
    lines.push(
      `  fake S3     ${info.s3Endpoint}  (buckets photos, private; create one: curl -X PUT ${info.s3Endpoint}/archive)`,
    );
  }
  lines.push(
    "Look around:",
    `  export KUBECONFIG=${info.kubeconfigPath}`,
    "  kubectl get storagebuckets,markdownviews",
    `  kubectl get storagebuckets -L ${info.shardLabel ?? "shard.controller-runtime.io/examples"}   (each bucket's replica)`,
    "  kubectl get events",
    info.interactive ? "Press Enter to show this again, Ctrl-C to stop." : "Press Ctrl-C to stop.",
    "",
  );
  return lines.join("\n");
}
