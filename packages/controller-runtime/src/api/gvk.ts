// Group/version/kind and group/version/resource: how the API names types and their endpoints.

export interface GroupVersion {
  /** "" for the core group (`/api/v1`). */
  group: string;
  version: string;
}

export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

export interface GroupVersionResource extends GroupVersion {
  /** The plural, lower-case resource name: `deployments`. */
  resource: string;
}

/** `v1` for the core group, `apps/v1` otherwise. */
export function apiVersionOf(gv: GroupVersion): string {
  return gv.group === "" ? gv.version : `${gv.group}/${gv.version}`;
}

/** Splits an `apiVersion` (`apps/v1`, `v1`) into group and version. */
export function parseAPIVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `Deployment.v1.apps`, `Pod.v1.` - the form apimachinery prints. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.kind}.${gvk.version}.${gvk.group}`;
}
