// The static cost of a CRD's rules, estimated as kube-apiserver estimates it when the CRD is
// written: cel-go's checker/cost.go (v0.29), with kube's library/cost.go pricing its functions and
// its size estimator reading the schema (cost-sizes.ts). What a rule may cost on the largest
// object a request can carry: a collection or string with no declared bound is as large as a
// 3 MiB request allows, so `self.all(x, x.contains('a'))` over an unbounded list of unbounded
// strings is refused, and the same rule with maxItems and maxLength is not.
//
// As in cel-go, a value's size comes from the expression (a literal, a function kube gives a
// result size, a comprehension), else from its path into the object (the schema's bound), else
// from its type: 1 for a scalar (int, bool, double, timestamp…), otherwise unknown, that is
// MaxUint64. So `'n=' + string(self.n)` costs MaxUint64 / 10: string() gives no result size,
// and kube refuses that messageExpression. Where the checker (checker.ts) cannot follow cel-go's
// types (the libraries it does not declare: ip, cidr, ext.Lists) a value's size is 1: a rule may
// pass that kube refuses, but none is refused that kube would take. A path's first element is
// dropped, as kube's estimator drops it: a step from what has no path reaches the rule's node.
// test/apiserver/crd-rule-verdicts.test.ts holds 7 728 generated rules to kube's verdicts.
//
// kube refuses a rule whose cost times the number of times its node can occur exceeds 10 000 000,
// and a CRD whose rules' costs so weighted add up past 100 000 000 (apiextensions validation).
import type { Schema } from "../schema/schema-types.js";
import type { Expr } from "./ast.js";
import { type CelType, DOUBLE, DURATION, INT, isUncertain, TIMESTAMP, UINT, BOOL } from "./checker-types.js";
import {
  elementSchema,
  factor,
  field,
  fixed,
  MAP_KEY,
  MAX,
  plus,
  type Range,
  schemaSize,
  times,
  union,
  UNKNOWN_SIZE,
} from "./cost-sizes.js";

export { maxCardinality } from "./cost-sizes.js";

const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
/** kube's MaxNameFormatRegexSize and MaxFormatSize (apiserver/pkg/cel/limits.go). */
const MAX_NAME_FORMAT_REGEX = 128;
const MAX_FORMAT = 64;
export const PER_RULE_LIMIT = 10_000_000;
export const PER_CRD_LIMIT = 100_000_000;

/** The type of each subexpression, from the checker. */
export type NodeTypes = ReadonlyMap<Expr, CelType>;

/** cel-go's entrySizeEstimate: the sizes of a literal collection's keys and values. */
interface Entry {
  list: boolean;
  key: Range;
  val: Range;
}

/** What the estimate knows of a subexpression. */
interface Est {
  cost: Range;
  type: CelType;
  /** cel-go's computed size: a literal's, a function's result, a comprehension's. */
  size?: Range;
  /** The expression's path into the object (cel-go's field path), when it has one. */
  path?: Path;
  /** A literal collection's entries, also through the variables bound to it. */
  entry?: Entry;
  /** A local variable's own size, read after its path and its type (cel-go's localVar.size). */
  varSize?: Range;
}

type Comprehension = Extract<Expr["exprKind"], { case: "comprehensionExpr" }>["value"];

/**
 * A field path (self.a.b, a list's @items, a map's @values or @keys) as the schema node it reaches,
 * undefined when it reaches none: kube's size estimator then knows nothing of it.
 */
interface Path {
  schema?: Schema;
}

/** A variable a comprehension binds: its path, size and entries (cel-go's localVar). */
interface LocalVar {
  path?: Path;
  size?: Range;
  entry?: Entry;
}

const SCALARS = new Set([BOOL, DOUBLE, DURATION, INT, TIMESTAMP, UINT]);

/** cel-go's isScalar: a value of constant size, 1. */
function isScalar(t: CelType): boolean {
  if (SCALARS.has(t)) return true;
  return t.kind === "opaque" && t.name === "optional_type" && isScalar(t.params[0]!);
}

/** Whether the checker could not say what `t` is: its size is then taken as 1. */
const unsure = (t: CelType) => t.kind === "unknown" || isUncertain(t);

const isPrim = (t: CelType, name: string) => t.kind === "prim" && t.name === name;

