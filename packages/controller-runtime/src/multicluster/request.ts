// The request of a multi-cluster controller: an object's key and the name of its cluster
// (multicluster-runtime's mcreconcile.Request), with the codec that makes it a work queue key.
import { type Request, type RequestCodec, requestFromKey, requestKey } from "../reconcile/index.js";
import type { ClusterName } from "./multicluster.js";

/** An object's key in a named cluster. */
export interface ClusterRequest extends Request {
  /** `""` for the Manager's own cluster. */
  readonly clusterName: ClusterName;
}

const prefix = "cluster://";

/**
 * `cluster://<name>/<namespace>/<name>` (multicluster-runtime's `Request.String()`), or the plain
 * key in the local cluster; the cluster name is URI-encoded, so any name round-trips.
 */
export function clusterRequestKey(req: ClusterRequest): string {
  if (!req.clusterName) return requestKey(req);
  return `${prefix}${encodeURIComponent(req.clusterName)}/${requestKey(req)}`;
}

/** The work queue codec of {@link ClusterRequest}s. */
export const clusterRequestCodec: RequestCodec<ClusterRequest> = Object.freeze({
  toKey: clusterRequestKey,
  fromKey(key: string): ClusterRequest {
    if (!key.startsWith(prefix)) return { ...requestFromKey(key), clusterName: "" };
    const slash = key.indexOf("/", prefix.length);
    return {
      ...requestFromKey(key.slice(slash + 1)),
      clusterName: decodeURIComponent(key.slice(prefix.length, slash)),
    };
  },
});
