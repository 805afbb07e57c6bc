// MutatingAdmissionPolicies and their bindings (admissionregistration.k8s.io/v1 since 1.36):
// the defaults they share with ValidatingAdmissionPolicies and the checks of
// validateMutatingAdmissionPolicySpec an author meets first: what is required, the patch types,
// the operations a mutation may match, the reinvocation policy. The CEL of a mutation is
// compiled (with kube's `Object{...}` and `JSONPatch{...}` initialisers, cel/typed-objects.ts)
// and its output must be of the type its patch type takes, as far as our checker can tell.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { celMutation } from "../lazy.js";
import { dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import {
  defaultMatchResources,
  defaultPolicy,
  matchConditionErrors,
  matchResourcesErrors,
  objects,
  paramKindErrors,
  storedSpec,
  variableErrors,
} from "./admission-policies.js";
import type { KindBehaviour } from "./behaviour.js";

const FAILURE_POLICIES = ["Fail", "Ignore"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const PATCH_TYPES = ["ApplyConfiguration", "JSONPatch"];
/** Only creates and updates (and connects) can be mutated. */
const MUTATING_OPERATIONS = ["*", "CONNECT", "CREATE", "UPDATE"];
const NOT_FOUND_ACTIONS = ["Allow", "Deny"];

/** The types of a policy's variables, as its mutations see them (found once per policy). */
type VariableTypes = () => ReadonlyMap<string, unknown>;

/**
 * A mutation's expression: required, it must compile, and its output must be what its patch type
 * takes (kube's CompileCELExpression with the mutation's ReturnTypes).
 */
function expressionRequired(
  holder: unknown,
  path: string,
  patchType: "ApplyConfiguration" | "JSONPatch",
  variables: VariableTypes,
): StatusCause[] {
  const expression = (holder as Obj | undefined)?.expression;
  if (typeof expression !== "string" || expression.trim() === "")
    return [cause.required(`${path}.expression`)];
  const cel = celMutation.get();
  const trimmed = expression.trim();
  const p = cel.compileMutationExpression(trimmed);
  if ("error" in p)
    return [cause.invalid(`${path}.expression`, expression, `compilation failed: ${p.error}`)];
  const issue = cel.mutationExpressionIssue(
    trimmed,
    patchType,
    variables() as Parameters<typeof cel.mutationExpressionIssue>[2],
  );
  return issue ? [cause.invalid(`${path}.expression`, expression, issue)] : [];
}

function mutationErrors(m: Obj, at: string, variables: VariableTypes): StatusCause[] {
  const type = m.patchType;
  if (type === undefined || type === "") return [cause.required(`${at}.patchType`)];
  const given = (k: string) => m[k] !== undefined && m[k] !== null;
  if (type === "JSONPatch") {
    const out = given("jsonPatch")
      ? expressionRequired(m.jsonPatch, `${at}.jsonPatch`, "JSONPatch", variables)
      : [cause.required(`${at}.jsonPatch`, "must be specified when patchType is JSONPatch")];
    if (given("applyConfiguration")) {
      out.push(
        cause.invalid(
          `${at}.applyConfiguration`,
          "{applyConfiguration}",
          "must not be specified when patchType is JSONPatch",
        ),
      );
    }
    return out;
  }
  if (type === "ApplyConfiguration") {
    const out = given("applyConfiguration")
      ? expressionRequired(m.applyConfiguration, `${at}.applyConfiguration`, "ApplyConfiguration", variables)
      : [
          cause.required(
            `${at}.applyConfiguration`,
            "must be specified when patchType is ApplyConfiguration",
          ),
        ];
    if (given("jsonPatch")) {
      out.push(
        cause.invalid(
          `${at}.jsonPatch`,
          "{jsonPatch}",
          "must not be specified when patchType is ApplyConfiguration",
        ),
      );
    }
    return out;
  }
  return [cause.notSupported(`${at}.patchType`, type, PATCH_TYPES)];
}

function operationErrors(m: unknown, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  for (const rule of objects((m as Obj | undefined)?.resourceRules)) {
    for (const op of Array.isArray(rule.operations) ? rule.operations : []) {
      if (!MUTATING_OPERATIONS.includes(String(op)))
        out.push(cause.notSupported(`${path}.resourceRules.operations`, op, MUTATING_OPERATIONS));
    }
  }
  return out;
}

/** The types of the variables declared before `name` (all of them for a name not declared). */
function variablesBefore(spec: Obj): (name: unknown) => ReadonlyMap<string, unknown> {
  return (name) => {
    const declared = objects(spec.variables).map((v) => ({
      name: typeof v.name === "string" ? v.name : "",
      expression: typeof v.expression === "string" ? v.expression : "",
    }));
    const i = declared.findIndex((v) => v.name === name);
    return celMutation.get().policyVariableTypes(i < 0 ? declared : declared.slice(0, i));
  };
}

function validatePolicy(obj: Obj): StatusCause[] {
  const spec = storedSpec(obj) ?? {};
  const out: StatusCause[] = [];
  const fp = spec.failurePolicy;
  if (fp !== undefined && !FAILURE_POLICIES.includes(String(fp)))
    out.push(cause.notSupported("spec.failurePolicy", fp, FAILURE_POLICIES));
  out.push(...paramKindErrors(spec));
  out.push(...matchResourcesErrors(spec.matchConstraints, "spec.matchConstraints", true));
  out.push(...operationErrors(spec.matchConstraints, "spec.matchConstraints"));
  out.push(...matchConditionErrors(spec));
  out.push(...variableErrors(spec, variablesBefore(spec)));
  const mutations = objects(spec.mutations);
  if (mutations.length === 0)
    out.push(cause.required("spec.mutations", "mutations must contain at least one item"));
  let types: ReadonlyMap<string, unknown> | undefined;
  const variables = () => {
    types ??= celMutation.get().policyVariableTypes(
      objects(spec.variables).map((v) => ({
        name: typeof v.name === "string" ? v.name : "",
        expression: typeof v.expression === "string" ? v.expression : "",
      })),
    );
    return types;
  };
  mutations.forEach((m, i) => {
    out.push(...mutationErrors(m, `spec.mutations[${i}]`, variables));
  });
  const rp = spec.reinvocationPolicy;
  if (rp === undefined || rp === "") out.push(cause.required("spec.reinvocationPolicy", ""));
  else if (!REINVOCATION_POLICIES.includes(String(rp)))
    out.push(cause.notSupported("spec.reinvocationPolicy", rp, REINVOCATION_POLICIES));
  return out;
}

function validateBinding(obj: Obj): StatusCause[] {
  const spec = storedSpec(obj) ?? {};
  const out: StatusCause[] = [];
  const policyName = typeof spec.policyName === "string" ? spec.policyName : "";
  if (policyName === "") out.push(cause.required("spec.policyName", ""));
  for (const msg of policyName === "" ? [] : dns1123SubdomainErrors(policyName))
    out.push(cause.invalid("spec.policyName", policyName, msg));
  const ref = spec.paramRef as Obj | undefined;
  if (ref && typeof ref === "object") {
    if (ref.name && ref.selector)
      out.push(cause.forbidden("spec.paramRef.name", "name and selector are mutually exclusive"));
    if (!ref.name && !ref.selector)
      out.push(cause.required("spec.paramRef", "one of name or selector must be provided"));
    const action = ref.parameterNotFoundAction;
    if (action !== undefined && !NOT_FOUND_ACTIONS.includes(String(action)))
      out.push(cause.notSupported("spec.paramRef.parameterNotFoundAction", action, NOT_FOUND_ACTIONS));
  }
  out.push(...matchResourcesErrors(spec.matchResources, "spec.matchResources", false));
  out.push(...operationErrors(spec.matchResources, "spec.matchResources"));
  return out;
}

export const mutatingAdmissionPolicyBehaviour: KindBehaviour = {
  defaults: defaultPolicy,
  validate: (obj) => validatePolicy(obj),
};

export const mutatingAdmissionPolicyBindingBehaviour: KindBehaviour = {
  defaults: (obj) => {
    const spec = storedSpec(obj);
    if (!spec) return;
    defaultMatchResources(spec.matchResources);
    const ref = spec.paramRef as Obj | undefined;
    if (ref && typeof ref === "object") ref.parameterNotFoundAction ??= "Deny";
  },
  validate: (obj) => validateBinding(obj),
};
