// cel-go's optional syntax (kube 1.29+), which @bufbuild/cel's parser does not read:
// `a.?b` and `a[?k]` (an optional of the field or entry when present, else none; a select or index
// after them stays optional, as cel-go's attribute chains do), `[a, ?b]` (an element only when the
// optional holds one) and `{k: v, ?k2: o}` (an entry only when `o` holds a value).
//
// The `?` is found with a small scanner that skips strings and comments and blanked out, so the
// parser reads plain CEL at the same offsets (its positions and error columns stay the source's);
// the nodes at the recorded places are then rewritten into calls of the functions in optional.ts.
import { parse } from "@bufbuild/cel";
import { childrenOf, type Expr, type Parsed } from "./ast.js";
import { OPTIONAL_INDEX, OPTIONAL_LIST, OPTIONAL_MAP, OPTIONAL_SELECT } from "./optional.js";
import {
  RULE_DEPTH_ERROR,
  ruleDepthExceeded,
  sizeError,
  VISIT_DEPTH_ERROR,
  visitDepthExceeded,
} from "./recursion-limits.js";
import { located } from "./references.js";
import { expandTwoVarMacros } from "./two-var.js";

/** `optional.of(x)` and its kin: a select or index on their result is optional too, as in cel-go. */
const OPTIONAL_MAKERS = new Set(["of", "ofNonZeroValue", "none"]);

/** Where a `?` stood: after the dot at `at`, or before entry `entry` of the list, map or index opened at `at`. */
type Mark = { at: number; entry: number; dot: boolean };

/** Parses `source` as cel-go does with optional types enabled; throws the parser's error otherwise. */
export function parseCel(source: string): Parsed {
  const tooLarge = sizeError(source);
  if (tooLarge) throw new Error(tooLarge);
  if (ruleDepthExceeded(source)) throw new Error(RULE_DEPTH_ERROR);
  if (!source.includes("?") && !source.includes("optional.")) {
    const plain = withinVisitDepth(parse(source));
    expandTwoVarMacros(plain);
    return plain;
  }
  const { text, marks } = scan(source);
  const parsed = withinVisitDepth(parse(text));
  expandTwoVarMacros(parsed);
  const pending = new Map(marks.map((m) => [key(m.dot ? "." : "(", m.at, m.entry), m]));
  new Rewriter(parsed, pending, text).rewrite(parsed.expr);
  const left = [...pending.values()][0];
  if (left)
    throw new Error(located(source, questionAfter(source, left), "Syntax error: mismatched input '?'"));
  return parsed;
}

/** `parsed`, unless cel-go's visitor would have given up on it. */
function withinVisitDepth(parsed: Parsed): Parsed {
  if (visitDepthExceeded(parsed.expr)) throw new Error(VISIT_DEPTH_ERROR);
  return parsed;
}

/** A mark's key: a dot's, or an entry's of the bracket or brace opened at `at`. */
const key = (kind: "." | "(", at: number, entry: number) => `${kind}${at}:${entry}`;

/** The offset of the `?` a mark stands for (for the error of one that nothing could take). */
function questionAfter(source: string, m: Mark): number {
  return source.indexOf("?", m.at);
}

/** Blanks the optional `?`s of `source` (outside strings and comments), recording where each stood. */
function scan(source: string): { text: string; marks: Mark[] } {
  const chars = [...source];
  const marks: Mark[] = [];
  const open: { at: number; entry: number }[] = [];
  let offset = 0; // in UTF-16 units, as the parser's positions
  let previous = ""; // the last significant character
  let previousAt = -1;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    const at = offset;
    offset += c.length;
    if (c === "/" && chars[i + 1] === "/") {
      while (i + 1 < chars.length && chars[i + 1] !== "\n") offset += (chars[++i] as string).length;
      continue;
    }
    if (c === '"' || c === "'") {
      const raw =
        /[rR]/.test(chars[i - 1] ?? "") ||
        (/[rR]/.test(chars[i - 2] ?? "") && /[bB]/.test(chars[i - 1] ?? ""));
      const triple = chars[i + 1] === c && chars[i + 2] === c;
      const quote = triple ? c.repeat(3) : c;
      i += quote.length - 1;
      offset += quote.length - 1;
      while (i + 1 < chars.length) {
        const d = chars[++i] as string;
        offset += d.length;
        if (d === "\\" && !raw && i + 1 < chars.length) {
          offset += (chars[++i] as string).length;
        } else if (d === c && (!triple || (chars[i + 1] === c && chars[i + 2] === c))) {
          if (triple) {
            i += 2;
            offset += 2;
          }
          break;
        }
      }
      previous = c;
      previousAt = at;
      continue;
    }
    if (/\s/.test(c)) continue;
    if (c === "(" || c === "[" || c === "{") open.push({ at, entry: 0 });
    else if (c === ")" || c === "]" || c === "}") open.pop();
    else if (c === ",") {
      const top = open.at(-1);
      if (top) top.entry++;
    } else if (c === "?") {
      const top = open.at(-1);
      if (previous === ".") {
        marks.push({ at: previousAt, entry: 0, dot: true });
        chars[i] = " ";
      } else if (top && (previous === "[" || previous === "{" || previous === ",")) {
        marks.push({ at: top.at, entry: top.entry, dot: false });
        chars[i] = " ";
      }
    }
    previous = c;
    previousAt = at;
  }
  return { text: chars.join(""), marks };
}

