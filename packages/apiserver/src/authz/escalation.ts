// kube's guard on RBAC writes (registry/rbac/*/policybased): a Role, ClusterRole or binding may
// grant only what its author already holds, unless the author is in system:masters or may
// `escalate` (roles) or `bind` (the referenced role). Checked after defaulting, before validation,
// as kube's storage does.
import type { UserInfo } from "../handlers/context.js";
import { forbidden, internalError, notFound } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { Attributes } from "./attributes.js";
import { type Decision, rbacGroup, type RoleRef } from "./rbac.js";
import { compactRules, compactString, covers, type PolicyRule } from "./rules.js";

/** What the guard needs from the authorizer. */
export interface GrantAuthority {
  authorize(a: Attributes): Decision;
  rulesFor(user: UserInfo, namespace: string): { rules: readonly PolicyRule[]; errors: readonly string[] };
  roleRefRules(ref: RoleRef, namespace: string): PolicyRule[] | string;
}

/** One RBAC write: the resource (roles, clusterroles, rolebindings, clusterrolebindings). */
export interface GrantRequest {
  user: UserInfo;
  resource: string;
  namespace: string;
  /** The name in the path ("" for a create). */
  name: string;
}

const fullAuthority: PolicyRule[] = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
  { verbs: ["*"], nonResourceURLs: ["*"] },
];

export const privilegedGroup = "system:masters";

function goQuoted(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

/** ConfirmNoEscalation: why the user may not grant `rules` in `namespace`, or undefined. */
function escalation(authority: GrantAuthority, req: GrantRequest, rules: readonly PolicyRule[]) {
  const owner = authority.rulesFor(req.user, req.namespace);
  const missing = covers(owner.rules, rules);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(req.user.name)} (groups=${goQuoted(req.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join("\n")}`;
  if (owner.errors.length > 0) {
    // kube's guard reads roles through the registry, whose not-found names the plural resource.
    const errors = owner.errors.map((e) => e.replace(/^(role|clusterrole)\./, "$1s."));
    msg += `; resolution errors: [${errors.join(" ")}]`;
  }
  return msg;
}

/** Whether only what garbage collection changes (owners, finalizers) differs from `old`. */
function onlyGCFields(obj: Obj, old: Readonly<Obj> | undefined): boolean {
  if (!old) return false;
  const strip = (o: Readonly<Obj>) => {
    const {
      ownerReferences: _o,
      finalizers: _f,
      managedFields: _m,
      resourceVersion: _r,
      ...meta
    } = (o.metadata ?? {}) as Obj;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(obj) === strip(old);
}

/** Throws kube's 403 (or 404 for a binding to a missing role) for a write that escalates. */
export function checkGrant(
  authority: GrantAuthority,
  req: GrantRequest,
  obj: Obj,
  old: Readonly<Obj> | undefined,
): void {
  if (req.user.groups.includes(privilegedGroup)) return;
  const ref = { group: rbacGroup, resource: req.resource, kind: "" };
  const name = String((obj.metadata as Obj | undefined)?.name ?? "");
  const allowed = (verb: string, resource: string, resourceName: string) =>
    authority.authorize({
      user: req.user,
      verb,
      resourceRequest: true,
      path: "",
      apiGroup: rbacGroup,
      apiVersion: "*",
      namespace: req.namespace,
      resource,
      subresource: "",
      name: resourceName,
    }).allowed;

  if (req.resource === "roles" || req.resource === "clusterroles") {
    if (allowed("escalate", req.resource, req.name)) return;
    if (onlyGCFields(obj, old)) return;
    const why = escalation(authority, req, (obj.rules as PolicyRule[] | undefined) ?? []);
    if (why) throw forbidden(ref, name, why);
    const aggregation = JSON.stringify(obj.aggregationRule ?? null);
    const changed = aggregation !== JSON.stringify(old?.aggregationRule ?? null);
    if (obj.aggregationRule && changed && escalation(authority, req, fullAuthority)) {
      throw forbidden(ref, name, "must have cluster-admin privileges to use the aggregationRule");
    }
    return;
  }

  const roleRef = (obj.roleRef ?? {}) as RoleRef;
  const roleResource =
    roleRef.kind === "ClusterRole" ? "clusterroles" : roleRef.kind === "Role" ? "roles" : "";
  if (roleResource && allowed("bind", roleResource, roleRef.name)) return;
  if (onlyGCFields(obj, old)) return;
  const rules = authority.roleRefRules(roleRef, req.namespace);
  if (typeof rules === "string") {
    if (!roleResource) throw internalError(rules);
    // The role is read through the role registry with the request's context, and kube's store
    // names a missing object after the request's resource (qualifiedResourceFromContext):
    // `rolebindings.rbac.authorization.k8s.io "absent" not found` for a missing Role.
    throw notFound(ref, roleRef.name);
  }
  const why = escalation(authority, req, rules);
  if (why) throw forbidden(ref, name, why);
}
