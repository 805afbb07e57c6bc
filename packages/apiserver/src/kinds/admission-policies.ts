// ValidatingAdmissionPolicies and their bindings: admissionregistration/v1's defaults and the
// core of kube-apiserver's validation (pkg/apis/admissionregistration/validation), so a policy
// whose CEL does not compile, or a binding with no or contradictory validationActions, is refused
// when written, with kube's field paths and words.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { celMatch, celPolicy } from "../lazy.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { pathSegmentNameErrors } from "../request-path.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { validateRule } from "./webhook-configurations.js";
import { labelSelectorCauses } from "./workloads.js";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"];
const REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"];
const NOT_FOUND_ACTIONS = ["Allow", "Deny"];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

export function objects(v: unknown): Obj[] {
  return Array.isArray(v) ? (v.filter((x) => x && typeof x === "object") as Obj[]) : [];
}

function specOf(obj: Obj): Obj {
  return storedSpec(obj) ?? {};
}

/** What an expression must evaluate to: a bool, a string, a string or null, anything. */
type Returns = "bool" | "string" | "string or null" | "any";

/** An expression: required, and it must compile, type-check and evaluate to what `returns` says. */
function expressionErrors(
  value: unknown,
  path: string,
  returns: Returns,
  variables: ReadonlyMap<string, unknown> = new Map(),
  compile: "policy" | "message" = "policy",
): StatusCause[] {
  const expression = typeof value === "string" ? value.trim() : "";
  if (expression === "") return [cause.required(path)];
  const cel = celPolicy.get();
  // A messageExpression may not name `authorizer` (kube's validateMessageExpression).
  const p = (compile === "message" ? cel.compilePolicyMessageExpression : cel.compilePolicyExpression)(
    expression,
  );
  if ("error" in p) return [cause.invalid(path, value, `compilation failed: ${p.error}`)];
  const types =
    returns === "bool"
      ? [cel.BOOL]
      : returns === "string"
        ? [cel.STRING]
        : returns === "any"
          ? []
          : [cel.STRING, cel.NULL];
  const issue = cel.policyExpressionIssue(
    expression,
    types,
    variables as Parameters<typeof cel.policyExpressionIssue>[2],
  );
  return issue ? [cause.invalid(path, value, issue)] : [];
}

export function matchResourcesErrors(m: unknown, path: string, isPolicy: boolean): StatusCause[] {
  if (m === undefined || m === null) return isPolicy ? [cause.required(path)] : [];
  const out: StatusCause[] = [];
  const rules = objects((m as Obj).resourceRules);
  if (isPolicy && rules.length === 0) out.push(cause.required(`${path}.resourceRules`));
  const policy = (m as Obj).matchPolicy;
  if (policy !== undefined && policy !== "Exact" && policy !== "Equivalent") {
    out.push(cause.notSupported(`${path}.matchPolicy`, policy, ["Equivalent", "Exact"]));
  }
  rules.forEach((r, i) => {
    out.push(...namedRuleErrors(r, `${path}.resourceRules[${i}]`));
  });
  objects((m as Obj).excludeResourceRules).forEach((r, i) => {
    out.push(...namedRuleErrors(r, `${path}.excludeResourceRules[${i}]`));
  });
  return out;
}

/** validateNamedRuleWithOperations: resource names that are path segments, once each, then the rule. */
function namedRuleErrors(rule: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  (Array.isArray(rule.resourceNames) ? rule.resourceNames : []).forEach((n, i) => {
    const name = String(n);
    for (const msg of pathSegmentNameErrors(name))
      out.push(cause.invalid(`${path}.resourceNames[${i}]`, name, msg));
    if (seen.has(name)) out.push(cause.duplicate(`${path}.resourceNames[${i}]`, name));
    seen.add(name);
  });
  out.push(...validateRule(rule, path));
  return out;
}

