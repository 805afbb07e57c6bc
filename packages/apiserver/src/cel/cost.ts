// The static cost of a CRD's rules, estimated as kube-apiserver estimates it when the CRD is
// written (cel-go's checker/cost.go with kube's size estimates from the schema): what a rule may
// cost on the largest object a request can carry. A collection or string with no declared bound
// is as large as a 3 MiB request allows, so `self.all(x, x.contains('a'))` over an unbounded list
// of unbounded strings is refused, and the same rule with maxItems and maxLength is not.
//
// kube refuses a rule whose cost times the number of times its node can occur exceeds 10 000 000,
// and a CRD whose rules' costs so weighted add up past 100 000 000 (apiextensions validation).
// This follows cel-go's model for the operations rules are made of (selects, comparisons, string
// and list functions, comprehensions, Kubernetes' libraries as kube prices them); a function it
// does not price costs 1, as in cel-go.
import type { Schema } from "../schema/schema-types.js";
import type { Expr } from "./ast.js";
import { escapeProperty, unescapeProperty } from "./escaping.js";

/** kube's MaxRequestSizeBytes: the largest object a request may carry. */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** Go's math.MaxUint64, where estimates saturate. */
const MAX = 2 ** 64;
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
export const PER_RULE_LIMIT = 10_000_000;
export const PER_CRD_LIMIT = 100_000_000;

interface Range {
  min: number;
  max: number;
}

/** What the estimate knows of a subexpression: its cost, and the size of its value. */
interface Est {
  cost: Range;
  /** The value's size (a string's length, a collection's count); undefined: unknown. */
  size?: Range;
  /** The schema of the value, when it is a path into the object. */
  schema?: Schema;
  /** For a list made by a function (split): what its elements are. */
  elem?: Est;
  /** An int, double, bool, duration…: cel-go sizes these 1. */
  scalar?: boolean;
}

const add = (a: number, b: number) => Math.min(MAX, a + b);
const mul = (a: number, b: number) => (a === 0 || b === 0 ? 0 : Math.min(MAX, a * b));
const plus = (a: Range, b: Range): Range => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const times = (a: Range, b: Range): Range => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });
const factor = (a: Range, f: number): Range => ({
  min: Math.ceil(a.min * f),
  max: Math.min(MAX, Math.ceil(a.max * f)),
});
const union = (a: Range, b: Range): Range => ({ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) });
const fixed = (n: number): Range => ({ min: n, max: n });

/** The serialized size of the smallest value of `s` (kube's DeclType.MinSerializedSize). */
function minSize(root: Schema): number {
  // Post-order with a stack: required fields may nest 10 000 levels.
  const sizes = new Map<Schema, number>();
  const requiredFields = (s: Schema) => {
    const required = new Set(s.required ?? []);
    return Object.entries(s.properties ?? {}).filter(
      ([name, p]) => required.has(name) && p.default === undefined,
    );
  };
  const stack: [Schema, boolean][] = [[root, false]];
  while (stack.length > 0) {
    const [s, expanded] = stack.pop()!;
    const object =
      !s["x-kubernetes-int-or-string"] && s.type === "object" && typeof s.additionalProperties !== "object";
    if (object && !expanded) {
      stack.push([s, true]);
      for (const [, p] of requiredFields(s)) stack.push([p, false]);
      continue;
    }
    let size = ownMinSize(s);
    if (object) for (const [name, p] of requiredFields(s)) size += name.length + sizes.get(p)! + 4;
    sizes.set(s, size);
  }
  return sizes.get(root)!;
}

/** minSize of a node, without its required fields. */
function ownMinSize(s: Schema): number {
  if (s["x-kubernetes-int-or-string"]) return 1;
  switch (s.type) {
    case "string":
      if (s.format === "duration") return 4;
      if (s.format === "date") return 12;
      if (s.format === "date-time") return 22;
      return 2;
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return 4;
    default:
      return 2;
  }
}

