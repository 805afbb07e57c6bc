// Legacy discovery documents, one group at a time: `/api` and `/apis/{group}` name a group's
// versions (preferred first), `/api/v1` and `/apis/{group}/{version}` list its resources. Asking
// per group keeps a controller that uses three kinds from reading the whole server.
import type { APIGroup, APIResource, APIResourceList, APIVersions } from "kubernetes-types/meta/v1.js";
import { groupVersionPath, isNotFound, type RawRequestOptions } from "../rest/index.js";

/** What discovery needs from a REST client. */
export interface DiscoveryClient {
  request<T = unknown>(opts: RawRequestOptions): Promise<T>;
}

export interface GroupVersions {
  /** In the server's order of priority. */
  versions: string[];
  preferred: string;
}

/** The versions the server serves for `group`; undefined when it serves no such group. */
export async function fetchGroupVersions(
  client: DiscoveryClient,
  group: string,
  timeoutMs: number,
): Promise<GroupVersions | undefined> {
  try {
    if (group === "") {
      const doc = await client.request<APIVersions>({ path: "/api", timeoutMs });
      const versions = doc.versions ?? [];
      return versions.length > 0 ? { versions, preferred: versions[0] } : undefined;
    }
    const doc = await client.request<APIGroup>({ path: `/apis/${encodeURIComponent(group)}`, timeoutMs });
    const versions = (doc.versions ?? []).map((v) => v.version);
    if (versions.length === 0) return undefined;
    return { versions, preferred: doc.preferredVersion?.version ?? versions[0] };
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The resources of one group version, subresources (`pods/status`) left out; undefined on 404. */
export async function fetchResources(
  client: DiscoveryClient,
  group: string,
  version: string,
  timeoutMs: number,
): Promise<APIResource[] | undefined> {
  try {
    const doc = await client.request<APIResourceList>({ path: groupVersionPath(group, version), timeoutMs });
    return (doc.resources ?? []).filter((r) => !r.name.includes("/"));
  } catch (err) {
    // A version removed between the two requests (a CRD updated): treat it as gone.
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
