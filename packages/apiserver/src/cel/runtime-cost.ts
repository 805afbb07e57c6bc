// kube's runtime cost of a CRD rule: what cel-go's cost tracker counts while a rule runs, for
// kube's limits on it (a rule is cancelled past 1 000 000; the rules run on one object may spend
// 10 000 000 together). @bufbuild/cel counts nothing, so a metered program counts for itself:
//
// - every function call through the environment's resolver is priced by cel-go's and kube's
//   call costs from its actual arguments (a string's length, a list's count), as
//   interpreter/runtimecost.go and kube's library/cost.go price them;
// - what cel-go prices by the shape of the expression (1 per identifier, select and index, 10 to
//   make a list, 30 a map, 1 per `@not_strictly_false` of a macro's loop) is added by wrapping the
//   node in a call of `@cost`, one per attribute chain (`self.a.b` costs 3, counted once);
// - `&&`, `||`, `?:` and constants cost nothing, as in cel-go.
//
// Evaluation is synchronous, so the meter of the evaluation running now is a module variable.
import {
  type CelEnv,
  type CelFunc,
  CelScalar,
  type CelValue,
  celError,
  celFunc,
  isCelList,
  isCelMap,
  plan,
} from "@bufbuild/cel";
import { type Expr, maxId, type Parsed } from "./ast.js";
import { lowerTwoVar } from "./two-var.js";

/** kube's PerCallLimit: the cost at which one rule's evaluation is cancelled. */
export const PER_CALL_LIMIT = 1_000_000;
/** kube's RuntimeCELCostBudget: what the rules run on one object may cost together. */
export const RUNTIME_BUDGET = 10_000_000;

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const COST = "@cost";

/** The cost counted so far by the evaluation running now, and where it is cancelled. */
class Meter {
  spent = 0;
  constructor(readonly limit: number) {}

  add(n: number): void {
    this.spent += n;
    // Past the limit every priced step fails, so the evaluation ends soon (a fold stops at an error).
    if (this.spent > this.limit) throw celError("operation cancelled: actual cost limit exceeded");
  }
}

let meter: Meter | undefined;

/** cel-go's actualSize: a string's code points, bytes' length, a collection's count; 1 otherwise. */
function size(v: CelValue | undefined): number {
  if (typeof v === "string") {
    let n = 0;
    for (const _ of v) n++;
    return n;
  }
  if (v instanceof Uint8Array) return v.length;
  if (isCelList(v) || isCelMap(v)) return v.size;
  return 1;
}

/** kube's traversalCost: a string's length × 0.1 (truncated), a collection's elements' costs summed. */
function traversal(v: CelValue | undefined): number {
  if (typeof v === "string" || v instanceof Uint8Array) return Math.floor(size(v) * STRING_TRAVERSAL);
  if (isCelList(v)) {
    let n = 0;
    for (const x of v) n += traversal(x);
    return n;
  }
  if (isCelMap(v)) {
    let n = 0;
    for (const [k, x] of v) n += traversal(k) + traversal(x);
    return n;
  }
  return 1;
}

const isText = (v: CelValue | undefined) => typeof v === "string" || v instanceof Uint8Array;
const ceil = Math.ceil;

/** What a call of `fn` on `args` (the receiver first) giving `result` costs, as cel-go and kube price it. */
export function callCost(fn: string, args: readonly CelValue[], result: CelValue): number {
  const [a, b] = args;
  switch (fn) {
    // kube's library/cost.go, consulted first.
    case "isSorted":
    case "sum":
    case "max":
    case "min":
    case "indexOf":
    case "lastIndexOf":
      return args.length > 0 ? traversal(a) : 0;
    case "url":
    case "lowerAscii":
    case "upperAscii":
    case "substring":
    case "trim":
      return ceil(size(a) * STRING_TRAVERSAL);
    case "replace":
    case "split":
      return ceil(size(a) * 2 * STRING_TRAVERSAL);
    case "join":
      return ceil(size(result) * 2 * STRING_TRAVERSAL);
    case "find":
    case "findAll":
    case "matches":
      return ceil((1 + size(a)) * STRING_TRAVERSAL) * ceil(size(b) * REGEX_LENGTH);
    case "sets.contains":
    case "sets.equivalent":
    case "sets.intersects":
      return size(a) * size(b);
    // cel-go's runtimecost.go.
    case "startsWith":
    case "endsWith":
      return isText(a) ? ceil(size(a) * STRING_TRAVERSAL) : 1;
    case "@in":
      return isCelList(b) ? size(b) : 1;
    case "_==_":
    case "_!=_":
      return ceil(Math.min(size(a), size(b)) * STRING_TRAVERSAL);
    case "_<_":
    case "_<=_":
    case "_>_":
    case "_>=_":
      return isText(a) ? ceil(Math.min(size(a), size(b)) * STRING_TRAVERSAL) : 1;
    case "_+_":
      return isText(a) ? ceil((size(a) + size(b)) * STRING_TRAVERSAL) : 1;
    case "contains":
      return isText(a) ? ceil(size(a) * STRING_TRAVERSAL) * ceil(size(b) * STRING_TRAVERSAL) : 1;
    default:
      return 1;
  }
}

