// kube's impersonation filter: `Impersonate-User`, `-Group`, `-Uid` and `-Extra-<key>` headers
// make the request act as another identity, when the requester may `impersonate` each part
// (users, groups, serviceaccounts, uids, userextras/<key>). Runs before the request's own
// authorization, which then judges the impersonated user.
import type { IncomingHttpHeaders } from "node:http";
import type { Attributes } from "../authz/attributes.js";
import { forbiddenError } from "../authz/forbidden.js";
import { badRequest } from "../status.js";
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

const extraPrefix = "impersonate-extra-";
const headerValues = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

/** Whether any impersonation header was sent (a scan of names, on every request). */
function impersonating(headers: IncomingHttpHeaders): boolean {
  for (const name in headers) if (name.startsWith("impersonate-")) return true;
  return false;
}

/** Go's %#v of the user.DefaultInfo the headers ask for (kube 1.37 prints it in its 400). */
function goDefaultInfo(name: string, uid: string, groups: string[], extra: Record<string, string[]>): string {
  const list = (l: string[]) => `[]string{${l.map((x) => JSON.stringify(x)).join(", ")}}`;
  const keys = Object.keys(extra).sort();
  const extraText =
    keys.length === 0
      ? "map[string][]string(nil)"
      : `map[string][]string{${keys.map((k) => `${JSON.stringify(k)}:${list(extra[k])}`).join(", ")}}`;
  return `&user.DefaultInfo{Name:${JSON.stringify(name)}, UID:${JSON.stringify(uid)}, Groups:${
    groups.length === 0 ? "[]string(nil)" : list(groups)
  }, Extra:${extraText}}`;
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
    // kube 1.37's constrained impersonation filter answers a 400 (1.26's legacy one a plain 500).
    const extra: Record<string, string[]> = {};
    for (const w of out)
      if (w.kind === "UserExtra") extra[w.fieldPath] = [...(extra[w.fieldPath] ?? []), w.name];
    throw badRequest(`requested ${goDefaultInfo("", uid, groups, extra)} without impersonating a user name`);
  }
  return out;
}

/** A node's username: `system:node:<a DNS subdomain>`. */
const isNodeUser = (name: string) =>
  /^system:node:[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name) &&
  name.length - "system:node:".length <= 253;

/**
 * The user the request acts as: `requester` itself without impersonation headers. kube 1.37's
 * constrained impersonation (KEP 5284) tries, in order, the modes that fit the wanted user
 * (`arbitrary-node` and `serviceaccount` for a username alone, `user-info` for anyone else):
 * each needs `impersonate-on:<mode>:<verb>` on the request itself and `impersonate:<mode>` on
 * each part; then the legacy `impersonate` verb on each part. The first refusal is the 403.
 */
export function impersonate(
  headers: IncomingHttpHeaders,
  requester: UserInfo,
  authorize: (a: Attributes) => Decision,
  request: Attributes,
  lastModes: ImpersonationModes,
): UserInfo {
  if (!impersonating(headers)) return requester;
  const wanted = requests(headers);
  if (wanted.length === 0) return requester;
  const userName = headerValues(headers["impersonate-user"])[0] ?? "";
  const onlyUsername = wanted.length === 1;
  const sa = splitServiceAccountUser(userName) !== undefined;
  const modes: string[] = [];
  if (onlyUsername && isNodeUser(userName)) modes.push("arbitrary-node");
  if (onlyUsername && sa) modes.push("serviceaccount");
  if (!sa && !userName.startsWith("system:node:")) modes.push("user-info");
  modes.push("legacy");
  // The mode that last worked for this requester is tried first (kube's modeIndexCache), so its
  // refusal is the one reported.
  const last = lastModes.get(requester.name);
  if (last && modes.includes(last)) modes.sort((a, b) => Number(b === last) - Number(a === last));
  let firstError: unknown;
  for (const mode of modes) {
    try {
      const user = impersonateInMode(headers, wanted, requester, authorize, request, mode);
      lastModes.set(requester.name, mode);
      return user;
    } catch (e) {
      firstError ??= e;
    }
  }
  throw firstError;
}

/** The impersonation mode that last worked for each requester, the least recent forgotten first. */
export class ImpersonationModes {
  readonly #modes = new Map<string, string>();
  get(requester: string): string | undefined {
    return this.#modes.get(requester);
  }
  set(requester: string, mode: string): void {
    this.#modes.delete(requester);
    this.#modes.set(requester, mode);
    // kube keeps 10 000 requesters in an LRU.
    if (this.#modes.size > 10_000) this.#modes.delete(this.#modes.keys().next().value as string);
  }
}

function impersonateInMode(
  headers: IncomingHttpHeaders,
  wanted: Impersonation[],
  requester: UserInfo,
  authorize: (a: Attributes) => Decision,
  request: Attributes,
  mode: string,
): UserInfo {
  if (mode === "legacy") return impersonateParts(headers, wanted, requester, authorize, "impersonate");
  const on = { ...request, user: requester, verb: `impersonate-on:${mode}:${request.verb}` };
  const decision = authorize(on);
  if (!decision.allowed) throw forbiddenError(on, decision.reason);
  return impersonateParts(headers, wanted, requester, authorize, `impersonate:${mode}`);
}

/** Each wanted part, authorized with `verb`: the user it makes. */
function impersonateParts(
  headers: IncomingHttpHeaders,
  wanted: Impersonation[],
  requester: UserInfo,
  authorize: (a: Attributes) => Decision,
  verb: string,
): UserInfo {
  const groupsGiven = headerValues(headers["impersonate-group"]).length > 0;
  let name = "";
  let groups: string[] = [];
  let uid = "";
  const extra: Record<string, string[]> = {};
  for (const w of wanted) {
    const attrs: Attributes = {
      user: requester,
      verb,
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
        if (verb !== "impersonate" && isNodeUser(w.name)) {
          // Constrained modes check a node as the Node, with the fixed group of nodes.
          attrs.resource = "nodes";
          attrs.name = w.name.slice("system:node:".length);
          groups = ["system:nodes"];
        }
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