/** The largest size of a value of `s`, as kube's DeclType.MaxElements: lengths and counts. */
function schemaSize(s: Schema): Range {
  const ext = s as Record<string, unknown>;
  if (s["x-kubernetes-int-or-string"]) {
    return typeof ext.maxLength === "number"
      ? { min: 0, max: (ext.maxLength as number) * 4 }
      : { min: 0, max: MAX_REQUEST_BYTES - 2 };
  }
  switch (s.type) {
    case "string": {
      if (s.format === "duration") return { min: 0, max: 32 };
      if (s.format === "date") return { min: 0, max: 12 };
      if (s.format === "date-time") return { min: 0, max: 64 };
      if (typeof s.maxLength === "number")
        return { min: 0, max: s.maxLength * (s.format === "byte" ? 1 : 4) };
      if (Array.isArray(s.enum) && s.enum.length > 0) {
        return { min: 0, max: Math.max(...s.enum.map((v) => (typeof v === "string" ? v.length : 0))) };
      }
      return { min: 0, max: MAX_REQUEST_BYTES - 2 };
    }
    case "array": {
      const items = s.items && !Array.isArray(s.items) ? s.items : {};
      const max =
        typeof s.maxItems === "number"
          ? s.maxItems
          : Math.floor((MAX_REQUEST_BYTES - 2) / (minSize(items) + 1));
      return { min: 0, max };
    }
    case "object": {
      if (typeof s.additionalProperties !== "object") return fixed(0);
      const max =
        typeof s.maxProperties === "number"
          ? s.maxProperties
          : Math.floor((MAX_REQUEST_BYTES - 2) / (minSize(s.additionalProperties) + 6));
      return { min: 0, max };
    }
    default:
      return fixed(0);
  }
}

/** How many nodes of `s` a request can carry when it sits under collections of no bound. */
export function maxCardinality(s: Schema): number {
  return Math.floor(MAX_REQUEST_BYTES / (minSize(s) + 1));
}

/**
 * The size of `e`'s value. cel-go sizes a value it knows nothing of as large as can be; kube's
 * full type information knows more of function results (conversions, library types) than this
 * estimate does, so an unknown result is sized 1 here: a rule may pass that kube refuses, but
 * none is refused that kube would take.
 */
function sizeOf(e: Est): Range {
  if (e.size) return e.size;
  if (e.schema) return schemaSize(e.schema);
  return fixed(1);
}

/** The schema a select of `field` reaches from `s`. */
function field(s: Schema | undefined, name: string, root: boolean): Schema | undefined {
  if (!s) return undefined;
  if (root && name === "metadata") {
    return { type: "object", properties: { name: { type: "string" }, generateName: { type: "string" } } };
  }
  if (root && (name === "apiVersion" || name === "kind")) return { type: "string" };
  const p = s.properties?.[unescapeProperty(name)];
  if (p && escapeProperty(unescapeProperty(name)) === name) return p;
  return typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
}

/** What iterating over `range` binds: a list's element, a map's key. */
function elementOf(range: Est): Est {
  const s = range.schema;
  if (s?.type === "array" && s.items && !Array.isArray(s.items)) return { cost: fixed(0), schema: s.items };
  // A map's keys are kube's plain string type, which declares no size.
  if (s?.type === "object") return { cost: fixed(0), size: fixed(0) };
  return range.elem ?? { cost: fixed(0) };
}

/** Functions whose results cel-go counts as scalars (sized 1): booleans, numbers, durations, timestamps. */
const SCALAR_RESULT = new Set([
  "_==_",
  "_!=_",
  "_<_",
  "_<=_",
  "_>_",
  "_>=_",
  "!_",
  "@in",
  "@not_strictly_false",
  "matches",
  "startsWith",
  "endsWith",
  "contains",
  "isSorted",
  "isURL",
  "isIP",
  "isCIDR",
  "isQuantity",
  "sets.contains",
  "sets.equivalent",
  "sets.intersects",
  "hasValue",
  "allowed",
  "size",
  "int",
  "uint",
  "double",
  "bool",
  "duration",
  "timestamp",
  "getSeconds",
  "getMilliseconds",
  "getHours",
  "getMinutes",
  "getFullYear",
  "getMonth",
  "getDate",
  "getDayOfMonth",
  "getDayOfWeek",
  "getDayOfYear",
  "indexOf",
  "lastIndexOf",
  "_%_",
  "-_",
  "compareTo",
  "family",
  "prefixLength",
]);
/** String functions kube prices as one pass over the receiver (library/cost.go, ext strings). */
const TRAVERSAL = new Set([
  "lowerAscii",
  "upperAscii",
  "trim",
  "substring",
  "url",
  "isURL",
  "quantity",
  "isQuantity",
  "ip",
  "isIP",
  "cidr",
  "isCIDR",
  "reverse",
]);

