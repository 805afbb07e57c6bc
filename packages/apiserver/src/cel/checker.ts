// cel-go's type checker, as kube runs it on a CRD's rules when the CRD is written: the type of
// every subexpression from the schema's declared types (checker-types.ts) and the overloads of
// the functions (declarations.ts), with cel-go's errors: "undefined field 'x'", "found no
// matching overload for '_==_' applied to '(string, int)'", "type 'int' does not support field
// selection", a comprehension over what is no list or map. The result type tells whether a rule
// evaluates to a bool and a messageExpression to a string, as kube requires.
//
// Where this checker cannot follow cel-go (a function it does not know, the optional library,
// a literal of mixed types) the type is `unknown`, which matches everything and is never
// reported: a rule cel-go accepts is never refused here.
import { celGoOffset, type Expr, type Parsed } from "./ast.js";
import {
  BOOL,
  BYTES,
  type CelType,
  DOUBLE,
  DYN,
  FREE,
  formatType,
  hasFree,
  INT,
  isNullable,
  isUncertain,
  listOf,
  mapOf,
  NULL,
  optionalOf,
  STRING,
  sameType,
  typeOf,
  UINT,
  mutationType,
  UNKNOWN,
} from "./checker-types.js";
import { type Overload, overloadsOf } from "./declarations.js";
import { OPTIONAL_INDEX, OPTIONAL_LIST, OPTIONAL_MAP, OPTIONAL_SELECT } from "./optional.js";
import { isReservedWord } from "./escaping.js";
import { located } from "./references.js";

export interface CheckResult {
  /** The type of the whole expression (`unknown` when the checker cannot say). */
  type: CelType;
  /** cel-go's errors, each located as it prints them ("<input>:1:5: ...\n | ...\n | ....^"), in source order. */
  errors: string[];
}

/** The type names CEL has as values (`type(x) == int`). */
const TYPE_NAMES: Record<string, CelType> = {
  bool: BOOL,
  bytes: BYTES,
  double: DOUBLE,
  int: INT,
  uint: UINT,
  string: STRING,
  null_type: NULL,
  dyn: DYN,
};

/** Where cel-go reports an operator: at its symbol (this parser records the same place, or before it). */
const OPERATOR_TEXT: Record<string, string> = {
  "_==_": "==",
  "_!=_": "!=",
  "_<_": "<",
  "_<=_": "<=",
  "_>_": ">",
  "_>=_": ">=",
  "_+_": "+",
  "_-_": "-",
  "_*_": "*",
  "_/_": "/",
  "_%_": "%",
  "_&&_": "&&",
  "_||_": "||",
  "_?_:_": "?",
  "_[_]": "[",
  "!_": "!",
  "-_": "-",
  "@in": "in",
};

/**
 * Type-checks `parsed` (of `source`) with `variables` declared, as cel-go's checker does; with
 * `types`, records there the type of every subexpression (the cost estimate sizes by type).
 */
