// CRD validation rules (`x-kubernetes-validations`) as kube-apiserver evaluates them, on
// @bufbuild/cel. When a CRD is written each rule is compiled and type-checked as cel-go checks it
// (crd-rule-types.ts): a syntax error, a name nothing declares, a field the schema does not
// declare or a call of no matching overload is kube's "compilation failed" at the rule's path.
// When a custom object is written each rule runs at every node of the object its schema level
// describes (list items and map values each on their own), with `self` the node and, for
// transition rules, `oldSelf` the same node of the old object (only on update, only where it
// existed). A false rule is kube's Invalid cause at the node's path, worded as kube words it.
//
// Values are CEL's by the schema: integers are CEL ints, numbers doubles, objects maps.
// A failed rule reports its `messageExpression`'s string when that evaluates cleanly (else its
// message, else the rule), as a `reason` (Invalid, Forbidden, Required, Duplicate) at its
// `fieldPath` (relative to the rule's node). Property names are escaped as kube escapes them
// (escaping.ts). The Kubernetes libraries are in kubernetes-libs.ts, quantity.ts and net.ts.
// Optional values without the `.?` syntax (optional.ts), two-variable comprehensions (two-var.ts).
// Rules too dear on the largest object are refused with the CRD (cost.ts); where their estimate
// could reach kube's runtime limits they run metered and are cancelled as kube cancels them
// (runtime-cost.ts).
import { type CelValue, celEnv, isCelError, plan } from "@bufbuild/cel";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { type FieldError, GoSyntax, OMIT_VALUE, toStatusCause } from "../schema/field-error.js";
import { stringifyJson } from "../object/deep-json.js";
import { deepEqual } from "../object/meta.js";
import { trampoline, type Walk } from "../object/trampoline.js";
import { schemaHasRules } from "../schema/has-rules.js";
import { isObject, type Schema } from "../schema/schema-types.js";
import { stringsLibrary } from "./strings-ext.js";
import { costMessage, estimateCost, maxCardinality, PER_CRD_LIMIT, PER_RULE_LIMIT } from "./cost.js";
import { type Expr, type Parsed, walkExpr } from "./ast.js";
import { escapeProperty, isReservedWord } from "./escaping.js";
import type { CelType } from "./checker-types.js";
import { type RuleNode, ruleTypeError, ruleTypes } from "./crd-rule-types.js";
import { formattedValue } from "./format-values.js";
import { celErrorText, kubernetesLibraries } from "./kubernetes-libs.js";
import { optionalOf } from "./optional.js";
import { parseCel } from "./optional-syntax.js";
import { lowerTwoVar } from "./two-var.js";
import { undeclaredReference } from "./references.js";
import { PER_CALL_LIMIT, type Program, planMetered, RUNTIME_BUDGET, runMetered } from "./runtime-cost.js";

interface Rule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The reasons a rule may give (kube's supportedValidationReason). */
const REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];
/** kube's MaxEvaluatedMessageExpressionSizeBytes. */
const MAX_MESSAGE_BYTES = 5 * 1024;
const NEWLINES = /[\n\r]+/;

interface Compiled {
  program?: Program;
  /** The program counting its runtime cost (runtime-cost.ts), planned when first needed. */
  metered?: () => Program;
  /**
   * The estimated cost of one evaluation (cost.ts), when it compiles, as if the rule's node were
   * the schema's root; estimated when first asked (ruleCompileErrors estimates with its own node).
   */
  cost?: () => number;
  /** The compiler's words, when the rule does not compile. */
  error?: string;
  /** Whether the rule names oldSelf: a transition rule. */
  transition: boolean;
  /** The parsed rule, for the type check when the CRD is written (parsing is the dear part). */
  parsed?: Parsed;
}

const env = celEnv({ funcs: [...stringsLibrary, ...kubernetesLibraries] });
/** What a CRD's rule may name besides functions and its comprehensions' variables. */
const RULE_VARIABLES = new Set(["self", "oldSelf"]);

/** Compiled rules by schema node and rule text: schemas are frozen per served CRD spec. */
const cache = new WeakMap<Schema, Map<string, Compiled>>();