const costFunction: CelFunc = celFunc(COST, [CelScalar.INT, CelScalar.DYN], CelScalar.DYN, (n, v) => {
  meter?.add(Number(n));
  return v;
});

interface Group {
  call(id: number, target: CelValue | undefined, args: CelValue[]): CelValue | undefined;
}

/**
 * `env` with every call priced on the running meter, and `@cost`. @bufbuild/cel's planner reads an
 * environment's functions through `find`, so a resolver answering with priced groups is enough.
 */
function meteredEnv(env: CelEnv): CelEnv {
  const base = env.funcs as unknown as { find(name: string): Group | undefined } & Iterable<unknown>;
  const priced = new Map<string, Group | undefined>();
  const cost = {
    call: (id: number, t: CelValue | undefined, args: CelValue[]) =>
      (costFunction as unknown as Group).call(id, t, args),
  };
  const funcs = {
    [Symbol.iterator]: () => base[Symbol.iterator](),
    find(name: string): Group | undefined {
      if (name === COST) return cost;
      if (!priced.has(name)) {
        const group = base.find(name);
        priced.set(
          name,
          group && {
            call(id, target, args) {
              const result = group.call(id, target, args);
              if (meter && result !== undefined)
                meter.add(callCost(name, target === undefined ? args : [target, ...args], result));
              return result;
            },
          },
        );
      }
      return priced.get(name);
    },
  };
  return {
    funcs,
    registry: env.registry,
    namespace: env.namespace,
    variables: env.variables,
  } as unknown as CelEnv;
}

const metered = new WeakMap<CelEnv, CelEnv>();

export type Program = (ctx: Record<string, unknown>) => unknown;

/** `parsed` planned to count its cost as it runs (on a copy: the parsed tree is left as it was). */
export function planMetered(env: CelEnv, parsed: Parsed): Program {
  let m = metered.get(env);
  if (!m) {
    m = meteredEnv(env);
    metered.set(env, m);
  }
  // Two-variable comprehensions as @bufbuild/cel runs them (two-var.ts), on a copy.
  const copy = lowerTwoVar(structuredClone(parsed.expr));
  const ids = { next: maxId(copy) + 1n };
  const funcs = env.funcs as unknown as { find(name: string): unknown };
  const isFunction = (name: string) => funcs.find(name) !== undefined;
  return plan(m, instrument(copy, ids, isFunction)) as Program;
}

/** The result of running `program` on `ctx`, and what it cost; `exceeded` when cancelled past `limit`. */
export function runMetered(
  program: Program,
  ctx: Record<string, unknown>,
  limit: number,
): { result: unknown; cost: number; exceeded: boolean } {
  const outer = meter;
  const m = new Meter(limit);
  meter = m;
  try {
    const result = program(ctx);
    return { result, cost: m.spent, exceeded: m.spent > limit };
  } finally {
    meter = outer;
  }
}

/** What cel-go counts for an attribute chain: 1 for its identifier, and for each select and index. */
function chainCost(e: Expr): number {
  const k = e.exprKind;
  if (k.case === "identExpr") return 1;
  const operand =
    k.case === "selectExpr" ? k.value.operand : k.case === "callExpr" ? k.value.args[0] : undefined;
  // has() costs only what its operand does (`has(self.a)` 1, `has(self.a.b)` 2).
  if (k.case === "selectExpr" && k.value.testOnly)
    return operand && isChain(operand) ? chainCost(operand) : 0;
  // A chain over another expression's value (`{'a': x}.a`) is cel-go's relative attribute, which
  // counts 1 for itself besides its selects. (Both measured on kube-apiserver 1.26.)
  return 1 + (operand && isChain(operand) ? chainCost(operand) : 1);
}