export function checkExpression(
  parsed: Parsed,
  source: string,
  variables: ReadonlyMap<string, CelType>,
  types?: Map<Expr, CelType>,
): CheckResult {
  const issues: { offset: number; text: string }[] = [];
  const positions = parsed.sourceInfo?.positions ?? {};
  const report = (offset: number | undefined, message: string) =>
    issues.push({ offset: offset ?? 0, text: located(source, offset, message) });
  // kube's HomogeneousAggregateLiterals: a validator run once the check passed, so reported only then.
  const literalIssues: { offset: number; text: string }[] = [];
  /** Inside a call of `format`, whose list arguments may mix types. */
  let inFormat = 0;
  const mixed = (elems: readonly Expr[], types: readonly CelType[]) => {
    if (inFormat > 0 || types.some((t) => isUncertain(t) || hasFree(t))) return;
    const first = types[0];
    const i = types.findIndex((t) => !sameType(t, first!));
    if (i < 0) return;
    const offset = celGoOffset(parsed, elems[i]!);
    literalIssues.push({
      offset: offset ?? 0,
      text: located(
        source,
        offset,
        `expected type '${formatType(first!)}' but found '${formatType(types[i]!)}'`,
      ),
    });
  };

  const offsetOf = (e: Expr, fn: string): number | undefined => {
    const op = OPERATOR_TEXT[fn];
    if (op === undefined) return celGoOffset(parsed, e);
    const from = positions[String(e.id)];
    if (from === undefined) return undefined;
    const at = source.indexOf(op, from);
    return at < 0 ? from : at;
  };

  /** A field `field` of a value of type `t` (cel-go's checkSelectField); undefined: reported. */
  const selectField = (e: Expr, t: CelType, field: string): CelType => {
    switch (t.kind) {
      case "object": {
        const f =
          t.fields().get(field) ?? (isReservedWord(field) ? t.fields().get(`__${field}__`) : undefined);
        if (f !== undefined) return f;
        report(celGoOffset(parsed, e), `undefined field '${field}'`);
        return UNKNOWN;
      }
      case "map":
        return t.value;
      case "dyn":
      case "unknown":
        return t;
      case "param":
      case "free":
        return DYN;
      case "opaque":
        if (t.name === "optional_type") return optionalOf(selectField(e, t.params[0]!, field));
        break;
    }
    report(celGoOffset(parsed, e), `type '${formatType(t)}' does not support field selection`);
    return UNKNOWN;
  };

  const check = (e: Expr | undefined, scope: ReadonlyMap<string, CelType>): CelType => {
    if (!e) return UNKNOWN;
    const t = typeOfExpr(e, scope);
    types?.set(e, t);
    return t;
  };

  const typeOfExpr = (e: Expr, scope: ReadonlyMap<string, CelType>): CelType => {
    const k = e.exprKind;
    switch (k.case) {
      case "constExpr":
        switch (k.value.constantKind.case) {
          case "boolValue":
            return BOOL;
          case "int64Value":
            return INT;
          case "uint64Value":
            return UINT;
          case "doubleValue":
            return DOUBLE;
          case "stringValue":
            return STRING;
          case "bytesValue":
            return BYTES;
          case "nullValue":
            return NULL;
          default:
            return UNKNOWN;
        }
      case "identExpr": {
        const name = k.value.name;
        const t = scope.get(name) ?? variables.get(name);
        if (t !== undefined) return t;
        const typeName = TYPE_NAMES[name];
        // An undeclared name is references.ts's to report.
        return typeName === undefined ? UNKNOWN : typeOf(typeName);
      }
      case "selectExpr": {
        const operand = check(k.value.operand, scope);
        const field = selectField(e, operand, k.value.field);
        return k.value.testOnly ? BOOL : field;
      }
      case "listExpr": {
        const elems = k.value.elements.map((x) => check(x, scope));
        if (k.value.optionalIndices.length === 0) mixed(k.value.elements, elems);
        return listOf(joined(elems));
      }
      case "structExpr": {
        if (k.value.messageName !== "") {
          // Only a mutation's types can be named (their environment alone declares them).
          const t = mutationType(k.value.messageName);
          for (const entry of k.value.entries) {
            const given = check(entry.value, scope);
            if (t?.kind !== "object" || entry.keyKind.case !== "fieldKey" || entry.optionalEntry) continue;
            const field = entry.keyKind.value;
            const want = t.fields().get(field);
            if (want !== undefined && (want.kind !== "prim" || !definite(given) || sameType(want, given)))
              continue;
            // cel-go reports a field initialiser at its colon.
            const at = positions[String(entry.id)];
            report(
              at === undefined ? undefined : source.indexOf(":", at),
              `expected type of field '${field}' is '${want ? formatType(want) : ""}' but provided type is '${formatType(given)}'`,
            );
          }
          return t ?? UNKNOWN;
        }
        const keys: CelType[] = [];
        const values: CelType[] = [];
        const keyExprs: Expr[] = [];
        const valueExprs: Expr[] = [];
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === "mapKey") {
            keys.push(check(entry.keyKind.value, scope));
            keyExprs.push(entry.keyKind.value);
          }
          values.push(check(entry.value, scope));
          if (entry.value) valueExprs.push(entry.value);
        }
        if (!k.value.entries.some((e) => e.optionalEntry) && keys.length === values.length) {
          mixed(keyExprs, keys);
          mixed(valueExprs, values);
        }
        return mapOf(joined(keys), joined(values));
      }
      case "comprehensionExpr": {
        const c = k.value;
        const range = check(c.iterRange, scope);
        let iter: CelType = UNKNOWN;
        switch (range.kind) {
          case "list":
            iter = range.elem;
            break;
          case "map":
            iter = range.key;
            break;
          case "dyn":
          case "unknown":
            iter = range;
            break;
          case "param":
          case "free":
            iter = DYN;
            break;
          default:
            report(
              celGoOffset(parsed, c.iterRange!),
              `expression of type '${formatType(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
            );
        }
        const accu = check(c.accuInit, scope);
        const inner = new Map(scope);
        if (c.iterVar2) {
          // Two variables (kube 1.32+): a list's index and element, a map's key and value.
          const [first, second] =
            range.kind === "list"
              ? [INT, range.elem]
              : range.kind === "map"
                ? [range.key, range.value]
                : [iter, iter];
          inner.set(c.iterVar, first);
          inner.set(c.iterVar2, second);
        } else inner.set(c.iterVar, iter);
        inner.set(c.accuVar, accu);
        check(c.loopCondition, inner);
        const step = check(c.loopStep, inner);
        const withAccu = new Map(scope);
        withAccu.set(c.accuVar, refined(accu, step));
        return check(c.result, withAccu);
      }
      case "callExpr":
        return checkCall(e, scope);
      default:
        return UNKNOWN;
    }
  };

  const checkCall = (e: Expr, scope: ReadonlyMap<string, CelType>): CelType => {
    const call = e.exprKind.value as { function: string; target?: Expr; args: Expr[] };
    let fn = call.function;
    // `sets.contains(...)`: a namespaced function, parsed as a member call on its namespace.
    const namespace = call.target ? qualifiedName(call.target, scope) : undefined;
    if (namespace !== undefined) {
      if (!overloadsOf(`${namespace}.${fn}`)) {
        for (const a of call.args) check(a, scope);
        return UNKNOWN;
      }
      fn = `${namespace}.${fn}`;
    }
    if (fn === OPTIONAL_LIST || fn === OPTIONAL_MAP) {
      // `[a, ?b]` and `{k: v, ?k2: o}`, rewritten by optional-syntax.ts into lists of the
      // elements (keys, values) and their flags: the literal check unwraps the optional ones.
      const lists = call.args.map((a) => (a.exprKind.case === "listExpr" ? a.exprKind.value.elements : []));
      const flags = lists[lists.length - 1]!.map(
        (f) => f.exprKind.case === "constExpr" && f.exprKind.value.constantKind.value === true,
      );
      const unwrap = (t: CelType, i: number) =>
        flags[i] && t.kind === "opaque" && t.name === "optional_type" ? t.params[0]! : flags[i] ? UNKNOWN : t;
      const elements = lists.slice(0, -1);
      const types = elements.map((es) => es.map((x) => check(x, scope)));
      if (fn === OPTIONAL_LIST) mixed(elements[0]!, types[0]!.map(unwrap));
      else {
        mixed(elements[0]!, types[0]!);
        mixed(elements[1]!, types[1]!.map(unwrap));
      }
      return UNKNOWN;
    }
    const target = call.target && namespace === undefined ? check(call.target, scope) : undefined;
    if (fn === "format") inFormat++;
    const args = call.args.map((a) => check(a, scope));
    if (fn === "format") inFormat--;
    if (fn === OPTIONAL_SELECT) {
      const field = call.args[1]?.exprKind;
      const name = field?.case === "constExpr" ? field.value.constantKind.value : undefined;
      if (typeof name !== "string") return UNKNOWN;
      const operand = args[0]!;
      const base =
        operand.kind === "opaque" && operand.name === "optional_type" ? operand.params[0]! : operand;
      const t = selectField(e, base, name);
      return t.kind === "unknown" ? UNKNOWN : optionalOf(t);
    }
    if (fn === OPTIONAL_INDEX) return UNKNOWN;
    const overloads = overloadsOf(fn);
    if (!overloads) return UNKNOWN;
    const actual = target ? [target, ...args] : args;
    const results: CelType[] = [];
    for (const o of overloads) {
      if (o.member !== (target !== undefined) || o.args.length !== actual.length) continue;
      const result = applied(o, actual);
      if (result) results.push(result);
    }
    if (results.length === 0) {
      if (actual.some(isUncertain)) return UNKNOWN;
      const printed = target
        ? `${formatType(target)}.(${args.map(formatType).join(", ")})`
        : `(${args.map(formatType).join(", ")})`;
      report(offsetOf(e, fn), `found no matching overload for '${fn}' applied to '${printed}'`);
      return UNKNOWN;
    }
    const [first, ...rest] = results;
    if (rest.every((r) => sameType(r, first!))) return first!;
    // cel-go's result when several overloads match with different results.
    return actual.some(isUncertain) ? UNKNOWN : DYN;
  };

  /** The name `a.b` stands for when it is a namespace rather than a value. */
  const qualifiedName = (e: Expr, scope: ReadonlyMap<string, CelType>): string | undefined => {
    const k = e.exprKind;
    if (k.case === "identExpr") {
      const name = k.value.name;
      return scope.has(name) || variables.has(name) || name in TYPE_NAMES ? undefined : name;
    }
    if (k.case === "selectExpr" && !k.value.testOnly && k.value.operand) {
      const operand = qualifiedName(k.value.operand, scope);
      return operand === undefined ? undefined : `${operand}.${k.value.field}`;
    }
    return undefined;
  };

  const type = check(parsed.expr, new Map());
  const found = issues.length > 0 ? issues : literalIssues;
  found.sort((a, b) => a.offset - b.offset);
  return { type, errors: found.map((i) => i.text) };
}

/**
 * The result of overload `o` on arguments of types `actual`, or undefined when they do not fit.
 * Type parameters bind to the first concrete type they meet; dyn and unknown fit anything.
 */
function applied(o: Overload, actual: readonly CelType[]): CelType | undefined {
  const bindings = new Map<string, CelType>();
  for (let i = 0; i < actual.length; i++) {
    if (!assignable(o.args[i]!, actual[i]!, bindings)) return undefined;
  }
  return substitute(o.result, bindings);
}

/** Whether a value of type `t` may be passed where `want` is declared (cel-go's isAssignable). */
function assignable(want: CelType, t: CelType, bindings: Map<string, CelType>): boolean {
  if (want.kind === "param" && t.kind !== "unknown") {
    const bound = bindings.get(want.name);
    if (bound === undefined || bound.kind === "unknown") {
      bindings.set(want.name, t);
      return true;
    }
    if (bound.kind === "dyn") return true;
    // cel-go widens a bound parameter to the most general of its types: dyn wins.
    if (t.kind === "dyn") {
      bindings.set(want.name, DYN);
      return true;
    }
    if (!assignable(bound, t, bindings)) return false;
    // `[]` then `[x]`: the free element type takes the concrete one.
    if (hasFree(bound) && !hasFree(t) && !isUncertain(t)) bindings.set(want.name, t);
    return true;
  }
  if (t.kind === "unknown" || t.kind === "dyn" || t.kind === "free" || t.kind === "param") return true;
  if (want.kind === "dyn" || want.kind === "free" || want.kind === "unknown" || want.kind === "param")
    return true;
  // null fits what cel-go's legacy checker let hold null, and only that.
  if (want === NULL || t === NULL) return isNullable(want === NULL ? t : want);
  if (want.kind !== t.kind) return false;
  switch (want.kind) {
    case "prim":
    case "object":
      return want.name === (t as { name: string }).name;
    case "list":
      return assignable(want.elem, (t as { elem: CelType }).elem, bindings);
    case "map": {
      const m = t as { key: CelType; value: CelType };
      return assignable(want.key, m.key, bindings) && assignable(want.value, m.value, bindings);
    }
    case "opaque": {
      const o = t as { name: string; params: CelType[] };
      return (
        want.name === o.name &&
        want.params.length === o.params.length &&
        want.params.every((p, i) => assignable(p, o.params[i]!, bindings))
      );
    }
    default:
      return true;
  }
}

/** `t` with its type parameters replaced by what they bound to (unbound: unknown). */
function substitute(t: CelType, bindings: ReadonlyMap<string, CelType>): CelType {
  switch (t.kind) {
    case "param":
      return bindings.get(t.name) ?? UNKNOWN;
    case "list":
      return listOf(substitute(t.elem, bindings));
    case "map":
      return mapOf(substitute(t.key, bindings), substitute(t.value, bindings));
    case "opaque":
      return { ...t, params: t.params.map((p) => substitute(p, bindings)) };
    default:
      return t;
  }
}

/** The element type of a literal's values: theirs when all agree, free when none, unknown otherwise. */
function joined(types: readonly CelType[]): CelType {
  const [first, ...rest] = types;
  if (first === undefined) return FREE;
  return rest.every((t) => sameType(t, first)) ? first : UNKNOWN;
}

/** An accumulator's type once the loop step says more than its initial value (`[]` then `[x]`). */
function refined(init: CelType, step: CelType): CelType {
  return hasFree(init) && !hasFree(step) && !isUncertain(step) && step.kind === init.kind ? step : init;
}

/** A type the checker is sure of: not unknown, dyn or a type variable, anywhere in it. */
function definite(t: CelType): boolean {
  return !isUncertain(t) && !hasFree(t) && t.kind !== "dyn" && t.kind !== "param";
}