function rulesOf(schema: Schema): Rule[] {
  const rules = (schema as Record<string, unknown>)["x-kubernetes-validations"];
  return Array.isArray(rules) ? (rules as Rule[]) : [];
}

/** Whether `expr` names the variable `name` anywhere. */
function usesIdent(expr: Expr, name: string): boolean {
  let found = false;
  walkExpr(expr, (e) => {
    if (e.exprKind.case === "identExpr" && e.exprKind.value.name === name) found = true;
  });
  return found;
}

function compile(schema: Schema, rule: string): Compiled {
  let byRule = cache.get(schema);
  if (!byRule) {
    byRule = new Map();
    cache.set(schema, byRule);
  }
  let c = byRule.get(rule);
  if (c) return c;
  try {
    const parsed = parseCel(rule);
    const error =
      // Fields and types are checked when the CRD is written (crd-rule-types.ts).
      undeclaredReference(parsed, rule, env, RULE_VARIABLES);
    if (error) c = { error, transition: false };
    else {
      let metered: Program | undefined;
      let cost: number | undefined;
      c = {
        program: plan(env, { ...parsed, expr: lowerTwoVar(parsed.expr) }) as Program,
        metered: () => {
          metered ??= planMetered(env, parsed);
          return metered;
        },
        cost: () => {
          const types = ruleTypes({ schema, root: true, optionalOldSelf: false }, parsed);
          cost ??= estimateCost(parsed.expr, schema, true, types).max;
          return cost;
        },
        transition: usesIdent(parsed.expr, "oldSelf"),
        parsed,
      };
    }
  } catch (e) {
    c = { error: (e as Error).message, transition: false };
  }
  byRule.set(rule, c);
  return c;
}

/**
 * A rule as kube (1.37) prints it in a CRD's compile errors: Go's json.Marshal of its internal
 * ValidationRule (field names as keys, unset pointers null, <, > and & escaped as Go escapes them).
 */