/** Rewrites the nodes the marks name into calls of optional.ts's functions. */
class Rewriter {
  #nextId: bigint;
  readonly #positions: Record<string, number>;

  constructor(
    parsed: Parsed,
    readonly pending: Map<string, Mark>,
    readonly text: string,
  ) {
    this.#positions = parsed.sourceInfo?.positions ?? {};
    let max = 0n;
    for (const id of Object.keys(this.#positions)) if (BigInt(id) > max) max = BigInt(id);
    this.#nextId = max + 1n;
  }

  /** Rewrites `e` and what is under it; whether `e` now yields an optional. */
  rewrite(e: Expr | undefined): boolean {
    if (!e) return false;
    const at = this.#positions[String(e.id)] ?? -1;
    const k = e.exprKind;
    switch (k.case) {
      case "selectExpr": {
        const optionalOperand = this.rewrite(k.value.operand);
        if (k.value.testOnly || !(this.#takeDot(at) || optionalOperand)) return false;
        this.#call(e, OPTIONAL_SELECT, [k.value.operand as Expr, this.#string(k.value.field, at)]);
        return true;
      }
      case "callExpr": {
        const fn = k.value.function;
        const optionalTarget = this.rewrite(k.value.target);
        const optionalArgs = k.value.args.map((a) => this.rewrite(a));
        if (fn === "_[_]" && (this.#takeEntry(at, 0) || optionalArgs[0])) {
          k.value.function = OPTIONAL_INDEX;
          return true;
        }
        const target = k.value.target?.exprKind;
        const ofOptional = target?.case === "identExpr" && target.value.name === "optional";
        return (ofOptional && OPTIONAL_MAKERS.has(fn)) || (fn === "or" && optionalTarget);
      }
      case "listExpr": {
        for (const el of k.value.elements) this.rewrite(el);
        const flags = k.value.elements.map((_, i) => this.#takeEntry(at, i));
        if (flags.some(Boolean))
          this.#call(e, OPTIONAL_LIST, [this.#list(k.value.elements, at), this.#flags(flags, at)]);
        return false;
      }
      case "structExpr": {
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === "mapKey") this.rewrite(entry.keyKind.value);
          this.rewrite(entry.value);
        }
        // An initialiser (`Name{...}`) is placed at its name; its marks, at its brace.
        const brace = k.value.messageName === "" ? at : this.text.indexOf("{", at);
        const flags = k.value.entries.map((_, i) => this.#takeEntry(brace, i));
        // An initialiser's optional fields stay marked, for its own rewrite (typed-objects.ts).
        if (k.value.messageName !== "") {
          k.value.entries.forEach((en, i) => {
            if (flags[i]) en.optionalEntry = true;
          });
        } else if (flags.some(Boolean)) {
          const keys = k.value.entries.map((en) => en.keyKind.value as Expr);
          const values = k.value.entries.map((en) => en.value as Expr);
          this.#call(e, OPTIONAL_MAP, [this.#list(keys, at), this.#list(values, at), this.#flags(flags, at)]);
        }
        return false;
      }
      case "comprehensionExpr":
        for (const c of childrenOf(e)) this.rewrite(c);
        return false;
      default:
        return false;
    }
  }

  #takeDot(at: number): boolean {
    return this.pending.delete(key(".", at, 0));
  }

  #takeEntry(at: number, entry: number): boolean {
    return this.pending.delete(key("(", at, entry));
  }

  /** Turns `e` in place into a call of `fn`, keeping its id (and so its position). */
  #call(e: Expr, fn: string, args: Expr[]): void {
    e.exprKind = {
      case: "callExpr",
      value: { $typeName: "cel.expr.Expr.Call", function: fn, args },
    } as Expr["exprKind"];
  }

  #node(exprKind: unknown, at: number): Expr {
    const id = this.#nextId++;
    this.#positions[String(id)] = at;
    return { $typeName: "cel.expr.Expr", id, exprKind } as Expr;
  }

  #string(value: string, at: number): Expr {
    return this.#node(
      {
        case: "constExpr",
        value: { $typeName: "cel.expr.Constant", constantKind: { case: "stringValue", value } },
      },
      at,
    );
  }

  #list(elements: Expr[], at: number): Expr {
    return this.#node(
      { case: "listExpr", value: { $typeName: "cel.expr.Expr.CreateList", elements, optionalIndices: [] } },
      at,
    );
  }

  #flags(flags: boolean[], at: number): Expr {
    const consts = flags.map((f) =>
      this.#node(
        {
          case: "constExpr",
          value: { $typeName: "cel.expr.Constant", constantKind: { case: "boolValue", value: f } },
        },
        at,
      ),
    );
    return this.#list(consts, at);
  }
}
