// The shape of a parsed CEL expression, and walking it: shared by the checks made when an
// expression is written (references.ts, type-check.ts, cost.ts, crd-rules.ts).
import type { parse } from "@bufbuild/cel";

export type Parsed = ReturnType<typeof parse>;
export type Expr = Parsed["expr"];

/** The direct subexpressions of `expr` (for a comprehension: range, init, condition, step, result). */
export function childrenOf(expr: Expr): (Expr | undefined)[] {
  const k = expr.exprKind;
  switch (k.case) {
    case "selectExpr":
      return [k.value.operand];
    case "callExpr":
      return [k.value.target, ...k.value.args];
    case "listExpr":
      return k.value.elements;
    case "structExpr":
      return k.value.entries.flatMap((e) => [
        e.keyKind.case === "mapKey" ? e.keyKind.value : undefined,
        e.value,
      ]);
    case "comprehensionExpr":
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result];
    default:
      return [];
  }
}

/** Visits `expr` and every subexpression, parents first. */
export function walkExpr(expr: Expr | undefined, visit: (e: Expr) => void): void {
  if (!expr) return;
  visit(expr);
  for (const c of childrenOf(expr)) walkExpr(c, visit);
}
