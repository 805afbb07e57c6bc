// URL paths and query strings for resources: `/api/v1/namespaces/ns/pods/name/status` and
// `/apis/apps/v1/deployments?labelSelector=...`, as client-go's request builder writes them.
import type { GroupVersionResource, Kind } from "../api/index.js";

/** A resource to address: its group, version and plural name, and optionally its scope. */
export interface ResourceRef extends GroupVersionResource {
  /**
   * When false, a namespace given to a call is ignored (cluster-scoped kinds). When undefined,
   * the path is namespaced exactly when a namespace is given. Default: undefined.
   */
  namespaced?: boolean;
}

/** The resource a Kind descriptor addresses. */
export function resourceOf(kind: Kind): ResourceRef {
  return { group: kind.group, version: kind.version, resource: kind.plural, namespaced: kind.namespaced };
}

/** `/api/v1` or `/apis/{group}/{version}`. */
export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
}

export interface PathParts {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/** The path of a resource collection, an object, or one of its subresources. */
export function resourcePath(ref: ResourceRef, parts: PathParts): string {
  let path = groupVersionPath(ref.group, ref.version);
  if (parts.namespace && ref.namespaced !== false)
    path += `/namespaces/${segment(parts.namespace, "namespace")}`;
  path += `/${ref.resource}`;
  if (parts.name !== undefined) path += `/${segment(parts.name, "name")}`;
  else if (parts.subresource) {
    throw new TypeError(`the ${parts.subresource} subresource of ${ref.resource} needs an object name`);
  }
  if (parts.subresource) path += `/${parts.subresource}`;
  return path;
}

function segment(value: string, what: string): string {
  if (value === "" || value === "." || value === ".." || value.includes("/") || value.includes("%")) {
    throw new TypeError(
      `invalid ${what} ${JSON.stringify(value)}: a path segment cannot be empty, ".", ".." or hold "/" or "%"`,
    );
  }
  return encodeURIComponent(value);
}

export type QueryValue = string | number | boolean | undefined;

/** `?a=1&b=x` from the defined values, or `""` when there are none. */
export function queryString(params: Record<string, QueryValue>): string {
  let out = "";
  for (const key in params) {
    const value = params[key];
    if (value === undefined) continue;
    out += `${out === "" ? "?" : "&"}${key}=${encodeURIComponent(String(value))}`;
  }
  return out;
}
