// Type checking of a ValidatingAdmissionPolicy's expressions against the kinds it matches, as
// kube's policy status controller does it (validating/typechecking.go) and writes the result to
// `status.typeChecking`: each validation's expression and messageExpression is checked once per
// kind its matchConstraints name exactly (no wildcards, no subresources, at most 10 kinds, in
// group, version, kind order), with `object` and `oldObject` of that kind's schema and `params`
// of the paramKind's. Warnings only: a policy with them is stored and enforced all the same.
//
// What is checked is what a reader trips over most, in cel-go's words: a select of a field the
// schema does not declare (`undefined field 'replicaz'`) and a comparison of a field with a
// literal of another type (`found no matching overload for '_==_' applied to '(int, string)'`),
// and a string method called on a field of another type.
// cel-go's checker finds more (a full type inference); @bufbuild/cel has none for JSON schemas.
import { isObject, type Schema, SchemaResolver } from "../schema/schema-types.js";
import { celGoOffset, childrenOf, type Expr, type Parsed } from "./ast.js";
import { parseCel } from "./optional-syntax.js";
import { located } from "./references.js";

/** The schemas of the variables an expression sees (undefined: dynamic). */
export interface TypeEnvironment {
  object: Schema;
  params?: Schema;
  /** The policy's variable names (`variables.<name>`). */
  variables: readonly string[];
}

/** A schema reached by selects: with the resolver of the root it came from. */
interface Typed {
  schema: Schema;
  resolver: SchemaResolver;
}

/** A CEL type name of a scalar schema, for overload errors; undefined when dynamic or not scalar. */
function scalarType(t: Typed | undefined): string | undefined {
  if (!t || t.schema["x-kubernetes-int-or-string"] || t.schema.nullable) return undefined;
  switch (t.schema.type) {
    case "string":
      // kube's declared types: a date-time string is a timestamp, a duration a duration.
      if (t.schema.format === "date-time") return "google.protobuf.Timestamp";
      if (t.schema.format === "duration") return "google.protobuf.Duration";
      return "string";
    case "integer":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    default:
      return undefined;
  }
}

function literalType(e: Expr): string | undefined {
  if (e.exprKind.case !== "constExpr") return undefined;
  switch (e.exprKind.value.constantKind.case) {
    case "stringValue":
      return "string";
    case "int64Value":
      return "int";
    case "uint64Value":
      return "uint";
    case "doubleValue":
      return "double";
    case "boolValue":
      return "bool";
    case "bytesValue":
      return "bytes";
    default:
      return undefined;
  }
}

/** Methods CEL declares on strings only (the standard ones and the strings extension's). */
const STRING_METHODS = new Set([
  "startsWith",
  "endsWith",
  "contains",
  "matches",
  "lowerAscii",
  "upperAscii",
  "trim",
  "split",
  "replace",
  "substring",
  "charAt",
  "indexOf",
  "lastIndexOf",
]);
const EQUALITY = new Set(["_==_", "_!=_"]);
const ORDERING = new Set(["_<_", "_<=_", "_>_", "_>=_"]);
const NUMERIC = new Set(["int", "uint", "double"]);
const OPERATOR_TEXT: Record<string, string> = {
  "_==_": "==",
  "_!=_": "!=",
  "_<_": "<",
  "_<=_": "<=",
  "_>_": ">",
  "_>=_": ">=",
};

/**
 * cel-go's issues with `expression` under `env`, as its checker prints them ("ERROR: <input>:…"
 * blocks joined by newlines); undefined when there are none (or it does not parse: that was
 * refused when the policy was written).
 */
