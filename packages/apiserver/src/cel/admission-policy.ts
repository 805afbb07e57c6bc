// The CEL of a ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1, kube 1.30 GA) on
// @bufbuild/cel: its expressions checked when a policy is written, and evaluated for one request
// and one param as kube's validator does (validator.go): matchConditions first (a false one skips
// the policy), then each validation (true admits; anything else denies with messageExpression's
// result, the message, or "failed expression: ..."), then auditAnnotations (a string or null).
// `variables` are evaluated lazily, as kube's composition does: on first read, once per
// activation (validations, messageExpressions and auditAnnotations each have theirs), their cost
// counted against the budget of the expression that read them. Variables: object, oldObject,
// request, params, namespaceObject and variables. Loaded with CEL on first use (lazy.ts).
// The `authorizer` variable asks the server's authorizer (authz.ts). Each expression is cancelled
// past kube's per-call cost limit, and a policy's expressions for one request share kube's runtime
// budget: past it, the policy fails as a whole, with kube's words (failurePolicy decides).
import { isCelError } from "@bufbuild/cel";
import type { UserInfo } from "../handlers/context.js";
import { authorizerValue, type RequestResource, withAuthorizer } from "./authz.js";
import {
  type Compiled,
  compilePolicyExpression,
  compilePolicyMatchCondition,
  compilePolicyMessageExpression,
} from "./expressions.js";
import { celErrorText } from "./kubernetes-libs.js";
import { celValue, matchConditionsIn } from "./match-conditions.js";
import { PER_CALL_LIMIT, RUNTIME_BUDGET, runMetered } from "./runtime-cost.js";

export { compilePolicyExpression, compilePolicyMatchCondition, compilePolicyMessageExpression };
export { typeCheckIssues } from "./type-check.js";
export { policyExpressionIssue, policyVariableTypes } from "./policy-types.js";
export { BOOL, NULL, STRING } from "./checker-types.js";
/** kube's limit on a messageExpression's result (celconfig.MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_BYTES = 5 * 1024;
/** kube's limit on an audit annotation's value (maxAuditAnnotationValueLength). */
const MAX_AUDIT_VALUE_BYTES = 10 * 1024;

export interface PolicySpec {
  matchConditions: readonly { name: string; expression: string }[];
  variables: readonly { name: string; expression: string }[];
  validations: readonly {
    expression: string;
    message?: string;
    messageExpression?: string;
    reason?: string;
  }[];
  auditAnnotations: readonly { key: string; valueExpression: string }[];
}

/** One validation's outcome that is not an admit. */
export type PolicyDecision =
  /** The expression was not true. */
  | { kind: "deny"; index: number; message: string; reason: string }
  /** The expression could not be evaluated (or a match condition failed): failurePolicy decides. */
  | { kind: "error"; index: number; message: string };

export interface PolicyEvaluation {
  /** False when a match condition was false: the policy does not apply to this request. */
  matched: boolean;
  decisions: PolicyDecision[];
  /** Audit annotations to publish, key → value. */
  annotations: Map<string, string>;
  /** Audit annotation expressions that failed (or gave neither a string nor null). */
  annotationErrors: string[];
}

/** kube's error once a policy's expressions spent its runtime budget (plugin/cel/activation.go). */
export const OUT_OF_BUDGET =
  "validation failed due to running out of cost budget, no further validation rules will be run";

/** What a policy's expressions may still spend on one request (kube's RuntimeCELCostBudget). */
export class CostBudget {
  remaining = RUNTIME_BUDGET;
  /** Set once an expression cost more than what remained: nothing more is run. */
  exhausted = false;
}

/**
 * Runs one expression: its value, or kube's error text for a compile or evaluation error. It is
 * cancelled past kube's per-call limit ("operation cancelled: actual cost limit exceeded"); with a
 * `budget`, its cost is taken from it, and an expression that costs more than remains fails with
 * {@link OUT_OF_BUDGET} and marks the budget exhausted.
 */