function validatePolicy(obj: Obj): StatusCause[] {
  const spec = specOf(obj);
  const out: StatusCause[] = [];
  const fp = spec.failurePolicy;
  if (fp !== undefined && !FAILURE_POLICIES.includes(String(fp))) {
    out.push(cause.notSupported("spec.failurePolicy", fp, FAILURE_POLICIES));
  }
  out.push(...matchResourcesErrors(spec.matchConstraints, "spec.matchConstraints", true));
  const validations = objects(spec.validations);
  const audits = objects(spec.auditAnnotations);
  if (validations.length === 0 && audits.length === 0) {
    // kube names both fields (validateValidatingAdmissionPolicySpec).
    for (const field of ["spec.validations", "spec.auditAnnotations"]) {
      out.push(cause.required(field, "validations or auditAnnotations must contain at least one item"));
    }
  }
  // The type of `variables.<name>` is its expression's: each variable sees those before it.
  const declared = objects(spec.variables)
    .filter((v) => typeof v.name === "string" && typeof v.expression === "string")
    .map((v) => ({ name: v.name as string, expression: v.expression as string }));
  const variableTypes: ReadonlyMap<string, unknown> = celPolicy.get().policyVariableTypes(declared);
  const before = (name: unknown) => {
    const entries = [...variableTypes];
    const i = entries.findIndex(([n]) => n === name);
    return new Map(i < 0 ? entries : entries.slice(0, i));
  };
  validations.forEach((v, i) => {
    const at = `spec.validations[${i}]`;
    out.push(...expressionErrors(v.expression, `${at}.expression`, "bool", variableTypes));
    if (v.messageExpression !== undefined)
      out.push(
        ...expressionErrors(
          v.messageExpression,
          `${at}.messageExpression`,
          "string",
          variableTypes,
          "message",
        ),
      );
    if (typeof v.message === "string" && v.message.includes("\n")) {
      out.push(cause.invalid(`${at}.message`, v.message, "message must not contain line breaks"));
    }
    if (v.reason !== undefined && !REASONS.includes(String(v.reason))) {
      out.push(cause.notSupported(`${at}.reason`, v.reason, REASONS));
    }
  });
  out.push(...variableErrors(spec, before));
  audits.forEach((a, i) => {
    const at = `spec.auditAnnotations[${i}]`;
    const key = typeof a.key === "string" ? a.key : "";
    if (key === "") out.push(cause.required(`${at}.key`));
    else {
      // The annotation is published as "<policy name>/<key>", which must be a qualified name.
      const full = `${String((obj.metadata as Obj | undefined)?.name ?? "")}/${key}`;
      for (const msg of qualifiedNameErrors(full)) out.push(cause.invalid(`${at}.key`, key, msg));
    }
    out.push(
      ...expressionErrors(a.valueExpression, `${at}.valueExpression`, "string or null", variableTypes),
    );
  });
  out.push(...matchConditionErrors(spec));
  out.push(...paramKindErrors(spec));
  return out;
}

/** A policy's `variables` (either kind of policy): names, and expressions each seeing `before` it. */
export function variableErrors(
  spec: Obj,
  before: (name: unknown) => ReadonlyMap<string, unknown> = () => new Map(),
): StatusCause[] {
  const out: StatusCause[] = [];
  objects(spec.variables).forEach((v, i) => {
    const at = `spec.variables[${i}]`;
    const name = typeof v.name === "string" ? v.name : "";
    // kube's validateVariable (which does not refuse a name given twice).
    if (name.trim() === "") out.push(cause.required(`${at}.name`, "name is not specified"));
    else if (!CEL_IDENTIFIER.test(name)) {
      out.push(cause.invalid(`${at}.name`, name, "must be a valid CEL identifier"));
    }
    if (typeof v.expression !== "string" || v.expression.trim() === "") {
      out.push(cause.required(`${at}.expression`, "expression is not specified"));
    } else out.push(...expressionErrors(v.expression, `${at}.expression`, "any", before(v.name)));
  });
  return out;
}

/** A policy's `matchConditions` (either kind of policy). */
export function matchConditionErrors(spec: Obj): StatusCause[] {
  return celMatch.get().matchConditionErrors(
    spec.matchConditions,
    "spec.matchConditions",
    // Without `variables`: kube compiles match conditions apart from them when a policy is written.
    celPolicy.get().compilePolicyMatchCondition,
  );
}

/** A policy's `paramKind` (either kind of policy). */
export function paramKindErrors(spec: Obj): StatusCause[] {
  const out: StatusCause[] = [];
  const paramKind = spec.paramKind as Obj | undefined;
  if (paramKind && typeof paramKind === "object") {
    if (!paramKind.apiVersion) out.push(cause.required("spec.paramKind.apiVersion"));
    if (!paramKind.kind) out.push(cause.required("spec.paramKind.kind"));
  }
  return out;
}