export function typeCheckIssues(expression: string, env: TypeEnvironment): string | undefined {
  let parsed: Parsed;
  try {
    parsed = parseCel(expression);
  } catch {
    return undefined;
  }
  const positions = parsed.sourceInfo?.positions ?? {};
  const issues: { offset: number; text: string }[] = [];
  const issue = (offset: number | undefined, message: string) =>
    issues.push({ offset: offset ?? 0, text: `ERROR: ${located(expression, offset, message)}` });

  const roots = new Map<string, Typed | undefined>([
    ["object", typed(env.object)],
    ["oldObject", typed(env.object)],
  ]);
  if (env.params) roots.set("params", typed(env.params));
  const variables: Schema = {
    type: "object",
    properties: Object.fromEntries(env.variables.map((v) => [v, {}])),
  };
  roots.set("variables", typed(variables));

  /** The schema of `e` when it is a root, a comprehension variable or selects of them. */
  const typeOf = (e: Expr | undefined, scope: ReadonlyMap<string, Typed | undefined>): Typed | undefined => {
    if (!e) return undefined;
    const k = e.exprKind;
    if (k.case === "identExpr")
      return scope.has(k.value.name) ? scope.get(k.value.name) : roots.get(k.value.name);
    if (k.case !== "selectExpr" || !k.value.operand) return undefined;
    const operand = typeOf(k.value.operand, scope);
    if (!operand) return undefined;
    const { schema, resolver } = operand;
    if (schema["x-kubernetes-preserve-unknown-fields"] === true && !schema.properties?.[k.value.field]) {
      return undefined;
    }
    const property = schema.properties?.[k.value.field];
    if (property) return { schema: resolver.resolve(property) ?? {}, resolver };
    if (typeof schema.additionalProperties === "object") {
      return { schema: resolver.resolve(schema.additionalProperties) ?? {}, resolver };
    }
    if (schema.additionalProperties === true || !isTypedObject(schema)) return undefined;
    issue(celGoOffset(parsed, e), `undefined field '${k.value.field}'`);
    return undefined;
  };

  const visit = (e: Expr | undefined, scope: ReadonlyMap<string, Typed | undefined>): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case "selectExpr":
        typeOf(e, scope);
        return;
      case "callExpr": {
        const { function: fn, target, args } = k.value;
        if ((EQUALITY.has(fn) || ORDERING.has(fn)) && args.length === 2) {
          const [a, b] = [args[0]!, args[1]!];
          const ta = scalarType(typeOf(a, scope)) ?? literalType(a);
          const tb = scalarType(typeOf(b, scope)) ?? literalType(b);
          const numeric = NUMERIC.has(ta ?? "") && NUMERIC.has(tb ?? "");
          if (ta && tb && ta !== tb && !(ORDERING.has(fn) && numeric)) {
            issue(
              operatorOffset(expression, positions[String(e.id)], OPERATOR_TEXT[fn]!),
              `found no matching overload for '${fn}' applied to '(${ta}, ${tb})'`,
            );
          }
          for (const x of args) if (x.exprKind.case !== "selectExpr") visit(x, scope);
          return;
        }
        // A string method called on a field that is no string (`object.spec.replicas.startsWith('1')`).
        if (target && STRING_METHODS.has(fn)) {
          const receiver = scalarType(typeOf(target, scope));
          const argTypes = args.map((a) => scalarType(typeOf(a, scope)) ?? literalType(a));
          if (receiver && receiver !== "string" && argTypes.every((t) => t !== undefined)) {
            issue(
              celGoOffset(parsed, e),
              `found no matching overload for '${fn}' applied to '${receiver}.(${argTypes.join(", ")})'`,
            );
          }
          if (target.exprKind.case !== "selectExpr") visit(target, scope);
          for (const a of args) visit(a, scope);
          return;
        }
        visit(target, scope);
        for (const a of args) visit(a, scope);
        return;
      }
      case "comprehensionExpr": {
        const c = k.value;
        visit(c.iterRange, scope);
        visit(c.accuInit, scope);
        const range = typeOf(c.iterRange, scope);
        const inner = new Map(scope);
        // Two variables (kube 1.32+): an index or key, then the value, a list's element read as one.
        const isList = range?.schema.type === "array";
        inner.set(c.iterVar, range && (!c.iterVar2 || !isList) ? elementOf(range) : undefined);
        if (c.iterVar2) inner.set(c.iterVar2, range && isList ? elementOf(range) : undefined);
        inner.set(c.accuVar, undefined);
        visit(c.loopCondition, inner);
        visit(c.loopStep, inner);
        visit(c.result, new Map([...scope, [c.accuVar, undefined]]));
        return;
      }
      default:
        for (const x of childrenOf(e)) visit(x, scope);
        return;
    }
  };
  visit(parsed.expr, new Map());
  if (issues.length === 0) return undefined;
  return issues
    .sort((a, b) => a.offset - b.offset)
    .map((i) => i.text)
    .join("\n");
}

function typed(schema: Schema): Typed {
  const resolver = new SchemaResolver(schema);
  return { schema: resolver.resolve(schema) ?? {}, resolver };
}

/** An object schema whose fields CEL knows: properties declared, nothing else allowed. */
function isTypedObject(schema: Schema): boolean {
  return schema.type === "object" || (schema.type === undefined && isObject(schema.properties));
}

/** What a comprehension over `range` binds: a list's items, a map's keys (strings). */
function elementOf(range: Typed): Typed | undefined {
  const items = range.schema.items;
  if (range.schema.type === "array" && items && !Array.isArray(items)) {
    return { schema: range.resolver.resolve(items) ?? {}, resolver: range.resolver };
  }
  if (range.schema.type === "object") return { schema: { type: "string" }, resolver: range.resolver };
  return undefined;
}

/** Where cel-go places a binary operator: at the operator itself (this parser, before it). */
function operatorOffset(source: string, from: number | undefined, operator: string): number | undefined {
  if (from === undefined) return undefined;
  const at = source.indexOf(operator, from);
  return at < 0 ? from : at;
}
