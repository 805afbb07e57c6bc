// cel-go's two-variable comprehensions (ext.TwoVarComprehensions, kube 1.32+), which
// @bufbuild/cel neither parses as macros nor evaluates: `r.all(i, v, p)`, `exists`, `existsOne`
// (and `exists_one`), `transformList(i, v, [f,] t)`, `transformMap(k, v, [f,] t)` and
// `transformMapEntry(k, v, [f,] e)`. Over a list `i` is the index and `v` the element; over a map,
// the key and the value.
//
// expandTwoVarMacros turns such calls into comprehensions with two variables, as cel-go's macros
// expand them, so the checks made when an expression is written (references, types, cost) read
// what kube reads. lowerTwoVar turns those into comprehensions of one variable that @bufbuild/cel
// runs: over `@pairs(r)` (each entry as [key, value]), with the two variables read from the pair.
import {
  type CelFunc,
  type CelMap,
  CelScalar,
  type CelValue,
  celError,
  celFunc,
  celList,
  celMap,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
  mapType,
} from "@bufbuild/cel";
import { childrenOf, type Expr, maxId, type Parsed } from "./ast.js";

/** cel-go's accumulator of the macros it adds. */
const ACCU = "@result";
/** cel-go's function that adds an entry to the accumulated map (transformMap, transformMapEntry). */
export const MAP_INSERT = "cel.@mapInsert";
/** The entries of a list or map as [key, value] pairs: the range a lowered comprehension walks. */
export const PAIRS = "@pairs";

type Kind = Expr["exprKind"];
type Comprehension = Extract<Kind, { case: "comprehensionExpr" }>["value"];

/** Builds nodes with fresh ids. */
class Nodes {
  constructor(private next: bigint) {}

  node(exprKind: unknown): Expr {
    return { $typeName: "cel.expr.Expr", id: this.next++, exprKind } as Expr;
  }

  ident(name: string): Expr {
    return this.node({ case: "identExpr", value: { $typeName: "cel.expr.Expr.Ident", name } });
  }

  constant(
    constantKind: { case: "boolValue"; value: boolean } | { case: "int64Value"; value: bigint },
  ): Expr {
    return this.node({ case: "constExpr", value: { $typeName: "cel.expr.Constant", constantKind } });
  }

  call(fn: string, args: Expr[]): Expr {
    return this.node({ case: "callExpr", value: { $typeName: "cel.expr.Expr.Call", function: fn, args } });
  }

  list(elements: Expr[]): Expr {
    return this.node({
      case: "listExpr",
      value: { $typeName: "cel.expr.Expr.CreateList", elements, optionalIndices: [] },
    });
  }

  map(): Expr {
    return this.node({
      case: "structExpr",
      value: { $typeName: "cel.expr.Expr.CreateStruct", messageName: "", entries: [] },
    });
  }

  comprehension(c: Omit<Comprehension, "$typeName">): Kind {
    return { case: "comprehensionExpr", value: { $typeName: "cel.expr.Expr.Comprehension", ...c } } as Kind;
  }
}

const MACROS = new Set([
  "all",
  "exists",
  "existsOne",
  "exists_one",
  "transformList",
  "transformMap",
  "transformMapEntry",
]);

/** The name of `e` when it is a plain identifier. */
const identName = (e: Expr | undefined) =>
  e?.exprKind.case === "identExpr" ? e.exprKind.value.name : undefined;

/** Expands the two-variable macros of `parsed` in place, as cel-go's parser does. */
export function expandTwoVarMacros(parsed: Parsed): void {
  let nodes: Nodes | undefined;
  const stack: (Expr | undefined)[] = [parsed.expr];
  while (stack.length > 0) {
    const e = stack.pop();
    if (!e) continue;
    const k = e.exprKind;
    if (k.case === "callExpr" && k.value.target && MACROS.has(k.value.function)) {
      const { function: fn, target, args } = k.value;
      const [a, b] = [identName(args[0]), identName(args[1])];
      const arity = fn === "all" || fn === "exists" || fn.startsWith("exists") ? [3] : [3, 4];
      if (a !== undefined && b !== undefined && arity.includes(args.length)) {
        nodes ??= new Nodes(maxId(parsed.expr) + 1n);
        e.exprKind = expand(nodes, fn, target, a, b, args.slice(2));
      }
    }
    stack.push(...childrenOf(e));
  }
}

/** The comprehension cel-go's macro `fn` expands to (ext/comprehensions.go). */
function expand(n: Nodes, fn: string, range: Expr, iterVar: string, iterVar2: string, rest: Expr[]): Kind {
  const accu = () => n.ident(ACCU);
  const t = () => n.constant({ case: "boolValue", value: true });
  const loop = (accuInit: Expr, loopCondition: Expr, loopStep: Expr, result: Expr) =>
    n.comprehension({
      iterVar,
      iterVar2,
      iterRange: range,
      accuVar: ACCU,
      accuInit,
      loopCondition,
      loopStep,
      result,
    });
  const filtered = (step: Expr) => (rest.length === 2 ? n.call("_?_:_", [rest[0]!, step, accu()]) : step);
  const last = rest[rest.length - 1]!;
  switch (fn) {
    case "all":
      return loop(t(), n.call("@not_strictly_false", [accu()]), n.call("_&&_", [accu(), last]), accu());
    case "exists":
      return loop(
        n.constant({ case: "boolValue", value: false }),
        n.call("@not_strictly_false", [n.call("!_", [accu()])]),
        n.call("_||_", [accu(), last]),
        accu(),
      );
    case "existsOne":
    case "exists_one": {
      const one = () => n.constant({ case: "int64Value", value: 1n });
      return loop(
        n.constant({ case: "int64Value", value: 0n }),
        t(),
        n.call("_?_:_", [last, n.call("_+_", [accu(), one()]), accu()]),
        n.call("_==_", [accu(), one()]),
      );
    }
    case "transformList":
      return loop(n.list([]), t(), filtered(n.call("_+_", [accu(), n.list([last])])), accu());
    case "transformMap":
      return loop(n.map(), t(), filtered(n.call(MAP_INSERT, [accu(), n.ident(iterVar), last])), accu());
    default: // transformMapEntry
      return loop(n.map(), t(), filtered(n.call(MAP_INSERT, [accu(), last])), accu());
  }
}

