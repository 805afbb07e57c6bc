// The CEL of a MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, kube 1.36 GA) for one
// request, binding and param, as kube's mutating dispatcher evaluates it: matchConditions (a
// false one skips the policy), then each mutation in order, each seeing the object as the
// mutations before it left it. Variables are lazy and kept per activation: the matchConditions
// share one, each mutation has its own (so a variable read there sees the object as it is then).
// A mutation gives an apply configuration (an `Object{...}` initialiser, merged by the caller with
// apply semantics) or a list of `JSONPatch{...}` operations; errors are worded as kube's
// evaluator words them.
import type { CelValue } from "@bufbuild/cel";
import { evaluateVariables, runExpression } from "./admission-policy.js";
import { compileMutationExpression, compilePolicyExpression } from "./expressions.js";
import { celValue, matchConditionsIn } from "./match-conditions.js";
import type { PolicyObjects } from "./admission-policy.js";
import { celToJson, JSON_PATCH_TYPE, OBJECT_TYPE, typeNameMismatches, typeNameOf } from "./typed-objects.js";
import { isCelList } from "@bufbuild/cel";

export { compileMutationExpression };
export { mutationExpressionIssue, policyVariableTypes } from "./policy-types.js";

export interface MutatingPolicySpec {
  matchConditions: readonly { name: string; expression: string }[];
  variables: readonly { name: string; expression: string }[];
  mutations: readonly { patchType: "ApplyConfiguration" | "JSONPatch"; expression: string }[];
}

/** What one mutation asks for. */
export type MutationResult =
  | { kind: "apply"; configuration: Record<string, unknown> }
  | { kind: "jsonPatch"; operations: Record<string, unknown>[] }
  | { kind: "error"; message: string };

export type MutatingEvaluation =
  /** A match condition was false: the policy does not apply. */
  | { matched: false }
  /** A match condition failed: failurePolicy decides. */
  | { matched: true; error: string }
  /** Evaluates mutation `index` against the object as it is now (JSON). */
  | { matched: true; error?: undefined; mutate(index: number, object: unknown): MutationResult };

/**
 * Prepares the evaluation of `spec` for one request and one param: `request` is the
 * AdmissionRequest for the version the policy matched, `params` the param (null without paramKind).
 */
export function evaluateMutatingPolicy(
  spec: MutatingPolicySpec,
  objects: PolicyObjects,
  request: unknown,
  params: unknown,
): MutatingEvaluation {
  const ctx: Record<string, unknown> = {
    ...objects,
    request: celValue(request),
    params: celValue(params),
  };
  evaluateVariables(spec.variables, ctx);
  if (spec.matchConditions.length > 0) {
    const m = matchConditionsIn(spec.matchConditions, ctx, compilePolicyExpression);
    if ("error" in m) return { matched: true, error: m.error };
    if (!m.call) return { matched: false };
  }
  return {
    matched: true,
    mutate(index, object) {
      const mutation = spec.mutations[index];
      if (!mutation) return { kind: "error", message: `no mutation ${index}` };
      // Each mutation is an activation of its own, as in kube (composition.go): its variables are
      // evaluated afresh, on first read, against the object as the mutations before it left it.
      const { variables: _, ...bindings } = ctx;
      const activation = evaluateVariables(spec.variables, { ...bindings, object: celValue(object) });
      const r = runExpression(mutation.expression, activation, compileMutationExpression);
      if ("error" in r) return { kind: "error", message: r.error };
      const value = r.value as CelValue;
      return mutation.patchType === "ApplyConfiguration" ? applyConfiguration(value) : jsonPatch(value);
    },
  };
}

function applyConfiguration(value: CelValue): MutationResult {
  if (typeNameOf(value) !== OBJECT_TYPE) {
    return {
      kind: "error",
      message: `unsupported return type from ApplyConfiguration expression: ${typeName(value)}`,
    };
  }
  const mismatches = typeNameMismatches(value);
  if (mismatches.length > 0) return { kind: "error", message: `type mismatch: ${mismatches.join("\n")}` };
  try {
    return { kind: "apply", configuration: celToJson(value) as Record<string, unknown> };
  } catch (e) {
    return { kind: "error", message: `invalid return type: ${(e as Error).message}` };
  }
}

function jsonPatch(value: CelValue): MutationResult {
  if (!isCelList(value)) {
    return { kind: "error", message: "type mismatch: JSONPatchType.expression should evaluate to array" };
  }
  const operations: Record<string, unknown>[] = [];
  for (const op of value) {
    const name = typeNameOf(op);
    if (name !== JSON_PATCH_TYPE) {
      return {
        kind: "error",
        message: `type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: unsupported type conversion to JSONPatch from ${typeName(op)}`,
      };
    }
    const fields = op as ReadonlyMap<unknown, CelValue>;
    const out: Record<string, unknown> = { op: fields.get("op") ?? "", path: fields.get("path") ?? "" };
    const from = fields.get("from");
    if (typeof from === "string" && from !== "") out.from = from;
    const v = fields.get("value");
    if (v !== undefined) {
      const own = typeNameOf(v);
      if (own !== undefined) {
        const mismatches = typeNameMismatches(v, own.split("."));
        if (mismatches.length > 0)
          return { kind: "error", message: `type mismatch: ${mismatches.join("\n")}` };
      }
      try {
        out.value = celToJson(v);
      } catch (e) {
        return {
          kind: "error",
          message: `JSONPath valueExpression evaluated to a type that could not marshal to JSON: ${(e as Error).message}`,
        };
      }
    }
    operations.push(out);
  }
  return { kind: "jsonPatch", operations };
}

function typeName(v: unknown): string {
  const named = typeNameOf(v);
  if (named) return named;
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return "double";
  if (typeof v === "string") return "string";
  if (v === null) return "null_type";
  if (isCelList(v)) return "list";
  return "map";
}
