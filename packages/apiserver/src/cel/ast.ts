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

/** The largest node id in `expr`: new nodes take ids above it. Iterative, as expressions nest deep. */
export function maxId(expr: Expr): bigint {
  let max = expr.id;
  const stack: (Expr | undefined)[] = [expr];
  while (stack.length > 0) {
    const x = stack.pop();
    if (!x) continue;
    if (x.id > max) max = x.id;
    stack.push(...childrenOf(x));
  }
  return max;
}

/** Visits `expr` and every subexpression, parents first. */
export function walkExpr(expr: Expr | undefined, visit: (e: Expr) => void): void {
  if (!expr) return;
  visit(expr);
  for (const c of childrenOf(expr)) walkExpr(c, visit);
}

/**
 * Where cel-go reports an error about `e`: a select at its dot, has() and every call at the
 * opening parenthesis. This parser records a call at its name (a member call at its dot) and
 * has()'s select at the `has`, so both are shifted to cel-go's place. Undefined when unknown.
 */
export function celGoOffset(parsed: Parsed, e: Expr): number | undefined {
  const at = parsed.sourceInfo?.positions[String(e.id)];
  if (at === undefined) return undefined;
  const k = e.exprKind;
  // Operators (`_==_`) keep this parser's place: their callers find the operator in the source.
  if (k.case === "callExpr" && /^[A-Za-z]/.test(k.value.function)) {
    return at + k.value.function.length + (k.value.target ? 1 : 0);
  }
  if (k.case === "selectExpr" && k.value.testOnly) return at + "has".length;
  return at;
}