/**
 * `expr`, or a copy of it in which every two-variable comprehension walks `@pairs(range)` with
 * one variable, `i` and `v` read as its `[0]` and `[1]`. Each such comprehension names its pair
 * by its id, so a nested one does not shadow it; a name a comprehension inside binds again is
 * that comprehension's own.
 */
export function lowerTwoVar(expr: Expr): Expr {
  let found = false;
  const stack: (Expr | undefined)[] = [expr];
  while (stack.length > 0 && !found) {
    const e = stack.pop();
    if (!e) continue;
    if (e.exprKind.case === "comprehensionExpr" && e.exprKind.value.iterVar2 !== "") found = true;
    stack.push(...childrenOf(e));
  }
  if (!found) return expr;
  const copy = structuredClone(expr);
  const n = new Nodes(maxId(copy) + 1n);
  lowerIn(copy, n);
  return copy;
}

function lowerIn(root: Expr, n: Nodes): void {
  const stack: (Expr | undefined)[] = [root];
  while (stack.length > 0) {
    const e = stack.pop();
    if (!e) continue;
    const k = e.exprKind;
    if (k.case === "comprehensionExpr" && k.value.iterVar2 !== "") {
      const c = k.value;
      const pair = `@pair${e.id}`;
      const read = (i: bigint) => () =>
        n.call("_[_]", [n.ident(pair), n.constant({ case: "int64Value", value: i })]);
      const names = new Map([
        [c.iterVar, read(0n)],
        [c.iterVar2, read(1n)],
      ]);
      c.loopCondition = substitute(c.loopCondition, names);
      c.loopStep = substitute(c.loopStep, names);
      c.iterRange = n.call(PAIRS, [c.iterRange as Expr]);
      c.iterVar = pair;
      c.iterVar2 = "";
    }
    stack.push(...childrenOf(e));
  }
}

/** `e` with the identifiers of `names` replaced, outside the comprehensions that bind them again. */
function substitute(e: Expr | undefined, names: ReadonlyMap<string, () => Expr>): Expr | undefined {
  if (!e || names.size === 0) return e;
  const k = e.exprKind;
  switch (k.case) {
    case "identExpr":
      return names.get(k.value.name)?.() ?? e;
    case "selectExpr":
      k.value.operand = substitute(k.value.operand, names);
      return e;
    case "callExpr":
      k.value.target = substitute(k.value.target, names);
      k.value.args = k.value.args.map((a) => substitute(a, names)!);
      return e;
    case "listExpr":
      k.value.elements = k.value.elements.map((x) => substitute(x, names)!);
      return e;
    case "structExpr":
      for (const entry of k.value.entries) {
        if (entry.keyKind.case === "mapKey") entry.keyKind.value = substitute(entry.keyKind.value, names)!;
        entry.value = substitute(entry.value, names);
      }
      return e;
    case "comprehensionExpr": {
      const c = k.value;
      c.iterRange = substitute(c.iterRange, names);
      c.accuInit = substitute(c.accuInit, names);
      const inner = new Map(names);
      for (const bound of [c.iterVar, c.iterVar2, c.accuVar]) inner.delete(bound);
      c.loopCondition = substitute(c.loopCondition, inner);
      c.loopStep = substitute(c.loopStep, inner);
      const afterLoop = new Map(names);
      afterLoop.delete(c.accuVar);
      c.result = substitute(c.result, afterLoop);
      return e;
    }
    default:
      return e;
  }
}

const LIST = listType(CelScalar.DYN);
const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

/** Go's %v of a map key in cel-go's error. */
const keyText = (k: unknown) => (isCelUint(k) ? String(k.value) : String(k));

/** `m` with the entries added; cel-go's error for a key `m` has already. */
function inserted(m: CelMap, entries: Iterable<[unknown, CelValue]>): CelMap {
  const out = new Map<unknown, CelValue>(m as unknown as Iterable<[unknown, CelValue]>);
  for (const [k, v] of entries) {
    if (out.has(k)) throw celError(`insert failed: key ${keyText(k)} already exists`);
    out.set(k, v);
  }
  return celMap(out as never);
}

/** What the lowered comprehensions call: `@pairs` and cel-go's `cel.@mapInsert`. */
export const twoVarLibrary: CelFunc[] = [
  celFunc(PAIRS, [CelScalar.DYN], LIST, (range: CelValue) => {
    if (isCelList(range)) return celList([...range].map((v, i) => celList([BigInt(i), v])));
    if (isCelMap(range)) return celList([...range].map(([k, v]) => celList([k as CelValue, v])));
    throw celError("no such overload");
  }),
  celFunc(MAP_INSERT, [MAP, CelScalar.DYN, CelScalar.DYN], MAP, (m: CelMap, k: CelValue, v: CelValue) =>
    inserted(m, [[k, v]]),
  ),
  celFunc(MAP_INSERT, [MAP, MAP], MAP, (m: CelMap, update: CelMap) =>
    inserted(m, update as unknown as Iterable<[unknown, CelValue]>),
  ),
];
