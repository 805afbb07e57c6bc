// The type check kube makes of a ValidatingAdmissionPolicy's expressions when the policy is
// written (the admission plugin's compile.go): object, oldObject and params are dyn; request is
// kube's AdmissionRequest type; `variables` an object of the policy's variables, each of the type
// its expression has (in order: a variable sees those before it). A checker error refuses the
// policy ("compilation failed: ERROR: ..."), and so does an output of another type than the
// expression's kind must give: a validation a bool, a messageExpression a string, an audit
// annotation's valueExpression a string or null, exactly (dyn will not do). Typing against the
// matched kinds is a separate, warning-only pass (type-check.ts).
import { checkExpression } from "./checker.js";
import {
  BOOL,
  type CelType,
  DYN,
  hasFree,
  isUncertain,
  JSON_PATCH,
  listOf,
  mapOf,
  mutationType,
  sameType,
  STRING,
  typeString,
  UNKNOWN,
} from "./checker-types.js";
import { parseCel } from "./optional-syntax.js";

const object = (name: string, fields: Record<string, CelType>): CelType => {
  const map = new Map(Object.entries(fields));
  return { kind: "object", name, fields: () => map };
};
const gvk = object("kubernetes.GroupVersionKind", { group: STRING, version: STRING, kind: STRING });
const gvr = object("kubernetes.GroupVersionResource", { group: STRING, version: STRING, resource: STRING });

/** kube's BuildRequestType. */
const REQUEST = object("kubernetes.AdmissionRequest", {
  kind: gvk,
  resource: gvr,
  subResource: STRING,
  requestKind: gvk,
  requestResource: gvr,
  requestSubResource: STRING,
  name: STRING,
  namespace: STRING,
  operation: STRING,
  userInfo: object("kubernetes.UserInfo", {
    username: STRING,
    uid: STRING,
    groups: listOf(STRING),
    extra: mapOf(STRING, listOf(STRING)),
  }),
  dryRun: BOOL,
  options: DYN,
});

/** The variables of a policy's expressions; `variables` the types of the policy's variables so far. */
function environment(variables: ReadonlyMap<string, CelType>): Map<string, CelType> {
  return new Map<string, CelType>([
    ["object", DYN],
    ["oldObject", DYN],
    ["params", DYN],
    ["request", REQUEST],
    ["variables", object("kubernetes.variables", Object.fromEntries(variables))],
    // kube declares these with types of their own (a Namespace, the authorizer); unknown here,
    // so nothing about them is reported.
    ["namespaceObject", UNKNOWN],
    ["authorizer", UNKNOWN],
  ]);
}

function check(expression: string, variables: ReadonlyMap<string, CelType>) {
  try {
    return checkExpression(parseCel(expression), expression, environment(variables));
  } catch {
    return undefined; // a syntax error is the compiler's to report
  }
}

/** The types of a policy's variables, in order, each checked with those before it. */
export function policyVariableTypes(
  variables: readonly { name: string; expression: string }[],
): Map<string, CelType> {
  const types = new Map<string, CelType>();
  for (const v of variables) {
    const checked = check(v.expression, types);
    types.set(v.name, checked && checked.errors.length === 0 ? checked.type : UNKNOWN);
  }
  return types;
}

/**
 * What kube says of a policy's `expression` that compiled (undeclared names are found before),
 * when its output must be one of `returns` (none: any) and `variables` are the policy's; undefined
 * when it is fine.
 */
export function policyExpressionIssue(
  expression: string,
  returns: readonly CelType[],
  variables: ReadonlyMap<string, CelType>,
): string | undefined {
  const checked = check(expression, variables);
  if (!checked) return undefined;
  const { type, errors } = checked;
  if (errors.length > 0) return `compilation failed: ${errors.map((e) => `ERROR: ${e}`).join("\n")}`;
  if (returns.length === 0 || isUncertain(type) || returns.some((r) => sameType(r, type))) return undefined;
  return returns.length === 1
    ? `must evaluate to ${typeString(returns[0]!)} but got ${typeString(type)}`
    : `must evaluate to one of [${returns.map(typeString).join(" ")}] but got ${typeString(type)}`;
}

/**
 * What kube says of a mutation's expression that compiled: its checker's errors (a JSONPatch
 * field of the wrong type), or an output that is not exactly `Object` (ApplyConfiguration) or
 * `list(JSONPatch)` (JSONPatch); undefined when it is fine or this checker cannot tell.
 */
export function mutationExpressionIssue(
  expression: string,
  patchType: "ApplyConfiguration" | "JSONPatch",
  variables: ReadonlyMap<string, CelType>,
): string | undefined {
  const checked = check(expression, variables);
  if (!checked) return undefined;
  const { type, errors } = checked;
  if (errors.length > 0) return `compilation failed: ${errors.map((e) => `ERROR: ${e}`).join("\n")}`;
  const want = patchType === "JSONPatch" ? listOf(JSON_PATCH) : mutationType("Object")!;
  if (isUncertain(type) || hasFree(type) || sameType(want, type)) return undefined;
  return `must evaluate to ${typeString(want)} but got ${typeString(type)}`;
}