function ruleText(r: Rule): string {
  const json = JSON.stringify({
    Rule: r.rule ?? "",
    Message: r.message ?? "",
    MessageExpression: r.messageExpression ?? "",
    Reason: r.reason ?? null,
    FieldPath: r.fieldPath ?? "",
    OptionalOldSelf: r.optionalOldSelf ?? null,
  });
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A rule's `fieldPath` as kube normalizes it (`.a.b`, `['c.d']`, map keys as `[k]`), or undefined
 * when it names no field of `schema` (cel.ValidFieldPath).
 */
export function normalizeFieldPath(path: string, schema: Schema): string | undefined {
  let out = "";
  let at: Schema | undefined = schema;
  let i = 0;
  const step = (name: string): boolean => {
    if (!at) return false;
    if (at.properties) {
      at = at.properties[name];
      if (!at) return false;
      out = out ? `${out}.${name}` : name;
      return true;
    }
    if (typeof at.additionalProperties === "object") {
      at = at.additionalProperties;
      out = `${out}[${name}]`;
      return true;
    }
    return false;
  };
  while (i < path.length) {
    if (path[i] === ".") {
      let j = i + 1;
      while (j < path.length && !".[]".includes(path[j]!)) j++;
      if (!step(path.slice(i + 1, j))) return undefined;
      i = j;
    } else if (path[i] === "[") {
      if (path[i + 1] !== "'") return undefined;
      let j = i + 2;
      let name = "";
      for (; j < path.length && path[j] !== "'"; j++) {
        if (path[j] === "\\") {
          const esc = path[++j];
          const map: Record<string, string> = { n: "\n", t: "\t", r: "\r", "'": "'", "\\": "\\" };
          if (esc === undefined || map[esc] === undefined) return undefined;
          name += map[esc];
        } else name += path[j];
      }
      if (path[j] !== "'" || path[j + 1] !== "]") return undefined;
      if (!step(name)) return undefined;
      i = j + 2;
    } else return undefined;
  }
  return out;
}

/** Each rule of `schema` (at `path`, kube's schema path) that does not compile, as kube reports it. */
export function ruleCompileErrors(schema: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const total = new TotalCost();
  /** A rule's cost times how often its node can occur (undefined `cardinality`: under a collection of no bound). */
  const weigh = (
    cost: number | undefined,
    s: Schema,
    cardinality: number | undefined,
    field: string,
    what: string,
  ) => {
    if (cost === undefined) return;
    const weighed = Math.min(2 ** 64, cost * (cardinality ?? maxCardinality(s)));
    if (weighed > PER_RULE_LIMIT) {
      errs.push({ type: "FieldValueForbidden", field, detail: costMessage(what, weighed, PER_RULE_LIMIT) });
    }
    total.observe(field, weighed);
  };
  const visit = (s: Schema, at: string, cardinality: number | undefined) => {
    const rules = rulesOf(s);
    // kube skips compiling every rule of a node when a check of any rule's other fields failed
    // (1.37; earlier releases skipped only the rule at fault).
    const schemaErrors = rules.flatMap((r, i) =>
      ruleFieldErrors(r, s, `${at}.x-kubernetes-validations[${i}]`),
    );
    if (schemaErrors.length > 0) {
      errs.push(...schemaErrors);
      return;
    }
    rules.forEach((r, i) => {
      const base = `${at}.x-kubernetes-validations[${i}]`;
      const field = `${base}.rule`;
      const rule = r.rule as string;
      const c = compile(s, rule);
      const node = {
        schema: s,
        root: s === schema || s["x-kubernetes-embedded-resource"] === true,
        optionalOldSelf: r.optionalOldSelf === true,
      };
      const types = new Map<Expr, CelType>();
      const ruleError = c.error
        ? `compilation failed: ERROR: ${c.error}`
        : ruleTypeError(node, rule, false, c.parsed, types);
      if (!ruleError) weigh(costOf(c, node, types), s, cardinality, field, "estimated rule cost");
      if (ruleError) {
        errs.push({ type: "FieldValueInvalid", field, value: new GoSyntax(ruleText(r)), detail: ruleError });
      }
      // kube compiles the messageExpression only after the rule compiled.
      if (!ruleError && typeof r.messageExpression === "string" && r.messageExpression.trim() !== "") {
        const m = compile(s, r.messageExpression);
        const messageTypes = new Map<Expr, CelType>();
        const messageError = m.error
          ? `messageExpression compilation failed: ERROR: ${m.error}`
          : ruleTypeError(node, r.messageExpression, true, m.parsed, messageTypes);
        if (!messageError) {
          const cost = costOf(m, node, messageTypes);
          weigh(cost, s, cardinality, `${base}.messageExpression`, "estimated messageExpression cost");
        }
        if (messageError) {
          errs.push({
            type: "FieldValueInvalid",
            field: `${base}.messageExpression`,
            value: new GoSyntax(ruleText(r)),
            detail: messageError,
          });
        }
      }
      // kube knows a rule uses oldSelf only once it compiled and type-checked.
      if ((ruleError !== undefined || !c.transition) && r.optionalOldSelf !== undefined) {
        errs.push({
          type: "FieldValueInvalid",
          field: `${base}.optionalOldSelf`,
          value: r.optionalOldSelf,
          detail: "may not be set if oldSelf is not used in rule",
        });
      }
    });
  };
  eachNode(schema, path, visit);
  if (total.total > PER_CRD_LIMIT) {
    for (const { field } of total.mostExpensive) {
      errs.push({
        type: "FieldValueForbidden",
        field,
        detail: "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
      });
    }
    errs.push({
      type: "FieldValueForbidden",
      field: path,
      detail: costMessage(
        "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
        total.total,
        PER_CRD_LIMIT,
      ),
    });
  }
  return errs;
}

/** A compiled expression's estimated cost with the types the CRD's check found for its node. */
function costOf(c: Compiled, node: RuleNode, types: ReadonlyMap<Expr, CelType>): number | undefined {
  return c.parsed ? estimateCost(c.parsed.expr, node.schema, node.root, types).max : undefined;
}

/**
 * Each node of `schema` (at `path`, kube's schema path) with how many of it an object can hold
 * (kube's MaxCardinality, from its collections' bounds; undefined under a collection of no bound).
 */
function eachNode(
  schema: Schema,
  path: string,
  visit: (s: Schema, at: string, cardinality: number | undefined) => void,
): void {
  // In the order of a recursive walk, with a stack: a schema may nest 10 000 levels.
  type Node = [s: Schema | undefined, at: string, cardinality: number | undefined];
  const stack: Node[] = [[schema, path, 1]];
  while (stack.length > 0) {
    const [s, at, cardinality] = stack.pop()!;
    if (!s || typeof s !== "object") continue;
    visit(s, at, cardinality);
    const within = (bound: unknown) =>
      cardinality !== undefined && typeof bound === "number" ? cardinality * bound : undefined;
    const below: Node[] = [];
    for (const [k, v] of Object.entries(s.properties ?? {}))
      below.push([v, `${at}.properties[${k}]`, cardinality]);
    if (s.items && !Array.isArray(s.items)) below.push([s.items, `${at}.items`, within(s.maxItems)]);
    if (typeof s.additionalProperties === "object")
      below.push([s.additionalProperties, `${at}.additionalProperties`, within(s.maxProperties)]);
    for (let i = below.length - 1; i >= 0; i--) stack.push(below[i]);
  }
}

/**
 * Whether the rules of `schema` could reach kube's runtime limits: one rule estimated past the
 * per-call limit, or all of them, weighed by how often their nodes occur, past the budget. Only
 * then are rules run metered (slower); the estimate bounds what they can cost.
 */
function meteringNeeded(schema: Schema): boolean {
  let needed = metering.get(schema);
  if (needed === undefined) {
    let total = 0;
    eachNode(schema, "", (s, _at, cardinality) => {
      for (const r of rulesOf(s)) {
        if (typeof r.rule !== "string") continue;
        const cost = compile(s, r.rule).cost?.() ?? 0;
        if (cost > PER_CALL_LIMIT) total = Number.POSITIVE_INFINITY;
        total += cost * (cardinality ?? maxCardinality(s));
      }
    });
    needed = total > RUNTIME_BUDGET;
    metering.set(schema, needed);
  }
  return needed;
}

const metering = new WeakMap<Schema, boolean>();

/** kube's TotalCost: the sum of a CRD's weighed rule costs, and the (up to 4) dearest of them. */
class TotalCost {
  total = 0;
  mostExpensive: { field: string; cost: number }[] = [];

  observe(field: string, cost: number): void {
    this.total = Math.min(2 ** 64, this.total + cost);
    // Rules under 1% of the CRD's limit are not named.
    if (cost < PER_CRD_LIMIT / 100) return;
    this.mostExpensive.push({ field, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    this.mostExpensive.length = Math.min(this.mostExpensive.length, 4);
  }
}

/** The checks kube makes of a rule's other fields before compiling it (validation.go). */
function ruleFieldErrors(r: Rule, s: Schema, base: string): FieldError[] {
  const errs: FieldError[] = [];
  const message = typeof r.message === "string" ? r.message : "";
  const trimmedMessage = message.trim();
  if (typeof r.rule !== "string" || r.rule.trim() === "") {
    errs.push({ type: "FieldValueRequired", field: `${base}.rule`, detail: "rule is not specified" });
  } else if (message.length > 0 && trimmedMessage === "") {
    errs.push({
      type: "FieldValueInvalid",
      field: `${base}.message`,
      value: message,
      detail: "must be non-empty if specified",
    });
  } else if (NEWLINES.test(trimmedMessage)) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${base}.message`,
      value: message,
      detail: "must not contain line breaks",
    });
  } else if (NEWLINES.test((r.rule ?? "").trim()) && trimmedMessage === "") {
    errs.push({
      type: "FieldValueRequired",
      field: `${base}.message`,
      detail: "message must be specified if rule contains line breaks",
    });
  }
  if (
    typeof r.messageExpression === "string" &&
    r.messageExpression.length > 0 &&
    r.messageExpression.trim() === ""
  ) {
    errs.push({
      type: "FieldValueRequired",
      field: `${base}.messageExpression`,
      detail: "messageExpression must be non-empty if specified",
    });
  }
  if (r.reason !== undefined && !REASONS.includes(r.reason)) {
    errs.push({
      type: "FieldValueNotSupported",
      field: `${base}.reason`,
      value: r.reason,
      detail: `supported values: ${REASONS.map((x) => JSON.stringify(x)).join(", ")}`,
    });
  }
  const fieldPath = typeof r.fieldPath === "string" ? r.fieldPath : "";
  if (fieldPath.length > 0 && fieldPath.trim() === "") {
    errs.push({
      type: "FieldValueInvalid",
      field: `${base}.fieldPath`,
      value: fieldPath,
      detail: "must be non-empty if specified",
    });
  }
  if (NEWLINES.test(fieldPath)) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${base}.fieldPath`,
      value: fieldPath,
      detail: "must not contain line breaks",
    });
  }
  if (fieldPath.length > 0 && normalizeFieldPath(fieldPath, s) === undefined) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${base}.fieldPath`,
      value: fieldPath,
      detail: "must be a valid path",
    });
  }
  return errs;
}

/** A failed rule's detail: its messageExpression's clean string, else its message, else the rule. */
function failureDetail(r: Rule & { rule: string }, s: Schema, ctx: Record<string, unknown>): string {
  if (typeof r.messageExpression === "string" && r.messageExpression.trim() !== "") {
    const m = compile(s, r.messageExpression);
    const out = m.program ? m.program(ctx) : undefined;
    if (typeof out === "string") {
      const trimmed = out.trim();
      // kube logs a bad message (too long, multi-line, empty) and falls back, as here.
      if (trimmed !== "" && Buffer.byteLength(trimmed) <= MAX_MESSAGE_BYTES && !/\n/.test(trimmed))
        return trimmed;
    }
  }
  const message = (r.message ?? "").trim();
  return message || `failed rule: ${r.rule.trim()}`;
}

/** The field error a failed rule gives, as its `reason` asks (kube's fieldErrorForReason). */
function failureCause(
  reason: string | undefined,
  field: string,
  value: unknown,
  detail: string,
): StatusCause {
  switch (reason) {
    case "FieldValueForbidden":
      return toStatusCause({ type: "FieldValueForbidden", field, detail });
    case "FieldValueRequired":
      return toStatusCause({ type: "FieldValueRequired", field, detail });
    case "FieldValueDuplicate":
      return toStatusCause({ type: "FieldValueDuplicate", field, value });
    default:
      return toStatusCause({ type: "FieldValueInvalid", field, value, detail });
  }
}

/** A JSON value as CEL sees it under `schema`: integers as ints, objects as maps. */
function celValue(value: unknown, schema: Schema | undefined): unknown {
  return typeof value === "object" && value !== null
    ? trampoline(celValueWalk(value, schema))
    : celScalar(value, schema);
}

function celScalar(value: unknown, schema: Schema | undefined): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") {
    if (schema?.type === "number") return value;
    return schema?.type === "integer" || Number.isInteger(value) ? BigInt(Math.trunc(value)) : value;
  }
  if (typeof value === "string" && schema?.format !== undefined) return formattedValue(value, schema.format);
  return value;
}

/**
 * The walk converting `v` when it is a list or an object; undefined for a scalar. A function, not
 * a closure made per node: see invalidCause.
 */
function walkOf(v: unknown, s: Schema | undefined): Walk<unknown> | undefined {
  return typeof v === "object" && v !== null ? celValueWalk(v, s) : undefined;
}

/** celValue of a list or an object, recursing through a trampoline: it may nest 10 000 levels. */
function* celValueWalk(value: unknown, schema: Schema | undefined): Walk<unknown> {
  if (Array.isArray(value)) {
    const items = schema?.items && !Array.isArray(schema.items) ? schema.items : undefined;
    const out: unknown[] = [];
    for (const v of value) {
      const walk = walkOf(v, items);
      out.push(walk ? yield walk : celScalar(v, items));
    }
    return out;
  }
  if (!isObject(value)) return celScalar(value, schema);
  const m = new Map<string, unknown>();
  // An object with properties is a CEL object: its field names escaped, unnameable ones unseen.
  const properties =
    schema?.properties && Object.keys(schema.properties).length > 0 ? schema.properties : undefined;
  for (const [k, v] of Object.entries(value)) {
    const name = properties ? escapeProperty(k) : k;
    if (name === undefined) continue;
    const s =
      properties?.[k] ??
      (typeof schema?.additionalProperties === "object" ? schema.additionalProperties : undefined);
    const walk = walkOf(v, s);
    const converted = walk ? yield walk : celScalar(v, s);
    m.set(name, converted);
    // kube (1.31+) reads `self.namespace` as `self.__namespace__`.
    if (properties && name !== k && isReservedWord(k)) m.set(k, converted);
  }
  return m;
}

/**
 * The cause of a rule kube could not evaluate at `field`. A function, not a closure made per rule:
 * tsx (the tests' and benches' loader) names each closure bound to a name with a defineProperty
 * call, ~230 ns; the shipped bundle does not.
 */
function invalidCause(schema: Schema, value: unknown, field: string, detail: string): StatusCause {
  return {
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(typeName(schema, value))}: ${detail}`,
    field,
  };
}