/** `e` with its priced shapes wrapped in `@cost` calls; ids for the new nodes come from `ids`. */
function instrument(e: Expr, ids: { next: bigint }, isFunction: (name: string) => boolean): Expr {
  const wrap = (n: number, inner: Expr): Expr => {
    if (n === 0) return inner;
    const constant = {
      $typeName: "cel.expr.Expr",
      id: ids.next++,
      exprKind: {
        case: "constExpr",
        value: { $typeName: "cel.expr.Constant", constantKind: { case: "int64Value", value: BigInt(n) } },
      },
    } as Expr;
    return {
      $typeName: "cel.expr.Expr",
      id: ids.next++,
      exprKind: {
        case: "callExpr",
        value: { $typeName: "cel.expr.Expr.Call", function: COST, args: [constant, inner] },
      },
    } as Expr;
  };
  const k = e.exprKind;
  switch (k.case) {
    case "identExpr":
    case "selectExpr":
      return wrapChain(e, ids, wrap, isFunction);
    case "callExpr": {
      const fn = k.value.function;
      if (fn === "_[_]") return wrapChain(e, ids, wrap, isFunction);
      // `optional.of(x)`, `jsonpatch.escapeKey(k)`: a qualified function's name is not an attribute
      // to price, and wrapping it would keep the planner from reading it as a name.
      const target = k.value.target;
      const qualified = target && qualifiedName(target);
      if (target && !(qualified !== undefined && isFunction(`${qualified}.${fn}`)))
        k.value.target = instrument(target, ids, isFunction);
      k.value.args = k.value.args.map((a) => instrument(a, ids, isFunction));
      return fn === "@not_strictly_false" || fn === "__not_strictly_false__" ? wrap(1, e) : e;
    }
    case "listExpr":
      k.value.elements = k.value.elements.map((x) => instrument(x, ids, isFunction));
      return wrap(10, e);
    case "structExpr":
      for (const en of k.value.entries) {
        if (en.keyKind.case === "mapKey") en.keyKind.value = instrument(en.keyKind.value, ids, isFunction);
        if (en.value) en.value = instrument(en.value, ids, isFunction);
      }
      return wrap(k.value.messageName === "" ? 30 : 40, e);
    case "comprehensionExpr": {
      const c = k.value;
      for (const f of ["iterRange", "accuInit", "loopCondition", "loopStep", "result"] as const) {
        const x = c[f];
        if (x) c[f] = instrument(x, ids, isFunction);
      }
      return e;
    }
    default:
      return e;
  }
}

/** An attribute chain wrapped once for all its identifiers, selects and indexes. */
function wrapChain(
  e: Expr,
  ids: { next: bigint },
  wrap: (n: number, inner: Expr) => Expr,
  isFunction: (name: string) => boolean,
): Expr {
  // Instrument what the chain does not own (index keys, a base that is no identifier) in place.
  const replaceInner = (x: Expr): void => {
    const k = x.exprKind;
    if (k.case === "selectExpr" && k.value.operand) {
      if (isChain(k.value.operand)) replaceInner(k.value.operand);
      else k.value.operand = instrument(k.value.operand, ids, isFunction);
    } else if (k.case === "callExpr" && k.value.function === "_[_]") {
      const [operand, key] = k.value.args as [Expr, Expr];
      if (isChain(operand)) replaceInner(operand);
      else k.value.args[0] = instrument(operand, ids, isFunction);
      k.value.args[1] = instrument(key, ids, isFunction);
    }
  };
  replaceInner(e);
  return wrap(chainCost(e), e);
}

/** `a.b.c` as the dotted name it spells, if `e` is only identifiers and selects. */
function qualifiedName(e: Expr): string | undefined {
  const k = e.exprKind;
  if (k.case === "identExpr") return k.value.name;
  if (k.case === "selectExpr" && k.value.operand && !k.value.testOnly) {
    const operand = qualifiedName(k.value.operand);
    return operand === undefined ? undefined : `${operand}.${k.value.field}`;
  }
  return undefined;
}

function isChain(e: Expr): boolean {
  const k = e.exprKind;
  return (
    k.case === "identExpr" ||
    (k.case === "selectExpr" && k.value.operand !== undefined) ||
    (k.case === "callExpr" && k.value.function === "_[_]" && k.value.args.length === 2)
  );
}