/** cel-go's computeSize: the size of `e`'s value, undefined when nothing says it. */
function computeSize(e: Est): Range | undefined {
  if (e.size) return e.size;
  if (e.path?.schema) return schemaSize(e.path.schema);
  if (isScalar(e.type)) return fixed(1);
  if (e.varSize) return e.varSize;
  return unsure(e.type) ? fixed(1) : undefined;
}

/** cel-go's sizeOrUnknown. */
const sizeOf = (e: Est): Range => computeSize(e) ?? UNKNOWN_SIZE;

/** Whether `e` is a list, by its type, its entries or its schema. */
function isList(e: Est): boolean {
  if (e.type.kind === "list") return true;
  if (e.type.kind === "map") return false;
  if (e.entry) return e.entry.list;
  return e.path?.schema?.type === "array";
}

/** Whether `e` is a map (or an object of the schema), by its type, its entries or its schema. */
function isMap(e: Est): boolean {
  if (e.type.kind === "map") return true;
  if (e.type.kind === "list") return false;
  if (e.entry) return !e.entry.list;
  return e.path?.schema?.type === "object";
}

/** Whether `e` is a string or bytes: compared and concatenated by length. */
function isText(e: Est): boolean {
  if (isPrim(e.type, "string") || isPrim(e.type, "bytes")) return true;
  if (!unsure(e.type)) return false;
  const s = e.path?.schema;
  return s?.type === "string" || (s === undefined && e.entry === undefined);
}

/** Whether `e` may be compared by length: a string, bytes, or a dyn that may be either. */
const textual = (e: Est) => isText(e) || e.type.kind === "dyn";

function unionEntry(a: Entry | undefined, b: Entry | undefined): Entry | undefined {
  return a && b ? { list: a.list, key: union(a.key, b.key), val: union(a.val, b.val) } : undefined;
}

/**
 * The estimated cost of `expr` when `self` (and `oldSelf`) is a node of `root` (the schema's root
 * or an embedded resource when `isRoot`), as cel-go's checker estimates it with kube's estimator;
 * max is what kube compares with its limits. `types`: the checker's type of each subexpression.
 */