/**
 * What kube prints as the value of a rule that failed: nothing for an object or a list, the value
 * itself for a scalar (kube ≤ 1.32 printed the type name, `Invalid value: "object": ...`).
 */
function failedValue(schema: Schema, value: unknown): unknown {
  const type = typeName(schema, value);
  return type === "object" || type === "array" ? OMIT_VALUE : value;
}

/** The JSON type name kube prints as the Invalid value of a rule it could not evaluate. */
function typeName(schema: Schema, value: unknown): string {
  if (typeof schema.type === "string") return schema.type;
  if (Array.isArray(value)) return "array";
  return value !== null && typeof value === "object" ? "object" : typeof value;
}

/**
 * The old item a transition rule of a list item compares with: kube correlates items only in
 * `map` lists (by their keys) and `set` lists (by value); atomic lists' items have none.
 */
function correlated(list: Schema, old: unknown[] | undefined): (item: unknown) => unknown {
  const ext = list as Record<string, unknown>;
  if (!old) return () => undefined;
  if (ext["x-kubernetes-list-type"] === "set") {
    return (item) => {
      const text = stringifyJson(item);
      return old.find((o) => stringifyJson(o) === text);
    };
  }
  const keys = ext["x-kubernetes-list-map-keys"];
  if (ext["x-kubernetes-list-type"] !== "map" || !Array.isArray(keys)) return () => undefined;
  const keyOf = (o: unknown) =>
    isObject(o) ? stringifyJson((keys as string[]).map((k) => o[k] ?? null)) : "";
  return (item) => old.find((o) => keyOf(o) === keyOf(item));
}

