// kube's impersonation filter: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-<key>` headers
// make the request act as another identity, when the requester may `impersonate` each part
// (users, groups, serviceaccounts, uids, userextras/<key>). Runs before the request's own
// authorization, which then judges the impersonated user.
import type { IncomingHttpHeaders } from "node:http";
import type { Attributes } from "../authz/attributes.js";
import { forbiddenError } from "../authz/forbidden.js";
import type { Decision } from "../authz/rbac.js";
import type { UserInfo } from "../handlers/context.js";
import { serviceAccountGroups, splitServiceAccountUser } from "./service-account-tokens.js";

interface Impersonation {
  kind: "User" | "ServiceAccount" | "Group" | "UserExtra" | "UID";
  namespace: string;
  name: string;
  apiVersion: string;
  fieldPath: string;
}

/** Impersonation headers kube cannot make sense of: answered as a plain-text 500, as Go's
 * http.Error writes it (`Internal Server Error: "<request URI>": <message>`). */
export class ImpersonationHeaderError extends Error {}

const extraPrefix = "impersonate-extra-";
const headerValues = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

/** Go's %v of an ObjectReference: its seven fields space-separated in braces. */
function describe(list: Impersonation[]): string {
  return `[${list.map((i) => `{${i.kind} ${i.namespace} ${i.name}  ${i.apiVersion}  ${i.fieldPath}}`).join(" ")}]`;
}

/** Whether any impersonation header was sent (a scan of names, on every request). */
function impersonating(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith("impersonate-")) return true;
  return false;
}

function requests(headers: IncomingHttpHeaders): Impersonation[] {
  const out: Impersonation[] = [];
  const base = { namespace: "", apiVersion: "", fieldPath: "" };
  const userHeader = headerValues(headers["impersonate-user"])[0] ?? "";
  if (userHeader) {
    const sa = splitServiceAccountUser(userHeader);
    out.push(sa ? { ...base, kind: "ServiceAccount", ...sa } : { ...base, kind: "User", name: userHeader });
  }
  const groups = headerValues(headers["impersonate-group"]);
  for (const g of groups) out.push({ ...base, kind: "Group", name: g });
  let extras = false;
  for (const [header, value] of Object.entries(headers)) {
    if (!header.startsWith(extraPrefix)) continue;
    extras = true;
    const key = decodeURIComponent(header.slice(extraPrefix.length).toLowerCase());
    for (const v of headerValues(value)) {
      out.push({
        ...base,
        kind: "UserExtra",
        name: v,
        apiVersion: "authentication.k8s.io/v1",
        fieldPath: key,
      });
    }
  }
  const uid = headerValues(headers["impersonate-uid"])[0] ?? "";
  if (uid) out.push({ ...base, kind: "UID", name: uid, apiVersion: "authentication.k8s.io/v1" });
  if ((groups.length > 0 || extras || uid) && !userHeader) {
    throw new ImpersonationHeaderError(`requested ${describe(out)} without impersonating a user`);
  }
  return out;
}

/** The user the request acts as: `requester` itself without impersonation headers. Throws kube's
 * 403 for a part the requester may not impersonate. */
export function impersonate(
  headers: IncomingHttpHeaders,
  requester: UserInfo,
  authorize: (a: Attributes) => Decision,
): UserInfo {
  if (!impersonating(headers)) return requester;
  const wanted = requests(headers);
  if (wanted.length === 0) return requester;
  const groupsGiven = headerValues(headers["impersonate-group"]).length > 0;
  let name = "";
  let groups: string[] = [];
  let uid = "";
  const extra: Record<string, string[]> = {};
  for (const w of wanted) {
    const attrs: Attributes = {
      user: requester,
      verb: "impersonate",
      resourceRequest: true,
      path: "",
      apiGroup: w.kind === "UserExtra" || w.kind === "UID" ? "authentication.k8s.io" : "",
      apiVersion: w.kind === "UserExtra" || w.kind === "UID" ? "v1" : "",
      namespace: w.namespace,
      resource: "",
      subresource: "",
      name: w.name,
    };
    switch (w.kind) {
      case "ServiceAccount":
        attrs.resource = "serviceaccounts";
        name = `system:serviceaccount:${w.namespace}:${w.name}`;
        // An account's groups are known: without Impersonate-Group they are the account's.
        if (!groupsGiven)
          groups = serviceAccountGroups(w.namespace).filter((g) => g !== "system:authenticated");
        break;
      case "User":
        attrs.resource = "users";
        name = w.name;
        break;
      case "Group":
        attrs.resource = "groups";
        groups.push(w.name);
        break;
      case "UserExtra":
        attrs.resource = "userextras";
        attrs.subresource = w.fieldPath;
        extra[w.fieldPath] = [...(extra[w.fieldPath] ?? []), w.name];
        break;
      case "UID":
        attrs.resource = "uids";
        uid = w.name;
        break;
    }
    const decision = authorize(attrs);
    if (!decision.allowed) throw forbiddenError(attrs, decision.reason);
  }
  if (name !== "system:anonymous") {
    if (!groups.includes("system:authenticated") && !groups.includes("system:unauthenticated")) {
      groups.push("system:authenticated");
    }
  } else if (!groups.includes("system:unauthenticated")) groups.push("system:unauthenticated");
  const user: UserInfo = { name, groups };
  if (uid) user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}