export function estimateCost(expr: Expr, root: Schema, isRoot: boolean, types: NodeTypes): Range {
  const typeOf = (e: Expr): CelType => types.get(e) ?? { kind: "unknown" };
  /**
   * A path one step on from `from`. kube's size estimator reads a path from its second element
   * (the first is `self`), so a step from an expression with no path (a function's result, a
   * literal) reaches the rule's own node: `self.s.split(',')[0]` is sized as `self` is.
   */
  const step = (from: Path | undefined, next: (s: Schema) => Schema | undefined): Path =>
    from === undefined ? { schema: root } : { schema: from.schema && next(from.schema) };
  const mapKey = (s: Schema) => (typeof s.additionalProperties === "object" ? MAP_KEY : undefined);

  const visit = (e: Expr | undefined, scope: ReadonlyMap<string, LocalVar>): Est => {
    if (!e) return { cost: fixed(0), type: { kind: "unknown" } };
    const type = typeOf(e);
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr": {
        const c = k.value.constantKind;
        const size =
          c.case === "stringValue"
            ? fixed([...c.value].length)
            : c.case === "bytesValue"
              ? fixed(c.value.length)
              : fixed(1);
        return { cost: fixed(0), type, size };
      }
      case "identExpr": {
        const bound = scope.get(k.value.name);
        if (bound) {
          const { path, size: varSize, entry } = bound;
          return { cost: fixed(1), type, path, varSize, entry };
        }
        // self, oldSelf, and any other name: kube's estimator drops a path's first element, so
        // every name outside the comprehensions' reaches the rule's node.
        return { cost: fixed(1), type, path: { schema: root } };
      }
      case "selectExpr": {
        const operand = visit(k.value.operand, scope);
        // has() adds nothing to what its operand costs (kube: PresenceTestHasCost(false)).
        if (k.value.testOnly) return { cost: operand.cost, type };
        const kind = operand.type.kind;
        const charged = kind === "object" || kind === "map" || kind === "param" || unsure(operand.type);
        const name = k.value.field;
        return {
          cost: charged ? plus(operand.cost, fixed(1)) : operand.cost,
          type,
          path: step(operand.path, (s) => field(s, name, isRoot && s === root)),
        };
      }
      case "listExpr": {
        const items = k.value.elements.map((x) => visit(x, scope));
        const cost = items.reduce((c, x) => plus(c, x.cost), fixed(10));
        const val = items.length === 0 ? fixed(0) : items.map(sizeOf).reduce(union);
        return { cost, type, size: fixed(items.length), entry: { list: true, key: fixed(1), val } };
      }
      case "structExpr": {
        const v = k.value;
        let cost = fixed(v.messageName === "" ? 30 : 40);
        let key: Range | undefined;
        let val: Range | undefined;
        for (const entry of v.entries) {
          if (entry.keyKind.case === "mapKey") {
            const ke = visit(entry.keyKind.value, scope);
            cost = plus(cost, ke.cost);
            key = key ? union(key, sizeOf(ke)) : sizeOf(ke);
          }
          const ve = visit(entry.value, scope);
          cost = plus(cost, ve.cost);
          val = val ? union(val, sizeOf(ve)) : sizeOf(ve);
        }
        if (v.messageName !== "") return { cost, type };
        return {
          cost,
          type,
          size: fixed(v.entries.length),
          entry: { list: false, key: key ?? fixed(0), val: val ?? fixed(0) },
        };
      }
      case "comprehensionExpr":
        return comprehension(k.value, type, scope);
      case "callExpr":
        return call(e, scope);
      default:
        return { cost: fixed(0), type };
    }
  };

  /** What iterating over `range` binds: a list's item or a map's key; with two variables, both. */
  const iterVar = (range: Est, value: boolean): LocalVar => {
    if (isList(range)) {
      // An index's path, @indices, resolves to nothing.
      if (!value) return { path: step(range.path, () => undefined), size: range.entry?.key };
      return { path: step(range.path, elementSchema), size: range.entry?.val };
    }
    if (value) return { path: step(range.path, elementSchema), size: range.entry?.val };
    return { path: step(range.path, mapKey), size: range.entry?.key };
  };

  const comprehension = (c: Comprehension, type: CelType, scope: ReadonlyMap<string, LocalVar>): Est => {
    const range = visit(c.iterRange, scope);
    const init = visit(c.accuInit, scope);
    const accu: LocalVar = { path: init.path, size: computeSize(init), entry: init.entry };
    const inner = new Map(scope);
    inner.set(c.accuVar, accu);
    if (c.iterVar2) {
      inner.set(c.iterVar, iterVar(range, false));
      inner.set(c.iterVar2, iterVar(range, true));
    } else inner.set(c.iterVar, iterVar(range, isList(range)));
    const condition = visit(c.loopCondition, inner);
    const step = visit(c.loopStep, inner);
    const outer = new Map(scope);
    outer.set(c.accuVar, accu);
    const result = visit(c.result, outer);
    const count = sizeOf(range);
    const initKind = c.accuInit?.exprKind.case;
    const cost = [range.cost, init.cost, result.cost, times(count, plus(step.cost, condition.cost))].reduce(
      plus,
    );
    if (initKind === "constExpr") return { cost, type, size: computeSize(init) };
    if (initKind === "listExpr" || initKind === "structExpr") {
      return { cost, type, size: count, entry: step.entry };
    }
    return { cost, type };
  };

  /** `a.b.c` when it names a namespace (`sets`, `format`, `optional`) rather than a value. */
  const namespace = (e: Expr, scope: ReadonlyMap<string, LocalVar>): string | undefined => {
    const k = e.exprKind;
    if (k.case === "identExpr") {
      const name = k.value.name;
      return scope.has(name) || name === "self" || name === "oldSelf" || !unsure(typeOf(e))
        ? undefined
        : name;
    }
    if (k.case === "selectExpr" && !k.value.testOnly && k.value.operand) {
      const operand = namespace(k.value.operand, scope);
      return operand === undefined ? undefined : `${operand}.${k.value.field}`;
    }
    return undefined;
  };

  const call = (e: Expr, scope: ReadonlyMap<string, LocalVar>): Est => {
    const v = e.exprKind.value as { function: string; target?: Expr; args: Expr[] };
    const type = typeOf(e);
    let fn = v.function;
    let targetExpr = v.target;
    const ns = targetExpr ? namespace(targetExpr, scope) : undefined;
    if (ns !== undefined) {
      fn = `${ns}.${fn}`;
      targetExpr = undefined;
    }
    const args = v.args.map((a) => visit(a, scope));
    const target = targetExpr ? visit(targetExpr, scope) : undefined;
    const argCost = args.reduce((c, a) => plus(c, a.cost), fixed(0));
    const targetCost = target?.cost ?? fixed(0);
    /** The call's estimate: the function's own cost plus its arguments', and its result. */
    const done = (own: Range, more: Partial<Est> = {}): Est => ({
      cost: plus(targetCost, plus(own, argCost)),
      type,
      ...more,
    });
    const [a0, a1] = args;

    switch (fn) {
      case "dyn":
        if (a0) return { cost: plus(fixed(1), a0.cost), type, size: computeSize(a0), entry: a0.entry };
        break;
      case "_[_]":
        if (a0 && a1) return done(fixed(1), { size: a0.entry?.val, path: step(a0.path, elementSchema) });
        break;
      // ext sets: the product of the two lists' sizes.
      case "sets.contains":
      case "sets.intersects":
      case "sets.equivalent":
        if (a0 && a1) {
          const f = fn === "sets.equivalent" ? 2 : 1;
          return done(plus(factor(times(sizeOf(a0), sizeOf(a1)), f), fixed(1)));
        }
        break;
    }
    const kube = kubeCall(fn, target, args, v.args);
    if (kube) return done(kube.cost, kube.size ? { size: kube.size } : {});

    switch (fn) {
      case "format":
        if (target) return done(factor(sizeOf(target), STRING_TRAVERSAL));
        break;
      // A conversion from dyn may be any of the function's overloads: cel-go takes the union of
      // their costs and of the result sizes those that have one give.
      case "bytes":
        if (a0 && (isPrim(a0.type, "string") || a0.type.kind === "dyn")) {
          const sz = sizeOf(a0);
          const cost = factor(sz, STRING_TRAVERSAL);
          return done(a0.type.kind === "dyn" ? union(cost, fixed(1)) : cost, {
            size: { min: sz.min, max: Math.min(MAX, sz.max * 4) },
          });
        }
        break;
      case "string":
        if (a0 && (isPrim(a0.type, "bytes") || a0.type.kind === "dyn")) {
          const sz = sizeOf(a0);
          const cost = factor(sz, STRING_TRAVERSAL);
          return done(a0.type.kind === "dyn" ? union(cost, fixed(1)) : cost, {
            size: { min: Math.floor(sz.min / 4), max: sz.max },
          });
        }
        break;
      case "strings.quote":
        if (a0) {
          const sz = sizeOf(a0);
          return done(factor(sz, STRING_TRAVERSAL), {
            size: { min: sz.min + 2, max: Math.min(MAX, sz.max * 2 + 2) },
          });
        }
        break;
      case "startsWith":
      case "endsWith":
        if (target && a0 && args.length === 1) return done(factor(sizeOf(a0), STRING_TRAVERSAL));
        break;
      case "@in":
        // Only a list is searched; a map's lookup costs 1.
        if (a0 && a1 && !(isMap(a1) && !isList(a1))) return done(sizeOf(a1));
        break;
      case "matches": {
        const [str, re] = target ? [target, a0] : [a0, a1];
        if (str && re && args.length === (target ? 1 : 2)) {
          const strCost = factor(plus(sizeOf(str), fixed(1)), STRING_TRAVERSAL);
          return done(times(strCost, factor(sizeOf(re), REGEX_LENGTH)));
        }
        break;
      }
      case "contains":
        if (target && a0 && args.length === 1) {
          return done(times(factor(sizeOf(target), STRING_TRAVERSAL), factor(sizeOf(a0), STRING_TRAVERSAL)));
        }
        break;
      case "_&&_":
      case "_||_":
        if (a0 && a1) {
          return { cost: { min: a0.cost.min, max: plus(a0.cost, a1.cost).max }, type };
        }
        break;
      case "_?_:_": {
        const [cond, t, f] = args;
        if (cond && t && f) {
          return {
            cost: plus(cond.cost, union(t.cost, f.cost)),
            type,
            size: union(sizeOf(t), sizeOf(f)),
            entry: unionEntry(t.entry, f.entry),
          };
        }
        break;
      }
      case "_+_":
        if (a0 && a1) {
          const listy = type.kind === "list" || (unsure(type) && (isList(a0) || isList(a1)));
          // dyn + dyn may be a concatenation of strings: its dearest overload.
          const texty =
            isPrim(type, "string") ||
            isPrim(type, "bytes") ||
            type.kind === "dyn" ||
            (unsure(type) && !listy && isText(a0) && isText(a1));
          if (listy || texty) {
            const size = plus(sizeOf(a0), sizeOf(a1));
            const entry = unionEntry(a0.entry, a1.entry);
            return done(listy ? fixed(1) : factor(size, STRING_TRAVERSAL), {
              size,
              ...(entry ? { entry } : {}),
            });
          }
        }
        break;
      case "_==_":
      case "_!=_":
      case "_<_":
      case "_<=_":
      case "_>_":
      case "_>=_":
        // Equality by the smaller operand's size; an ordering by length only for strings and bytes.
        if (a0 && a1 && (fn === "_==_" || fn === "_!=_" || (textual(a0) && textual(a1)))) {
          const smallest = Math.min(sizeOf(a0).max, sizeOf(a1).max);
          return done(factor({ min: smallest > 0 ? 1 : 0, max: smallest }, STRING_TRAVERSAL));
        }
        break;
    }
    return done(fixed(1));
  };

  /**
   * kube's library/cost.go (EstimateCallCost), consulted before cel-go's own prices: the cost of
   * the function itself, and its result's size where kube gives one. Undefined: not kube's.
   */
  const kubeCall = (
    fn: string,
    target: Est | undefined,
    args: Est[],
    argExprs: readonly Expr[],
  ): { cost: Range; size?: Range } | undefined => {
    const [a0, a1] = args;
    const traverse = (e: Est, f = STRING_TRAVERSAL) => factor(sizeOf(e), f);
    switch (fn) {
      case "isSorted":
      case "sum":
      case "max":
      case "min":
      case "indexOf":
      case "lastIndexOf":
      case "includes":
        if (target) {
          if (isList(target)) {
            // Each element compared costs 1, and a string's or bytes' length more.
            const items = target.path?.schema && elementSchema(target.path.schema);
            const elemType = target.type.kind === "list" ? target.type.elem : undefined;
            const text = elemType
              ? isPrim(elemType, "string") || isPrim(elemType, "bytes")
              : items?.type === "string";
            const elemSize = elementSize(target);
            const each = text ? plus(fixed(1), factor(elemSize, STRING_TRAVERSAL)) : fixed(1);
            return { cost: times(sizeOf(target), each) };
          }
          return { cost: fn === "includes" ? sizeOf(target) : traverse(target) };
        }
        break;
      case "url":
      case "jsonpatch.escapeKey":
        if (a0 && args.length === 1) return { cost: traverse(a0), size: sizeOf(a0) };
        break;
      case "lowerAscii":
      case "upperAscii":
      case "substring":
      case "trim":
        if (target) return { cost: traverse(target), size: sizeOf(target) };
        break;
      case "replace":
        if (target && a0 && a1)
          return { cost: traverse(target, 2 * STRING_TRAVERSAL), size: replaced(target, a0, a1) };
        break;
      case "split":
        if (target) {
          const sz = sizeOf(target);
          let max = sz.max;
          const limit = literalInt(argExprs[1]);
          // Go's uint64 of a negative limit wraps around: unbounded.
          if (limit !== undefined) max = limit < 0 ? MAX : limit;
          return { cost: factor(sz, 2 * STRING_TRAVERSAL), size: { min: 0, max } };
        }
        break;
      case "join":
        if (target) {
          const count = sizeOf(target);
          let size = fixed(0);
          if (isList(target) || unsure(target.type)) size = times(count, elementSize(target));
          if (a0) {
            const separators = { min: Math.max(0, count.min - 1), max: Math.max(0, count.max - 1) };
            size = plus(size, times(sizeOf(a0), separators));
          }
          return { cost: factor(size, STRING_TRAVERSAL), size };
        }
        break;
      case "find":
      case "findAll":
        if (target && a0) {
          const sz = sizeOf(target);
          const strCost = factor(plus(sz, fixed(1)), STRING_TRAVERSAL);
          return { cost: times(strCost, traverse(a0, REGEX_LENGTH)), size: { min: 0, max: sz.max } };
        }
        break;
      case "cidr":
      case "isIP":
      case "isCIDR":
      case "quantity":
      case "isQuantity":
      case "semver":
      case "isSemver":
        if (a0) return { cost: traverse(a0) };
        break;
      case "ip":
        if (target) return { cost: fixed(1) }; // a CIDR's ip(): a field read
        if (a0) return { cost: traverse(a0) };
        break;
      case "ip.isCanonical":
        if (a0) return { cost: traverse(a0, 2 * STRING_TRAVERSAL) };
        break;
      case "containsIP":
      case "containsCIDR":
        if (a0) {
          // Two byte lists of 4 or 16 compared; a CIDR masked first; a string parsed first.
          const ip = { min: 4, max: 16 };
          let cost = factor(plus(ip, ip), STRING_TRAVERSAL);
          if (fn === "containsCIDR") cost = plus(plus(cost, factor(ip, STRING_TRAVERSAL)), fixed(1));
          if (isText(a0)) cost = plus(cost, traverse(a0));
          return { cost };
        }
        break;
      case "validate":
        if (a0) return { cost: factor(traverse(a0), MAX_NAME_FORMAT_REGEX * REGEX_LENGTH) };
        break;
      case "format.named":
      case "masked":
      case "prefixLength":
      case "family":
      case "isUnspecified":
      case "isLoopback":
      case "isLinkLocalMulticast":
      case "isLinkLocalUnicast":
      case "isGlobalUnicast":
      case "sign":
      case "asInteger":
      case "isInteger":
      case "asApproximateFloat":
      case "isGreaterThan":
      case "isLessThan":
      case "compareTo":
      case "add":
      case "sub":
      case "major":
      case "minor":
      case "patch":
      case "getScheme":
      case "getHostname":
      case "getHost":
      case "getPort":
      case "getEscapedPath":
      case "getQuery":
        return { cost: fixed(1) };
      case "_==_":
        // Kubernetes' own types compare in constant time (a format by its name, a URL by length).
        if (
          a0 &&
          a1 &&
          a0.type.kind === "opaque" &&
          a1.type.kind === "opaque" &&
          a0.type.name === a1.type.name
        ) {
          switch (a0.type.name) {
            case "net.IP":
            case "net.CIDR":
            case "kubernetes.Quantity":
            case "kubernetes.Semver":
              return { cost: fixed(1) };
            case "kubernetes.NamedFormat":
              return { cost: factor({ min: 1, max: MAX_FORMAT }, STRING_TRAVERSAL) };
            case "kubernetes.URL":
              return { cost: factor({ min: 1, max: a1.size?.max ?? 1 }, STRING_TRAVERSAL) };
          }
        }
        break;
    }
    return undefined;
  };

  return visit(expr, new Map()).cost;
}