/** `fn`, called at most once. */
function once(fn: () => boolean): () => boolean {
  let v: boolean | undefined;
  return () => {
    v ??= fn();
    return v;
  };
}

/**
 * The causes of the rules `obj` breaks (`old` the object it replaces, on update). Ratcheting, as
 * kube 1.30+ does (CRDValidationRatcheting): on update, a rule without oldSelf that fails on a
 * value left as it was (the node, if kube can correlate it with its old value: by field, by a
 * map list's keys; else its nearest such ancestor) is let through, so that an object stored
 * before its CRD tightened can still be updated elsewhere. Evaluation errors are not ratcheted.
 */
export function ruleViolations(schema: Schema, obj: unknown, old: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  // What the rules may still spend on this object, when they are metered; kube stops them all
  // once one is cancelled or the budget is spent.
  let remaining = meteringNeeded(schema) ? RUNTIME_BUDGET : undefined;
  let stopped = false;
  // Recursion through a trampoline: an object may nest 10 000 levels.
  const visit = function* (
    s: Schema | undefined,
    value: unknown,
    oldValue: unknown,
    path: string,
    unchanged: () => boolean,
  ): Walk<void> {
    if (!s || value === undefined || value === null || stopped) return;
    // The node as CEL sees it, converted once for all its rules (and the old node once too).
    let self: unknown;
    let oldSelf: unknown;
    for (const r of rulesOf(s)) {
      if (typeof r.rule !== "string") continue;
      const c = compile(s, r.rule);
      if (!c.program) continue;
      // optionalOldSelf: the rule runs on create too, oldSelf an optional (none where no old value).
      const optional = c.transition && r.optionalOldSelf === true;
      if (c.transition && oldValue === undefined && !optional) continue;
      self ??= celValue(value, s);
      const ctx: Record<string, unknown> = { self };
      if (optional)
        ctx.oldSelf = oldValue === undefined ? optionalOf() : optionalOf(celValue(oldValue, s) as CelValue);
      else if (c.transition) ctx.oldSelf = oldSelf ??= celValue(oldValue, s);
      const field = path === "" ? "<nil>" : path;
      let result: unknown;
      if (remaining === undefined || !c.metered) result = c.program(ctx);
      else {
        const run = runMetered(c.metered(), ctx, PER_CALL_LIMIT);
        const name = (r.message ?? "").trim() || r.rule.trim();
        if (run.cost > remaining) {
          const detail =
            "validation failed due to running out of cost budget, no further validation rules will be run";
          causes.push(invalidCause(s, value, field, detail));
        } else if (run.exceeded) {
          const detail = `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${name}`;
          causes.push(invalidCause(s, value, field, detail));
        }
        if (run.cost > remaining || run.exceeded) {
          stopped = true;
          return;
        }
        remaining -= run.cost;
        result = run.result;
      }
      if (isCelError(result)) {
        // kube's words for an evaluation error (validation.go): an overload mismatch explained,
        // anything else "<error> evaluating rule: <message or rule>".
        const name = (r.message ?? "").trim() || r.rule.trim();
        const message = celErrorText(result.message);
        const detail = message.startsWith("no such overload")
          ? `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${name}`
          : `${message} evaluating rule: ${name}`;
        causes.push(invalidCause(s, value, field, detail));
      } else if (result !== true) {
        if (!c.transition && unchanged()) continue;
        const normalized =
          typeof r.fieldPath === "string" && r.fieldPath.trim() !== ""
            ? normalizeFieldPath(r.fieldPath, s)
            : undefined;
        const at = normalized ? (path === "" ? normalized : `${path}.${normalized}`) : field;
        const detail = failureDetail(r as Rule & { rule: string }, s, ctx);
        causes.push(failureCause(r.reason, at, failedValue(s, value), detail));
      }
    }
    // Below here only subtrees with rules are walked: the rest (metadata, most leaves) has
    // nothing to evaluate.
    if (Array.isArray(value)) {
      const items = s.items && !Array.isArray(s.items) ? s.items : undefined;
      if (!schemaHasRules(items)) return;
      const old = correlated(s, Array.isArray(oldValue) ? oldValue : undefined);
      // Only a map list's items correlate for ratcheting; others answer for their list.
      const mapList = (s as Record<string, unknown>)["x-kubernetes-list-type"] === "map";
      for (let i = 0; i < value.length; i++) {
        const oldItem = old(value[i]);
        const same = mapList && oldItem !== undefined ? once(() => deepEqual(value[i], oldItem)) : unchanged;
        yield visit(items, value[i], oldItem, `${path}[${i}]`, same);
      }
      return;
    }
    if (isObject(value)) {
      const oldMap = isObject(oldValue) ? oldValue : undefined;
      const additional = typeof s.additionalProperties === "object" ? s.additionalProperties : undefined;
      for (const [k, v] of Object.entries(value)) {
        const child = s.properties?.[k];
        const below = child ?? additional;
        if (!schemaHasRules(below)) continue;
        const oldV = oldMap && Object.hasOwn(oldMap, k) ? oldMap[k] : undefined;
        // apiVersion and kind are never ratcheted (both sides read as one version).
        const typeMeta = path === "" && (k === "apiVersion" || k === "kind");
        const same = typeMeta ? () => false : oldV !== undefined ? once(() => deepEqual(v, oldV)) : unchanged;
        if (child) yield visit(child, v, oldV, path === "" ? k : `${path}.${k}`, same);
        else yield visit(additional, v, oldV, `${path}[${k}]`, same);
      }
    }
  };
  // apiVersion and kind are never ratcheted (both sides read as one version).
  trampoline(
    visit(
      schema,
      obj,
      old,
      "",
      once(() => old !== undefined && deepEqual(obj, old)),
    ),
  );
  return causes;
}
