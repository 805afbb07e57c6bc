// kube's RBAC authorizer: the rules a user holds in a namespace (cluster role bindings first, then
// the namespace's role bindings), and whether one of them allows a request. Resolved rules are
// cached per user and namespace and dropped whenever any RBAC object changes, so a GET costs a
// map lookup and a scan of the user's rules.
import type { AccessDecision, UserInfo } from "../handlers/context.js";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import type { Attributes } from "./attributes.js";
import { type PolicyRule, ruleAllows } from "./rules.js";

export const rbacGroup = "rbac.authorization.k8s.io";
export const rbacStores = {
  roles: `${rbacGroup}/roles`,
  clusterRoles: `${rbacGroup}/clusterroles`,
  roleBindings: `${rbacGroup}/rolebindings`,
  clusterRoleBindings: `${rbacGroup}/clusterrolebindings`,
} as const;

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

/** The rules a user holds, and why some bindings gave none (a role that does not exist). */
export interface ResolvedRules {
  rules: readonly PolicyRule[];
  /** For each rule, the binding it came from, as kube's allow reasons name it. */
  sources: readonly string[];
  errors: readonly string[];
}

export type Decision = AccessDecision;

/** The user name of a ServiceAccount. */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** kube's describeSubject: `User "bob"`, `ServiceAccount "robot/ns"`. */
function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === "ServiceAccount")
    return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

function appliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.name === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      // A RoleBinding's ServiceAccount without a namespace means one in the binding's namespace.
      const ns = subject.namespace || namespace;
      return ns !== "" && user.name === serviceAccountUser(ns, subject.name);
    }
    default:
      return false;
  }
}

/** Go's aggregate error text: one message as is, several (deduplicated) in brackets. */
export function aggregateErrors(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

// Users × namespaces seen between two RBAC changes; past this the cache starts over, so crafted
// namespaces in paths cannot grow it without bound.
const maxCachedUsers = 4096;

export class RBACAuthorizer {
  readonly #storage: Storage;
  readonly #cache = new Map<string, ResolvedRules>();

  constructor(storage: Storage) {
    this.#storage = storage;
    const invalidate = { deliver: () => this.#cache.clear() };
    for (const store of Object.values(rbacStores)) storage.addWatcher(store, invalidate);
  }

  authorize(a: Attributes): Decision {
    const { rules, sources, errors } = this.rulesFor(a.user, a.namespace);
    for (let i = 0; i < rules.length; i++) {
      if (ruleAllows(a, rules[i])) return { allowed: true, reason: `RBAC: allowed by ${sources[i]}` };
    }
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregateErrors(errors)}` : "" };
  }

  /** The rules `user` holds in `namespace` ("" for cluster-wide rules only). */
  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    const key = `${user.name}\0${namespace}\0${user.groups.join("\0")}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const resolved = this.#resolve(user, namespace);
    if (this.#cache.size >= maxCachedUsers) this.#cache.clear();
    this.#cache.set(key, resolved);
    return resolved;
  }

  /** The rules of a binding's roleRef, or why there are none. */
  roleRefRules(ref: RoleRef, namespace: string): PolicyRule[] | string {
    switch (ref.kind) {
      case "Role": {
        const role = this.#storage.get(rbacStores.roles, `${namespace}/${ref.name}`);
        return role ? rulesOf(role) : `role.${rbacGroup} "${ref.name}" not found`;
      }
      case "ClusterRole": {
        const role = this.#storage.get(rbacStores.clusterRoles, ref.name);
        return role ? rulesOf(role) : `clusterrole.${rbacGroup} "${ref.name}" not found`;
      }
      default:
        return `unsupported role reference kind: ${JSON.stringify(ref.kind)}`;
    }
  }

  #resolve(user: UserInfo, namespace: string): ResolvedRules {
    const rules: PolicyRule[] = [];
    const sources: string[] = [];
    const errors: string[] = [];
    const visit = (binding: StoredObject, bindingNamespace: string) => {
      const obj = binding.obj as Obj;
      const subjects = (obj.subjects as Subject[] | undefined) ?? [];
      const subject = subjects.find((s) => appliesTo(user, s, bindingNamespace));
      if (!subject) return;
      const ref = obj.roleRef as RoleRef;
      const found = this.roleRefRules(ref, bindingNamespace);
      if (typeof found === "string") {
        errors.push(found);
        return;
      }
      const kind = bindingNamespace ? "RoleBinding" : "ClusterRoleBinding";
      const bindingName = bindingNamespace ? `${binding.name}/${bindingNamespace}` : binding.name;
      const source = `${kind} ${JSON.stringify(bindingName)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${describeSubject(subject, bindingNamespace)}`;
      for (const rule of found) {
        rules.push(rule);
        sources.push(source);
      }
    };
    for (const b of this.#storage.list(rbacStores.clusterRoleBindings)) visit(b, "");
    if (namespace !== "") {
      for (const b of this.#storage.list(rbacStores.roleBindings, namespace)) visit(b, namespace);
    }
    return { rules, sources, errors };
  }
}

function rulesOf(role: StoredObject): PolicyRule[] {
  return ((role.obj as Obj).rules as PolicyRule[] | undefined) ?? [];
}
