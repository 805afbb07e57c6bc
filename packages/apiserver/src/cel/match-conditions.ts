// Webhook `matchConditions` (admissionregistration.k8s.io/v1, kube 1.30 GA) on @bufbuild/cel:
// CEL expressions over `object`, `oldObject` and `request` that decide, after a webhook's rules
// and selectors matched, whether it is called. Checked when a configuration is written, as
// kube's validation does; evaluated as kube's matcher does: any false skips the webhook; errors
// with none false fail the request (403) under failurePolicy Fail and skip the webhook under
// Ignore. `authorizer` asks the server's authorizer (authz.ts). Loaded with CEL on first use (lazy.ts).
import { isCelError } from "@bufbuild/cel";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { UserInfo } from "../handlers/context.js";
import { authorizerValue, type Decide, type RequestResource, withAuthorizer } from "./authz.js";
import { type Compiled, compileWebhookExpression } from "./expressions.js";
import { celErrorText } from "./kubernetes-libs.js";
import { PER_CALL_LIMIT, runMetered } from "./runtime-cost.js";

/** kube's limit on a webhook's match conditions. */
const MAX_MATCH_CONDITIONS = 64;

/** The causes of a webhook's (or, with its compiler, a policy's) `matchConditions` kube refuses (validateMatchConditions). */
export function matchConditionErrors(
  conditions: unknown,
  path: string,
  compile: (expression: string) => Compiled = compileWebhookExpression,
): StatusCause[] {
  if (conditions === undefined || conditions === null) return [];
  const list = Array.isArray(conditions) ? (conditions as Obj[]) : [];
  const out: StatusCause[] = [];
  if (list.length > MAX_MATCH_CONDITIONS) {
    out.push({
      reason: "FieldValueTooMany",
      message: `Too many: ${list.length}: must have at most ${MAX_MATCH_CONDITIONS} items`,
      field: path,
    });
  }
  const names = new Set<string>();
  list.forEach((c, i) => {
    const at = `${path}[${i}]`;
    const expression = typeof c?.expression === "string" ? c.expression.trim() : "";
    if (expression === "") out.push(cause.required(`${at}.expression`));
    else {
      const p = compile(expression);
      if ("error" in p) {
        out.push(cause.invalid(`${at}.expression`, expression, `compilation failed: ${p.error}`));
      }
    }
    const name = typeof c?.name === "string" ? c.name : "";
    if (name === "") out.push(cause.required(`${at}.name`));
    else for (const msg of qualifiedNameErrors(name)) out.push(cause.invalid(`${at}.name`, name, msg));
    if (name !== "") {
      if (names.has(name)) out.push(cause.duplicate(`${at}.name`, name));
      names.add(name);
    }
  });
  return out;
}

/** JSON as CEL sees an object without a schema: whole numbers as ints (Go's int64), the rest as is. */
export function celValue(v: unknown): unknown {
  return ints(v);
}

function ints(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(ints);
  if (v !== null && typeof v === "object") {
    // A Map, not an object: a key "__proto__" in a request body stays a key.
    const out = new Map<string, unknown>();
    for (const [k, x] of Object.entries(v)) out.set(k, ints(x));
    return out;
  }
  return v;
}

/** What a webhook's match conditions decided for one request. */
export type MatchOutcome = { call: true } | { call: false } | { error: string };

/**
 * Evaluates `conditions` in order against the request's variables (`object`, `oldObject`,
 * `request`, as the AdmissionReview would carry them). Any false: skip. Else errors: the
 * aggregate, which the caller turns into kube's 403 (Fail) or a skip (Ignore). Else: call.
 */
export function evaluateMatchConditions(
  conditions: readonly { name: string; expression: string }[],
  vars: { object: unknown; oldObject: unknown; request: unknown },
  authorizer: { decide: Decide; user: UserInfo; resource: RequestResource },
): MatchOutcome {
  const ctx = {
    object: ints(vars.object),
    oldObject: ints(vars.oldObject),
    request: ints(vars.request),
    authorizer: authorizerValue(authorizer.user, authorizer.resource),
  };
  return withAuthorizer(authorizer.decide, () => matchConditionsIn(conditions, ctx));
}

/** As {@link evaluateMatchConditions}, on variables already made CEL values (celValue). */
export function matchConditionsIn(
  conditions: readonly { name: string; expression: string }[],
  ctx: Record<string, unknown>,
  compile: (expression: string) => Compiled = compileWebhookExpression,
): MatchOutcome {
  const errors: string[] = [];
  for (const c of conditions) {
    const p = compile(c.expression.trim());
    if ("error" in p) {
      errors.push(`compilation failed: ${p.error}`);
      continue;
    }
    let result: unknown;
    try {
      // Cancelled past kube's per-call cost limit, as every admission expression is.
      result = runMetered(p, ctx, PER_CALL_LIMIT).result;
    } catch (e) {
      result = e;
    }
    if (result === false) return { call: false };
    if (result === true) continue;
    const why = isCelError(result)
      ? result.message
      : result instanceof Error
        ? result.message
        : "no such overload";
    errors.push(`expression '${c.expression}' resulted in error: ${celErrorText(why)}`);
  }
  if (errors.length === 0) return { call: true };
  // apimachinery's aggregate: one error bare, several in brackets.
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]` };
}
