// Roles, ClusterRoles and their bindings: kube's defaults (a User or Group subject's apiGroup),
// Go's field order inside rules, subjects and roleRefs, and kube's validation (ValidatePolicyRule,
// ValidateRoleBindingSubject, an immutable roleRef).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { pathSegmentNameErrors } from "../request-path.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const rbacGroup = "rbac.authorization.k8s.io";
const ruleOrder = ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"];
const subjectOrder = ["kind", "apiGroup", "name", "namespace"];
const roleRefOrder = ["apiGroup", "kind", "name"];

const isObject = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const len = (v: unknown) => list(v).length;

/** `o`'s keys in Go's declaration order, any others after. */
function ordered(o: Obj, order: readonly string[]): Obj {
  const out: Obj = {};
  for (const k of order) if (k in o) out[k] = o[k];
  for (const k of Object.keys(o)) if (!(k in out)) out[k] = o[k];
  return out;
}

/** A string slice as kube 1.37's field.Invalid prints one: JSON, `["/x"]` (1.26: Go's %#v). */
const jsonStrings = (v: unknown) => JSON.stringify(list(v));

function orderRules(obj: Obj): void {
  if (Array.isArray(obj.rules)) obj.rules = obj.rules.map((r) => (isObject(r) ? ordered(r, ruleOrder) : r));
}

function validateRules(obj: Obj, namespaced: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  list(obj.rules).forEach((raw, i) => {
    const rule = isObject(raw) ? raw : {};
    const at = `rules[${i}]`;
    if (len(rule.verbs) === 0)
      causes.push(cause.required(`${at}.verbs`, "verbs must contain at least one value"));
    if (len(rule.nonResourceURLs) > 0) {
      const value = jsonStrings(rule.nonResourceURLs);
      const invalid = (detail: string): StatusCause => ({
        reason: "FieldValueInvalid",
        message: `Invalid value: ${value}: ${detail}`,
        field: `${at}.nonResourceURLs`,
      });
      if (namespaced) causes.push(invalid("namespaced rules cannot apply to non-resource URLs"));
      if (len(rule.apiGroups) > 0 || len(rule.resources) > 0 || len(rule.resourceNames) > 0) {
        causes.push(invalid("rules cannot apply to both regular resources and non-resource URLs"));
      }
      return;
    }
    if (len(rule.apiGroups) === 0) {
      causes.push(cause.required(`${at}.apiGroups`, "resource rules must supply at least one api group"));
    }
    if (len(rule.resources) === 0) {
      causes.push(cause.required(`${at}.resources`, "resource rules must supply at least one resource"));
    }
  });
  return causes;
}

function roleBehaviour(namespaced: boolean): KindBehaviour {
  return {
    defaults: (obj) => orderRules(obj),
    validate(obj) {
      const causes = validateRules(obj, namespaced);
      const agg = obj.aggregationRule;
      if (!namespaced && isObject(agg) && len(agg.clusterRoleSelectors) === 0) {
        causes.push(
          cause.required(
            "aggregationRule.clusterRoleSelectors",
            "at least one clusterRoleSelector required if aggregationRule is non-nil",
          ),
        );
      }
      return causes;
    },
  };
}

function validateSubject(raw: unknown, namespaced: boolean, at: string): StatusCause[] {
  const s = isObject(raw) ? raw : {};
  const causes: StatusCause[] = [];
  const name = typeof s.name === "string" ? s.name : "";
  const apiGroup = typeof s.apiGroup === "string" ? s.apiGroup : "";
  if (!name) causes.push(cause.required(`${at}.name`));
  switch (s.kind) {
    case "ServiceAccount":
      if (name)
        for (const msg of dns1123SubdomainErrors(name)) causes.push(cause.invalid(`${at}.name`, name, msg));
      if (apiGroup) causes.push(cause.notSupported(`${at}.apiGroup`, apiGroup, [""]));
      if (!namespaced && !s.namespace) causes.push(cause.required(`${at}.namespace`));
      break;
    case "User":
    case "Group":
      if (apiGroup !== rbacGroup) causes.push(cause.notSupported(`${at}.apiGroup`, apiGroup, [rbacGroup]));
      break;
    default:
      causes.push(cause.notSupported(`${at}.kind`, s.kind ?? "", ["ServiceAccount", "User", "Group"]));
  }
  return causes;
}

function bindingBehaviour(namespaced: boolean): KindBehaviour {
  return {
    defaults(obj) {
      if (Array.isArray(obj.subjects)) {
        obj.subjects = obj.subjects.map((s) => {
          if (!isObject(s)) return s;
          if (!s.apiGroup && (s.kind === "User" || s.kind === "Group")) s.apiGroup = rbacGroup;
          return ordered(s, subjectOrder);
        });
      }
      // SetDefaults_RoleBinding: a roleRef names RBAC's group when it names none.
      // roleRef is a struct in Go: absent, it is empty (and then still defaulted).
      if (obj.roleRef === undefined || obj.roleRef === null) obj.roleRef = {};
      if (isObject(obj.roleRef)) {
        if (!obj.roleRef.apiGroup) obj.roleRef.apiGroup = rbacGroup;
        obj.roleRef = ordered(obj.roleRef, roleRefOrder);
      }
    },
    validate(obj, old) {
      const causes: StatusCause[] = [];
      const ref = isObject(obj.roleRef) ? obj.roleRef : {};
      const oldRef = old && isObject(old.roleRef) ? old.roleRef : undefined;
      // ValidateRoleBindingUpdate (1.37): the binding is validated as on create, and its roleRef
      // never changes; kube shows the Go struct.
      if (
        oldRef &&
        JSON.stringify(ordered(oldRef, roleRefOrder)) !== JSON.stringify(ordered(ref, roleRefOrder))
      ) {
        const shown = { APIGroup: ref.apiGroup ?? "", Kind: ref.kind ?? "", Name: ref.name ?? "" };
        causes.push(cause.invalid("roleRef", shown, "field is immutable"));
      }
      if (ref.apiGroup !== rbacGroup)
        causes.push(cause.notSupported("roleRef.apiGroup", ref.apiGroup ?? "", [rbacGroup]));
      const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
      if (!kinds.includes(ref.kind as string))
        causes.push(cause.notSupported("roleRef.kind", ref.kind ?? "", kinds));
      const name = typeof ref.name === "string" ? ref.name : "";
      if (!name) causes.push(cause.required("roleRef.name"));
      else
        for (const msg of pathSegmentNameErrors(name)) causes.push(cause.invalid("roleRef.name", name, msg));
      list(obj.subjects).forEach((s, i) => {
        causes.push(...validateSubject(s, namespaced, `subjects[${i}]`));
      });
      return causes;
    },
  };
}

export const rbacBehaviours: Record<string, KindBehaviour> = {
  "rbac.authorization.k8s.io/Role": roleBehaviour(true),
  "rbac.authorization.k8s.io/ClusterRole": roleBehaviour(false),
  "rbac.authorization.k8s.io/RoleBinding": bindingBehaviour(true),
  "rbac.authorization.k8s.io/ClusterRoleBinding": bindingBehaviour(false),
};