/**
 * The size of a list's element as kube's estimator reads it, by the list's path alone (@items):
 * the elements of a list that is no field's are unbounded, whatever the list holds.
 */
function elementSize(list: Est): Range {
  const items = list.path?.schema && elementSchema(list.path.schema);
  if (items) return schemaSize(items);
  return unsure(list.type) ? fixed(1) : UNKNOWN_SIZE;
}

/** The value of `e` when it is an integer literal. */
function literalInt(e: Expr | undefined): number | undefined {
  const k = e?.exprKind;
  return k?.case === "constExpr" && k.value.constantKind.case === "int64Value"
    ? Number(k.value.constantKind.value)
    : undefined;
}

/** kube's result size of `s.replace(from, to)`: as many replacements as can fit. */
function replaced(target: Est, from: Est, to: Est): Range {
  const sz = sizeOf(target);
  const f = sizeOf(from);
  const t = sizeOf(to);
  let countMax: number;
  let keptMax = 0;
  if (f.min === 0) {
    countMax = sz.max < MAX ? sz.max + 1 : sz.max;
    keptMax = sz.max;
  } else if (t.max <= f.min) {
    countMax = 0;
    keptMax = sz.max;
  } else countMax = Math.ceil(sz.max / f.min);
  let countMin: number;
  let keptMin = 0;
  if (f.max === 0) {
    countMin = sz.min < MAX ? sz.min + 1 : sz.min;
    keptMin = sz.min;
  } else if (f.max <= t.min) {
    countMin = 0;
    keptMin = sz.min;
  } else countMin = Math.ceil(sz.min / f.max);
  return plus(times({ min: countMin, max: countMax }, t), { min: keptMin, max: keptMax });
}

/** kube's words for a cost over a limit (getCostErrorMessage). */
export function costMessage(what: string, cost: number, limit: number): string {
  const exceed = cost / limit;
  const by =
    exceed > 100 ? "more than 100x" : exceed < 1.5 ? `${exceed.toFixed(6)}x` : `${exceed.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${by} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
