// cel-go's parser limits on nesting (parser/parser.go), kept at their default of 250 by kube's CEL
// environments: its ANTLR listener refuses a grammar rule entered more than 250 times at once
// ("expression recursion limit exceeded: 250": brackets and ternaries' else branches nested), and
// its visitor more than 250 nested operators, selects, calls on a target, indexes and ternaries
// ("max recursion depth exceeded": `1 + 1 + ... ` or `self.a.a.a...`). Both are reported without a
// location; nor a source of more than 100 000 code points. @bufbuild/cel's parser has no such limit (and recurses): these are measured first, in
// the source, and then in the parsed expression, both without recursion.
import type { Expr } from "./ast.js";
import { childrenOf } from "./ast.js";

const MAX_DEPTH = 250;
/** cel-go's expressionSizeCodePointLimit, also its default in kube. */
const MAX_CODE_POINTS = 100_000;

/** cel-go's error for a source past its size limit, or undefined. */
export function sizeError(source: string): string | undefined {
  if (source.length <= MAX_CODE_POINTS) return undefined;
  let n = 0;
  for (const _ of source) n++;
  return n > MAX_CODE_POINTS
    ? `<input>:-1:0: expression code point size exceeds limit: size: ${n}, limit ${MAX_CODE_POINTS}`
    : undefined;
}

export const RULE_DEPTH_ERROR = `<input>:-1:0: expression recursion limit exceeded: ${MAX_DEPTH}`;
export const VISIT_DEPTH_ERROR = "<input>:-1:0: max recursion depth exceeded";

/**
 * Whether the `expr` rule nests past the limit in `source`: one level per bracket (parentheses,
 * arguments, lists, maps, indexes) and per ternary whose else branch holds the rest, outside
 * strings and comments.
 */
export function ruleDepthExceeded(source: string): boolean {
  // Cheap bound: fewer brackets and `?`s than the limit cannot reach it.
  let marks = 0;
  for (let i = 0; i < source.length && marks <= MAX_DEPTH; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x28 || c === 0x5b || c === 0x7b || c === 0x3f) marks++;
  }
  if (marks <= MAX_DEPTH - 1) return false;
  /** Per open bracket, the ternaries begun at its level. */
  const ternaries: number[] = [0];
  let extra = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "/" && source[i + 1] === "/") {
      const end = source.indexOf("\n", i);
      i = end === -1 ? source.length : end;
    } else if (c === '"' || c === "'") {
      const raw = /[rR]/.test(source[i - 1] ?? "") && !/\w/.test(source[i - 2] ?? "");
      const triple = source.startsWith(c.repeat(3), i);
      const close = triple ? c.repeat(3) : c;
      i += close.length;
      while (i < source.length && !source.startsWith(close, i)) i += !raw && source[i] === "\\" ? 2 : 1;
      i += close.length - 1;
    } else if (c === "(" || c === "[" || c === "{") {
      ternaries.push(0);
      if (1 + (ternaries.length - 1) + extra > MAX_DEPTH) return true;
    } else if (c === ")" || c === "]" || c === "}") {
      if (ternaries.length > 1) extra -= ternaries.pop()!;
    } else if (c === ",") {
      // The next element or argument: the ternaries of the one before are closed.
      extra -= ternaries[ternaries.length - 1];
      ternaries[ternaries.length - 1] = 0;
    } else if (c === "?" && !/[.[{,]\s*$/.test(source.slice(Math.max(0, i - 8), i))) {
      // A ternary (not the optional syntax's `.?`, `[?` or `{?`/`, ?` entries).
      ternaries[ternaries.length - 1]++;
      extra++;
      if (1 + (ternaries.length - 1) + extra > MAX_DEPTH) return true;
    }
  }
  return false;
}

/** The functions whose calls cel-go's visitor counts (relations and arithmetic), besides member calls. */
const COUNTED = new Set([
  "_<_",
  "_<=_",
  "_>_",
  "_>=_",
  "_==_",
  "_!=_",
  "@in",
  "_+_",
  "_-_",
  "_*_",
  "_/_",
  "_%_",
  "_[_]",
  "_[?_]",
  "_?_:_",
]);

/** Whether cel-go's visitor would nest past the limit on `expr`. */
export function visitDepthExceeded(expr: Expr): boolean {
  const stack: [Expr, number][] = [[expr, 0]];
  while (stack.length > 0) {
    const [e, above] = stack.pop()!;
    const k = e.exprKind;
    const counted =
      k.case === "selectExpr" ||
      k.case === "comprehensionExpr" ||
      (k.case === "callExpr" && (k.value.target !== undefined || COUNTED.has(k.value.function)));
    const depth = above + (counted ? 1 : 0);
    if (depth > MAX_DEPTH) return true;
    for (const c of childrenOf(e)) if (c) stack.push([c, depth]);
  }
  return false;
}