/**
 * The estimated cost of `expr` when `self` (and `oldSelf`) is a node of `root`, as cel-go's
 * checker estimates it; max is what kube compares with its limits.
 */
export function estimateCost(expr: Expr, root: Schema, isRoot: boolean): Range {
  const visit = (e: Expr | undefined, scope: ReadonlyMap<string, Est>): Est => {
    if (!e) return { cost: fixed(0) };
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr": {
        const c = k.value.constantKind;
        if (c.case === "stringValue") return { cost: fixed(0), size: fixed([...c.value].length) };
        if (c.case === "bytesValue") return { cost: fixed(0), size: fixed(c.value.length) };
        return { cost: fixed(0), scalar: true };
      }
      case "identExpr": {
        const name = k.value.name;
        if (name === "self" || name === "oldSelf") return { cost: fixed(1), schema: root };
        const bound = scope.get(name);
        return bound ? { ...bound, cost: fixed(1) } : { cost: fixed(1) };
      }
      case "selectExpr": {
        const operand = visit(k.value.operand, scope);
        // has() adds nothing to what its operand costs (cel-go's costSelect).
        if (k.value.testOnly) return { cost: operand.cost, scalar: true };
        const cost = plus(operand.cost, fixed(1));
        const isSelf =
          k.value.operand?.exprKind.case === "identExpr" &&
          ["self", "oldSelf"].includes(k.value.operand.exprKind.value.name);
        const schema = field(operand.schema, k.value.field, isRoot && isSelf);
        return schema ? { cost, schema } : { cost };
      }
      case "listExpr": {
        const items = k.value.elements.map((x) => visit(x, scope));
        const cost = items.reduce((c, x) => plus(c, x.cost), fixed(10));
        return { cost, size: fixed(items.length), elem: items[0] };
      }
      case "structExpr": {
        let cost = fixed(30);
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === "mapKey") cost = plus(cost, visit(entry.keyKind.value, scope).cost);
          cost = plus(cost, visit(entry.value, scope).cost);
        }
        return { cost, size: fixed(k.value.entries.length) };
      }
      case "comprehensionExpr": {
        const c = k.value;
        const range = visit(c.iterRange, scope);
        const init = visit(c.accuInit, scope);
        const inner = new Map(scope);
        inner.set(c.iterVar, elementOf(range));
        inner.set(c.accuVar, init);
        const condition = visit(c.loopCondition, inner);
        const step = visit(c.loopStep, inner);
        const result = visit(c.result, new Map([...scope, [c.accuVar, step]]));
        const loop = times(sizeOf(range), plus(step.cost, condition.cost));
        const cost = [range.cost, init.cost, result.cost, loop].reduce(plus, fixed(0));
        return { ...result, cost };
      }
      case "callExpr":
        return call(k.value.function, k.value.target, k.value.args, scope);
      default:
        return { cost: fixed(0) };
    }
  };

  const call = (
    fn: string,
    target: Expr | undefined,
    argExprs: Expr[],
    scope: ReadonlyMap<string, Est>,
  ): Est => {
    const recv = target ? visit(target, scope) : undefined;
    const args = argExprs.map((a) => visit(a, scope));
    const all = recv ? [recv, ...args] : args;
    const argCost = all.reduce((c, a) => plus(c, a.cost), fixed(0));
    const result = (cost: Range, more: Partial<Est> = {}): Est => ({
      cost,
      scalar: SCALAR_RESULT.has(fn),
      ...more,
    });
    switch (fn) {
      case "_&&_":
      case "_||_": {
        const [l, r] = [args[0]!, args[1]!];
        return { cost: { min: l.cost.min, max: add(l.cost.max, r.cost.max) }, scalar: true };
      }
      case "_?_:_": {
        const [c, t, f] = [args[0]!, args[1]!, args[2]!];
        const size = union(sizeOf(t), sizeOf(f));
        return {
          cost: plus(c.cost, union(t.cost, f.cost)),
          size,
          schema: t.schema ?? f.schema,
          elem: t.elem ?? f.elem,
        };
      }
      case "_==_":
      case "_!=_":
      case "_<_":
      case "_<=_":
      case "_>_":
      case "_>=_": {
        const smallest = Math.min(sizeOf(args[0]!).max, sizeOf(args[1]!).max);
        return result(plus(factor({ min: smallest > 0 ? 1 : 0, max: smallest }, STRING_TRAVERSAL), argCost));
      }
      case "_+_": {
        const [l, r] = [sizeOf(args[0]!), sizeOf(args[1]!)];
        const size = plus(l, r);
        if (args[0]!.scalar || args[1]!.scalar) return result(plus(fixed(1), argCost), { scalar: true });
        const isList = args[0]!.schema?.type === "array" || args[0]!.elem !== undefined;
        return isList
          ? { cost: plus(fixed(1), argCost), size, elem: args[0]!.elem ?? elementOf(args[0]!) }
          : { cost: plus(factor(size, STRING_TRAVERSAL), argCost), size };
      }
      case "@in":
        return result(plus(sizeOf(args[1]!), argCost), { scalar: true });
      case "startsWith":
      case "endsWith":
        if (recv && args.length === 1)
          return result(plus(factor(sizeOf(args[0]!), STRING_TRAVERSAL), argCost));
        break;
      case "contains":
        if (recv && args.length === 1) {
          const cost = times(
            factor(sizeOf(recv), STRING_TRAVERSAL),
            factor(sizeOf(args[0]!), STRING_TRAVERSAL),
          );
          return result(plus(cost, argCost));
        }
        break;
      case "matches":
      case "find":
      case "findAll": {
        const [str, re] = recv ? [recv, args[0]] : [args[0], args[1]];
        if (str && re) {
          const strCost = factor(plus(sizeOf(str), fixed(1)), STRING_TRAVERSAL);
          const cost = times(strCost, factor(sizeOf(re), REGEX_LENGTH));
          return fn === "findAll"
            ? {
                cost: plus(cost, argCost),
                size: { min: 0, max: sizeOf(str).max },
                elem: { cost: fixed(0), size: sizeOf(str) },
              }
            : result(plus(cost, argCost), fn === "find" ? { scalar: false, size: sizeOf(str) } : {});
        }
        break;
      }
      case "split":
        if (recv) {
          const size = sizeOf(recv);
          return {
            cost: plus(factor(size, 2 * STRING_TRAVERSAL), argCost),
            size: { min: 0, max: size.max },
            elem: { cost: fixed(0), size },
          };
        }
        break;
      case "join":
        if (recv) {
          const count = sizeOf(recv);
          const each = sizeOf(elementOf(recv));
          const size = times(count, each);
          return { cost: plus(factor(size, STRING_TRAVERSAL), argCost), size };
        }
        break;
      case "replace":
        if (recv) {
          const size = sizeOf(recv);
          return { cost: plus(factor(size, STRING_TRAVERSAL), argCost), size };
        }
        break;
      case "isSorted":
      case "sum":
      case "max":
      case "min":
        if (recv) return result(plus(sizeOf(recv), argCost), { scalar: true });
        break;
      case "indexOf":
      case "lastIndexOf":
        if (recv) {
          const isList = recv.schema?.type === "array" || recv.elem !== undefined;
          return result(plus(isList ? sizeOf(recv) : factor(sizeOf(recv), STRING_TRAVERSAL), argCost), {
            scalar: true,
          });
        }
        break;
      case "sets.contains":
      case "sets.equivalent":
      case "sets.intersects":
        return result(plus(times(sizeOf(args[0]!), sizeOf(args[1]!)), argCost), { scalar: true });
      default:
        if (TRAVERSAL.has(fn)) {
          const str = recv ?? args[0];
          if (str) {
            const size = sizeOf(str);
            const scalar = SCALAR_RESULT.has(fn);
            return {
              cost: plus(factor(size, STRING_TRAVERSAL), argCost),
              scalar,
              ...(scalar ? {} : { size }),
            };
          }
        }
    }
    return result(plus(fixed(1), argCost));
  };

  return visit(expr, new Map()).cost;
}

/** kube's words for a cost over a limit (getCostErrorMessage). */
export function costMessage(what: string, cost: number, limit: number): string {
  const exceed = cost / limit;
  const by =
    exceed > 100 ? "more than 100x" : exceed < 1.5 ? `${exceed.toFixed(6)}x` : `${exceed.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${by} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