export function runExpression(
  expression: string,
  ctx: Record<string, unknown>,
  compile: (expression: string) => Compiled = compilePolicyExpression,
  budget?: CostBudget,
): { value: unknown } | { error: string } {
  const p = compile(expression.trim());
  if ("error" in p) return { error: `compilation error: ${p.error}` };
  let value: unknown;
  let cost = 0;
  try {
    ({ result: value, cost } = runMetered(p, ctx, PER_CALL_LIMIT));
  } catch (e) {
    value = e;
  }
  // What the variables it read first cost, checked before its own (activation.go's Evaluate).
  const composed = ctx.variables instanceof LazyVariables ? ctx.variables.takeCost() : 0;
  if (budget) {
    if (budget.exhausted || composed > budget.remaining) {
      budget.exhausted = true;
      return { error: OUT_OF_BUDGET };
    }
    budget.remaining -= composed;
    if (cost > budget.remaining) {
      budget.exhausted = true;
      return { error: OUT_OF_BUDGET };
    }
    budget.remaining -= cost;
  }
  if (isCelError(value) || value instanceof Error) {
    return {
      error: `expression '${expression.trim()}' resulted in error: ${celErrorText((value as Error).message)}`,
    };
  }
  return { value };
}

/** The request's objects as CEL values: made once per request, shared by every policy and param. */
export interface PolicyObjects {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly namespaceObject: unknown;
  /** The `authorizer` variable: the requesting user's (authz.ts). */
  readonly authorizer: unknown;
}

/** {@link PolicyObjects} from the objects as JSON (as the AdmissionReview would carry them). */
export function policyObjects(
  json: { object: unknown; oldObject: unknown; namespaceObject: unknown },
  user: UserInfo,
  resource: RequestResource,
): PolicyObjects {
  return {
    object: celValue(json.object),
    oldObject: celValue(json.oldObject),
    namespaceObject: celValue(json.namespaceObject),
    authorizer: authorizerValue(user, resource),
  };
}

export { withAuthorizer };

/**
 * Evaluates `spec` for one request and one param: `request` is the AdmissionRequest for the
 * version the policy matched, `params` the param object (null when the policy has no paramKind).
 */
export function evaluatePolicy(
  spec: PolicySpec,
  objects: PolicyObjects,
  request: unknown,
  params: unknown,
): PolicyEvaluation {
  const out: PolicyEvaluation = {
    matched: true,
    decisions: [],
    annotations: new Map(),
    annotationErrors: [],
  };
  const ctx: Record<string, unknown> = {
    ...objects,
    request: celValue(request),
    params: celValue(params),
  };
  evaluateVariables(spec.variables, ctx);
  if (spec.matchConditions.length > 0) {
    const m = matchConditionsIn(spec.matchConditions, ctx, compilePolicyExpression);
    if ("error" in m) {
      out.decisions.push({ kind: "error", index: -1, message: m.error });
      return out;
    }
    if (!m.call) {
      out.matched = false;
      return out;
    }
  }
  const budget = new CostBudget();
  // kube evaluates messageExpressions apart, with no `authorizer` in their activation: a variable
  // read there is evaluated again without it, and one that asks the authorizer fails, so the
  // message falls back (validator.go's expressionOptionalVars).
  let messageCtx: Record<string, unknown> | undefined;
  const forMessages = () => {
    if (!messageCtx) {
      const { authorizer: _, variables: __, ...rest } = ctx;
      messageCtx = evaluateVariables(spec.variables, rest);
    }
    return messageCtx;
  };
  const results: ({ value: unknown } | { error: string })[] = [];
  for (const v of spec.validations) {
    results.push(runExpression(v.expression, ctx, compilePolicyExpression, budget));
    if (budget.exhausted) {
      // Past the budget kube's validator returns one error for the policy, whatever came before.
      out.decisions = [{ kind: "error", index: -1, message: OUT_OF_BUDGET }];
      return out;
    }
  }
  // Then every messageExpression, on what the budget has left, as kube's message filter runs
  // them (also those of validations that passed). Past the budget, every validation that did not
  // fail to evaluate is an error, as kube's validator words it.
  const messages = new Map<number, { value: unknown } | { error: string }>();
  spec.validations.forEach((v, index) => {
    if (v.messageExpression && !budget.exhausted)
      messages.set(
        index,
        runExpression(v.messageExpression, forMessages(), compilePolicyMessageExpression, budget),
      );
  });
  spec.validations.forEach((v, index) => {
    const r = results[index]!;
    if ("error" in r) out.decisions.push({ kind: "error", index, message: r.error });
    else if (budget.exhausted)
      out.decisions.push({ kind: "error", index, message: `failed messageExpression: ${OUT_OF_BUDGET}` });
    else if (r.value !== true)
      out.decisions.push({
        kind: "deny",
        index,
        message: messageOf(v, messages.get(index)),
        reason: v.reason || "Invalid",
      });
  });
  // Audit annotations have a budget and variables of their own (kube's auditAnnotationFilter is
  // run apart).
  const annotationBudget = new CostBudget();
  const { variables: _, ...annotationBase } = ctx;
  const annotationCtx =
    spec.auditAnnotations.length > 0 ? evaluateVariables(spec.variables, annotationBase) : ctx;
  for (const a of spec.auditAnnotations) {
    const r = runExpression(a.valueExpression, annotationCtx, compilePolicyExpression, annotationBudget);
    if ("error" in r) out.annotationErrors.push(r.error);
    else if (typeof r.value === "string") {
      const value = r.value.trim();
      if (value !== "") out.annotations.set(a.key, value.slice(0, MAX_AUDIT_VALUE_BYTES));
    } else if (r.value !== null) {
      out.annotationErrors.push(
        `valueExpression '${a.valueExpression}' resulted in unsupported return type: ${typeName(r.value)}. ` +
          "Return type must be either string or null.",
      );
    }
  }
  return out;
}

