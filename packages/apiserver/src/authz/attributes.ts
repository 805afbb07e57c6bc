// What a request asks to do, as kube-apiserver's RequestInfoFactory reads it from the method and
// path (before any routing, so an unknown resource is still authorized first, as kube does).
import type { AccessAttributes, UserInfo } from "../handlers/context.js";
import { pathSegmentNameErrors, type RequestTarget } from "../request-path.js";

/** kube's authorizer.Attributes. */
export type Attributes = AccessAttributes;

const methodVerbs: Record<string, string> = {
  POST: "create",
  GET: "get",
  HEAD: "get",
  PUT: "update",
  PATCH: "patch",
  DELETE: "delete",
};

/** The attributes of a non-resource request: `verb` on `path`. */
export function pathAttributes(user: UserInfo, verb: string, path: string): Attributes {
  return {
    user,
    verb,
    resourceRequest: false,
    path,
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    resource: "",
    subresource: "",
    name: "",
  };
}

/** The attributes of a request, by kube's rules (`/watch/…` paths, `?watch`, the name a
 * `metadata.name` field selector picks, namespace subresources). */
export function requestAttributes(method: string, target: RequestTarget, user: UserInfo): Attributes {
  const attrs = pathAttributes(user, method.toLowerCase(), target.pathname);
  // kube splits the path trimmed of slashes: empty segments inside it stay.
  const trimmed = target.pathname.replace(/^\/+|\/+$/g, "");
  let parts = trimmed === "" ? [] : trimmed.split("/");
  if (parts.length < 3 || (parts[0] !== "api" && parts[0] !== "apis")) return attrs;
  const groupless = parts[0] === "api";
  parts = parts.slice(1);
  if (!groupless) {
    if (parts.length < 3) return attrs;
    attrs.apiGroup = parts[0];
    parts = parts.slice(1);
  }
  attrs.resourceRequest = true;
  attrs.apiVersion = parts[0];
  parts = parts.slice(1);
  let proxy = false;
  if (parts[0] === "watch" || parts[0] === "proxy") {
    if (parts.length < 2) {
      // kube cannot read such a path and answers it as a bad request; nothing is authorized.
      attrs.verb = parts[0];
      return attrs;
    }
    attrs.verb = parts[0];
    proxy = parts[0] === "proxy";
    parts = parts.slice(1);
  } else {
    attrs.verb = methodVerbs[method] ?? "";
  }
  if (parts[0] === "namespaces" && parts.length > 1) {
    attrs.namespace = parts[1];
    if (parts.length > 2 && parts[2] !== "status" && parts[2] !== "finalize") parts = parts.slice(2);
  }
  if (parts.length >= 3 && !proxy) attrs.subresource = parts[2];
  if (parts.length >= 2) attrs.name = parts[1];
  if (parts.length >= 1) attrs.resource = parts[0];

  if (attrs.name === "" && attrs.verb === "get") {
    const watch = target.query.getAll("watch");
    attrs.verb = watch.length > 0 && !["false", "0"].includes(watch[0].toLowerCase()) ? "watch" : "list";
    const named = exactName(target.query.getAll("fieldSelector")[0]);
    if (named !== undefined && pathSegmentNameErrors(named).length === 0) attrs.name = named;
  }
  if (attrs.name === "" && attrs.verb === "delete") attrs.verb = "deletecollection";
  return attrs;
}

/** The name a field selector requires exactly (`metadata.name=x` or `==x`), if any. */
function exactName(selector: string | undefined): string | undefined {
  if (!selector) return undefined;
  for (const term of selector.split(",")) {
    const m = /^\s*metadata\.name\s*(==|=)\s*(.*?)\s*$/.exec(term);
    if (m && !m[2].includes("\\")) return m[2];
  }
  return undefined;
}
