// The names an expression may use, checked when it is written as cel-go's checker checks them:
// a function no library declares, or a variable the environment does not, is kube's
// "undeclared reference to 'x' (in container '')" at the name. @bufbuild/cel plans such an
// expression and fails only when it runs, so a typo (or a function of a newer Kubernetes)
// would otherwise be stored and refuse every object later.
import type { CelEnv } from "@bufbuild/cel";
import { celGoOffset, childrenOf, type Expr, type Parsed } from "./ast.js";

/** Operators the planner evaluates itself rather than through a declared function. */
const PLANNED = new Set([
  "_[_]",
  "_[?_]",
  "_?._",
  "_?_:_",
  "_&&_",
  "_||_",
  "@not_strictly_false",
  "__not_strictly_false__",
]);
/** Type names, which are values in CEL (`type(x) == int`). */
const TYPES = new Set([
  "int",
  "uint",
  "double",
  "bool",
  "string",
  "bytes",
  "list",
  "map",
  "null_type",
  "type",
  "dyn",
]);

/** An error as cel-go prints it: `<input>:line:col: message`, then the line and a caret under the column. */
export function located(source: string, offset: number | undefined, message: string): string {
  if (offset === undefined) return message;
  const before = source.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  const column = [...source.slice(lineStart, offset)].length + 1;
  const line = before.split("\n").length;
  const text = source.slice(lineStart).split("\n")[0];
  return `<input>:${line}:${column}: ${message}\n | ${text}\n | ${".".repeat(column - 1)}^`;
}

/** `a.b.c` of a chain of selects on an identifier; undefined for anything else. */
function qualifiedName(e: Expr | undefined): string | undefined {
  const k = e?.exprKind;
  if (k?.case === "identExpr") return k.value.name;
  if (k?.case === "selectExpr" && !k.value.testOnly) {
    const operand = qualifiedName(k.value.operand);
    return operand === undefined ? undefined : `${operand}.${k.value.field}`;
  }
  return undefined;
}

/**
 * The first name in `parsed` that neither `env`'s functions nor `declared` (plus comprehension
 * variables in their scope) declare, as cel-go's checker reports it; undefined when all resolve.
 */
export function undeclaredReference(
  parsed: Parsed,
  source: string,
  env: CelEnv,
  declared: ReadonlySet<string>,
): string | undefined {
  let found: string | undefined;
  const report = (name: string, offset: number | undefined) => {
    found ??= located(source, offset, `undeclared reference to '${name}' (in container '')`);
  };
  const visit = (e: Expr | undefined, scope: ReadonlySet<string>): void => {
    if (!e || found !== undefined) return;
    const k = e.exprKind;
    switch (k.case) {
      case "identExpr":
        if (!scope.has(k.value.name) && !declared.has(k.value.name) && !TYPES.has(k.value.name)) {
          report(k.value.name, celGoOffset(parsed, e));
        }
        return;
      case "selectExpr":
        visit(k.value.operand, scope);
        return;
      case "callExpr": {
        const { function: fn, target, args } = k.value;
        const qualified = qualifiedName(target);
        if (qualified !== undefined && env.funcs.find(`${qualified}.${fn}`) !== undefined) {
          for (const a of args) visit(a, scope);
          return;
        }
        if (!PLANNED.has(fn) && env.funcs.find(fn) === undefined) {
          report(fn, celGoOffset(parsed, e));
          return;
        }
        visit(target, scope);
        for (const a of args) visit(a, scope);
        return;
      }
      case "structExpr":
        // No message type is declared here (a mutation's are rewritten before: typed-objects.ts);
        // cel-go reports an initialiser at its brace.
        if (k.value.messageName !== "") {
          const at = celGoOffset(parsed, e);
          const brace = at === undefined ? -1 : source.indexOf("{", at);
          report(k.value.messageName, brace < 0 ? at : brace);
          return;
        }
        for (const x of childrenOf(e)) visit(x, scope);
        return;
      case "comprehensionExpr": {
        const c = k.value;
        visit(c.iterRange, scope);
        visit(c.accuInit, scope);
        const inner = new Set([...scope, c.iterVar, c.iterVar2, c.accuVar]);
        visit(c.loopCondition, inner);
        visit(c.loopStep, inner);
        visit(c.result, new Set([...scope, c.accuVar]));
        return;
      }
      default:
        for (const x of childrenOf(e)) visit(x, scope);
        return;
    }
  };
  visit(parsed.expr, new Set());
  return found;
}
