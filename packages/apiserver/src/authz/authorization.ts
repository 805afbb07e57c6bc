// The server's authorizer, as kube-apiserver chains it for `--authorization-mode=RBAC`: members
// of system:masters may do anything, everyone else what RBAC grants. `AlwaysAllow` lets every
// authenticated user do anything (the anonymous user still only what RBAC grants it).
import type { AuthorizationService, ResourceRequest, UserInfo } from "../handlers/context.js";
import type { Obj, Storage } from "../storage/index.js";
import type { Attributes } from "./attributes.js";
import { checkGrant, privilegedGroup } from "./escalation.js";
import { type Decision, RBACAuthorizer, type ResolvedRules, rbacGroup, type RoleRef } from "./rbac.js";
import type { PolicyRule } from "./rules.js";

export type AuthorizationMode = "RBAC" | "AlwaysAllow";

/** Receives every request the authorizer allowed (envtest's access record). */
export type AccessListener = (a: Attributes) => void;

const allow: Decision = { allowed: true, reason: "" };
const rbacResources = new Set(["roles", "clusterroles", "rolebindings", "clusterrolebindings"]);

export class Authorization implements AuthorizationService {
  readonly mode: AuthorizationMode;
  readonly #rbac: RBACAuthorizer;
  readonly #listeners = new Set<AccessListener>();

  constructor(storage: Storage, mode: AuthorizationMode) {
    this.mode = mode;
    this.#rbac = new RBACAuthorizer(storage);
  }

  /** Whether the request may proceed; listeners hear of each one that may. */
  authorize(a: Attributes): Decision {
    const decision = this.decide(a);
    if (decision.allowed) for (const l of this.#listeners) l(a);
    return decision;
  }

  /** The decision alone, for reviews and escalation checks (nothing is recorded). */
  decide(a: Attributes): Decision {
    if (a.user.groups.includes(privilegedGroup)) return allow;
    if (this.mode === "AlwaysAllow" && a.user.groups.includes("system:authenticated")) return allow;
    const decision = this.#rbac.authorize(a);
    // kube's union authorizer passes an allowing member's reason as is, and joins the others'
    // reasons, each after its authorizer's name ("rbac" for --authorization-mode=RBAC).
    return decision.allowed || !decision.reason
      ? decision
      : { allowed: false, reason: `rbac: ${decision.reason}` };
  }

  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    return this.#rbac.rulesFor(user, namespace);
  }

  roleRefRules(ref: RoleRef, namespace: string): PolicyRule[] | string {
    return this.#rbac.roleRefRules(ref, namespace);
  }

  /** Listens to allowed requests until the returned function is called. */
  onAccess(listener: AccessListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  checkGrant(r: ResourceRequest, obj: Obj, old: Readonly<Obj> | undefined): void {
    if (this.mode === "AlwaysAllow" || r.def.crdName || r.def.group !== rbacGroup) return;
    if (!rbacResources.has(r.def.plural)) return;
    checkGrant(
      {
        authorize: (a) => this.decide(a),
        rulesFor: (u, ns) => this.rulesFor(u, ns),
        roleRefRules: (ref, ns) => this.roleRefRules(ref, ns),
      },
      { user: r.user, resource: r.def.plural, namespace: r.namespace, name: r.name },
      obj,
      old,
    );
  }
}