/**
 * Binds `variables` into `ctx` (as `ctx.variables`) for one activation, and returns `ctx`: each is
 * evaluated when an expression first reads it, once (kube's lazy map, composition.go), and may
 * read the ones before it. One never read costs nothing and fails nothing; one that fails fails
 * the expression reading it, in kube's words.
 */
export function evaluateVariables(
  variables: PolicySpec["variables"],
  ctx: Record<string, unknown>,
): Record<string, unknown> {
  ctx.variables = new LazyVariables(variables, ctx);
  return ctx;
}

/**
 * A policy's variables in one activation: a Map (as CEL reads maps) whose values are computed on
 * first read and kept, failures included; a failure is thrown, so that the expression reading it
 * fails with it.
 */
class LazyVariables extends Map<string, unknown> {
  readonly #specs: PolicySpec["variables"];
  readonly #ctx: Record<string, unknown>;
  readonly #results = new Map<string, { value: unknown } | { error: string }>();
  /** What the variables evaluated since it was last taken cost. */
  #cost = 0;

  constructor(specs: PolicySpec["variables"], ctx: Record<string, unknown>) {
    super();
    this.#specs = specs;
    this.#ctx = ctx;
  }

  override get(name: string): unknown {
    let r = this.#results.get(name);
    if (r === undefined) {
      const spec = this.#specs.find((v) => v.name === name);
      if (spec === undefined) return undefined;
      r = this.#evaluate(spec);
      this.#results.set(name, r);
    }
    if ("error" in r) throw new Error(r.error);
    return r.value;
  }

  override has(name: string): boolean {
    return this.#specs.some((v) => v.name === name);
  }

  override get size(): number {
    return this.#specs.length;
  }

  takeCost(): number {
    const cost = this.#cost;
    this.#cost = 0;
    return cost;
  }

  #evaluate(spec: { name: string; expression: string }): { value: unknown } | { error: string } {
    const p = compilePolicyExpression(spec.expression.trim());
    if ("error" in p) return { error: `composited variable "${spec.name}" fails to compile: ${p.error}` };
    let value: unknown;
    let cost = 0;
    try {
      ({ result: value, cost } = runMetered(p, this.#ctx, PER_CALL_LIMIT));
    } catch (e) {
      value = e;
    }
    this.#cost += cost;
    if (isCelError(value) || value instanceof Error) {
      return {
        error: `composited variable "${spec.name}" fails to evaluate: ${celErrorText((value as Error).message)}`,
      };
    }
    return { value };
  }
}

/** messageExpression's result if it is a usable string, else the message, else the expression. */
function messageOf(
  v: { expression: string; message?: string; messageExpression?: string },
  evaluated: { value: unknown } | { error: string } | undefined,
): string {
  if (evaluated && "value" in evaluated && typeof evaluated.value === "string") {
    const m = evaluated.value.trim();
    if (m !== "" && Buffer.byteLength(m) <= MAX_MESSAGE_BYTES && !m.includes("\n")) return m;
  }
  const message = v.message?.trim();
  if (message) return message;
  return `failed expression: ${v.expression.trim()}`;
}

function typeName(v: unknown): string {
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (Array.isArray(v)) return "list";
  if (v instanceof Map) return "map";
  return typeof v;
}