function validateBinding(obj: Obj): StatusCause[] {
  const spec = specOf(obj);
  const out: StatusCause[] = [];
  if (typeof spec.policyName !== "string" || spec.policyName === "")
    out.push(cause.required("spec.policyName"));
  // The policy's name is an object name (a DNS subdomain), as a MutatingAdmissionPolicyBinding's.
  else
    for (const msg of dns1123SubdomainErrors(spec.policyName))
      out.push(cause.invalid("spec.policyName", spec.policyName, msg));
  const actions = Array.isArray(spec.validationActions) ? (spec.validationActions as unknown[]) : [];
  if (actions.length === 0) {
    out.push(cause.required("spec.validationActions", "at least one validation action is required"));
  }
  const seen = new Set<unknown>();
  actions.forEach((a, i) => {
    const at = `spec.validationActions[${i}]`;
    if (seen.has(a)) out.push(cause.duplicate(at, a));
    seen.add(a);
    if (!VALIDATION_ACTIONS.includes(String(a))) out.push(cause.notSupported(at, a, VALIDATION_ACTIONS));
  });
  if (seen.has("Deny") && seen.has("Warn")) {
    out.push(
      cause.invalid(
        "spec.validationActions",
        actions,
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
      ),
    );
  }
  const ref = spec.paramRef as Obj | undefined;
  if (ref && typeof ref === "object") out.push(...paramRefErrors(ref, "spec.paramRef"));
  out.push(...matchResourcesErrors(spec.matchResources, "spec.matchResources", false));
  return out;
}

/** kube's validateParamRef, in its order. parameterNotFoundAction has no default: it is required. */
function paramRefErrors(ref: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const name = typeof ref.name === "string" ? ref.name : "";
  const selector = ref.selector !== undefined && ref.selector !== null;
  if (name !== "") {
    for (const msg of pathSegmentNameErrors(name)) out.push(cause.invalid(`${path}.name`, name, msg));
    if (selector) out.push(cause.forbidden(`${path}.name`, "name and selector are mutually exclusive"));
  }
  if (selector) {
    out.push(...labelSelectorCauses(ref.selector, `${path}.selector`));
    if (name !== "")
      out.push(cause.forbidden(`${path}.selector`, "name and selector are mutually exclusive"));
  }
  if (name === "" && !selector) out.push(cause.required(path, "one of name or selector must be specified"));
  const action = ref.parameterNotFoundAction;
  if (action === undefined || action === null || action === "") {
    out.push(cause.required(`${path}.parameterNotFoundAction`));
  } else if (!NOT_FOUND_ACTIONS.includes(String(action))) {
    out.push(cause.notSupported(`${path}.parameterNotFoundAction`, action, ["Deny", "Allow"]));
  }
  return out;
}

// admissionregistration/v1's SetDefaults_*: what a policy or binding leaves out is written as the default.
export function defaultMatchResources(m: unknown): void {
  if (!m || typeof m !== "object") return;
  const r = m as Obj;
  r.matchPolicy ??= "Equivalent";
  r.namespaceSelector ??= {};
  r.objectSelector ??= {};
  for (const rule of [...objects(r.resourceRules), ...objects(r.excludeResourceRules)]) rule.scope ??= "*";
}

/** The object's spec to fill with defaults, if it has one. */
export function storedSpec(obj: Obj): Obj | undefined {
  return obj.spec && typeof obj.spec === "object" && !Array.isArray(obj.spec) ? (obj.spec as Obj) : undefined;
}

/** A policy's defaults, the same for validating and mutating ones: failurePolicy Fail, kube's match defaults. */
export function defaultPolicy(obj: Obj): void {
  const spec = storedSpec(obj);
  if (!spec) return;
  spec.failurePolicy ??= "Fail";
  defaultMatchResources(spec.matchConstraints);
}

export const validatingAdmissionPolicyBehaviour: KindBehaviour = {
  defaults: defaultPolicy,
  validate: (obj) => validatePolicy(obj),
};

export const validatingAdmissionPolicyBindingBehaviour: KindBehaviour = {
  defaults: (obj) => {
    const spec = storedSpec(obj);
    if (!spec) return;
    // paramRef.parameterNotFoundAction has no default in 1.37 (validateParamRef requires it).
    defaultMatchResources(spec.matchResources);
  },
  validate: (obj) => validateBinding(obj),
};
