// Label selectors with apimachinery's grammar, validation and error messages (pkg/labels), so that
// a selector the embedded server accepts or rejects is the one kube-apiserver accepts or rejects.
import type { LabelSelector as LabelSelectorObject } from "kubernetes-types/meta/v1.js";

/** apimachinery's selection.Operator values. */
export type LabelOperator = "in" | "notin" | "=" | "==" | "!=" | "exists" | "!" | "gt" | "lt";

/** One term of a selector; `values` are sorted and distinct. */
export interface Requirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export interface LabelSelector {
  /** True when the selector restricts nothing (it matches every object). */
  readonly empty: boolean;
  /** Sorted by key, as apimachinery does, so `toString()` is deterministic. */
  readonly requirements: readonly Requirement[];
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The value `label` must have (`=`, `==`, or `in` with one value), if the selector pins it. */
  requiresExactMatch(label: string): string | undefined;
  /** The canonical text form, parseable by `parseLabelSelector`. */
  toString(): string;
}

/** A selector that failed to parse or validate; the message is apimachinery's. */
export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QNAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** apimachinery's validation.IsQualifiedName: the problems with a label key (empty when valid). */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name = parts[0];
  if (parts.length > 2) {
    return [
      `a qualified name ${QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else {
      if (prefix.length > 253) errs.push("prefix part must be no more than 253 characters");
      if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${DNS_MSG}`);
    }
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 characters");
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${QNAME_MSG}`);
  return errs;
}

/** apimachinery's validation.IsValidLabelValue: the problems with a label value (empty when valid). */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!LABEL_VALUE.test(value)) errs.push(VALUE_MSG);
  return errs;
}

// field.Invalid(...).Error() with Go's %q for strings and %#v for string slices.
function invalid(path: string, value: string | readonly string[], detail: string): string {
  const shown =
    typeof value === "string"
      ? JSON.stringify(value)
      : `[]string{${value.map((v) => JSON.stringify(v)).join(", ")}}`;
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

// labels.NewRequirement's checks; `path` is the parser's field path ("<nil>" when none, as in Go).
function requirementErrors(
  key: string,
  op: LabelOperator,
  values: readonly string[],
  path: string,
): string[] {
  const child = (name: string) => (path === "" ? name : `${path}.${name}`);
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(invalid(child("key"), key, keyErrs.join("; ")));
  const vp = child("values");
  if ((op === "in" || op === "notin") && values.length === 0) {
    errs.push(invalid(vp, values, "for 'in', 'notin' operators, values set can't be empty"));
  } else if ((op === "=" || op === "==" || op === "!=") && values.length !== 1) {
    errs.push(invalid(vp, values, "exact-match compatibility requires one single value"));
  } else if ((op === "exists" || op === "!") && values.length !== 0) {
    errs.push(invalid(vp, values, "values set must be empty for exists and does not exist"));
  } else if (op === "gt" || op === "lt") {
    if (values.length !== 1) {
      errs.push(invalid(vp, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
    }
    values.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v)) {
        errs.push(invalid(`${vp}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    });
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalid(`${vp}[${i}][${key}]`, v, valueErrs.join("; ")));
  });
  return errs;
}

// utilerrors.Aggregate's message: one error alone, several as "[a, b]" without duplicates.
function aggregate(errs: string[]): string {
  const distinct = [...new Set(errs)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(", ")}]`;
}

/** Builds a validated requirement; values are sorted and de-duplicated. */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[] = [],
): Requirement {
  const errs = requirementErrors(key, operator, values, "");
  if (errs.length > 0) throw new SelectorParseError(aggregate(errs));
  return { key, operator, values: [...new Set(values)].sort() };
}

function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case "in":
    case "=":
    case "==":
      return has && r.values.includes(labels[r.key]);
    case "notin":
    case "!=":
      return !has || !r.values.includes(labels[r.key]);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt": {
      if (!has || r.values.length !== 1 || !/^[+-]?\d+$/.test(labels[r.key])) return false;
      const have = BigInt(labels[r.key]);
      const want = BigInt(r.values[0]);
      return r.operator === "gt" ? have > want : have < want;
    }
  }
}

function requirementString(r: Requirement): string {
  const values = r.values.join(",");
  switch (r.operator) {
    case "exists":
      return r.key;
    case "!":
      return `!${r.key}`;
    case "in":
    case "notin":
      return `${r.key} ${r.operator} (${values})`;
    case "gt":
      return `${r.key}>${values}`;
    case "lt":
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

const EMPTY_LABELS: Readonly<Record<string, string>> = Object.freeze({});

class RequirementsSelector implements LabelSelector {
  readonly empty: boolean;
  readonly requirements: readonly Requirement[];
  constructor(requirements: Requirement[]) {
    // A stable sort by key, as apimachinery's parse and Add do.
    this.requirements = requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.empty = requirements.length === 0;
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const l = labels ?? EMPTY_LABELS;
    for (const r of this.requirements) if (!requirementMatches(r, l)) return false;
    return true;
  }
  requiresExactMatch(label: string): string | undefined {
    const r = this.requirements.find((x) => x.key === label);
    if (r === undefined || r.values.length !== 1) return undefined;
    return r.operator === "=" || r.operator === "==" || r.operator === "in" ? r.values[0] : undefined;
  }
  toString(): string {
    return this.requirements.map(requirementString).join(",");
  }
}

/** A selector from its requirements (validated by `newRequirement`). */
export function labelSelectorFromRequirements(requirements: readonly Requirement[]): LabelSelector {
  return new RequirementsSelector([...requirements]);
}

/** The selector that matches every object. */
export function everythingLabelSelector(): LabelSelector {
  return new RequirementsSelector([]);
}

// ---- parsing: a port of apimachinery's Lexer and Parser, messages included ----

enum Tok {
  Error,
  End,
  ClosePar,
  Comma,
  Not,
  DoubleEquals,
  Equals,
  Greater,
  Ident,
  In,
  Less,
  NotEquals,
  NotIn,
  OpenPar,
}

const TOKENS: Readonly<Record<string, Tok>> = {
  ")": Tok.ClosePar,
  ",": Tok.Comma,
  "!": Tok.Not,
  "==": Tok.DoubleEquals,
  "=": Tok.Equals,
  ">": Tok.Greater,
  in: Tok.In,
  "<": Tok.Less,
  "!=": Tok.NotEquals,
  notin: Tok.NotIn,
  "(": Tok.OpenPar,
};

const isSpace = (c: string) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isSymbol = (c: string) =>
  c === "=" || c === "!" || c === "(" || c === ")" || c === "," || c === ">" || c === "<";

function lex(s: string): Array<[Tok, string]> {
  const out: Array<[Tok, string]> = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isSpace(s[pos])) pos++;
    if (pos >= s.length) {
      out.push([Tok.End, ""]);
      return out;
    }
    if (isSymbol(s[pos])) {
      // The longest run of symbols that still forms a token ("!=" before "!").
      let buf = "";
      let last: [Tok, string] | undefined;
      while (pos < s.length && isSymbol(s[pos])) {
        buf += s[pos];
        const t = TOKENS[buf];
        if (t !== undefined) last = [t, buf];
        else if (last) break;
        pos++;
      }
      out.push(last ?? [Tok.Error, `error expected: keyword found '${buf}'`]);
    } else {
      const start = pos;
      while (pos < s.length && !isSpace(s[pos]) && !isSymbol(s[pos])) pos++;
      const word = s.slice(start, pos);
      out.push([word === "in" ? Tok.In : word === "notin" ? Tok.NotIn : Tok.Ident, word]);
    }
  }
}

const BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt";
const OPERATOR_OF: Partial<Record<Tok, LabelOperator>> = {
  [Tok.In]: "in",
  [Tok.NotIn]: "notin",
  [Tok.Equals]: "=",
  [Tok.DoubleEquals]: "==",
  [Tok.NotEquals]: "!=",
  [Tok.Greater]: "gt",
  [Tok.Less]: "lt",
};

class Parser {
  private pos = 0;
  constructor(private readonly items: Array<[Tok, string]>) {}

  // In the Values context "in" and "notin" are plain identifiers (`x in (in)`).
  peek(values = true): [Tok, string] {
    const [t, lit] = this.items[this.pos];
    return [values && (t === Tok.In || t === Tok.NotIn) ? Tok.Ident : t, lit];
  }
  next(values = true): [Tok, string] {
    const item = this.peek(values);
    this.pos++;
    return item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const [t, lit] = this.peek();
      if (t === Tok.End) return reqs;
      if (t !== Tok.Ident && t !== Tok.Not) {
        throw new SelectorParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.requirement());
      } catch (e) {
        throw new SelectorParseError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const [t2, lit2] = this.next();
      if (t2 === Tok.End) return reqs;
      if (t2 !== Tok.Comma) throw new SelectorParseError(`found '${lit2}', expected: ',' or 'end of string'`);
      const [t3, lit3] = this.peek();
      if (t3 !== Tok.Ident && t3 !== Tok.Not) {
        throw new SelectorParseError(`found '${lit3}', expected: identifier after ','`);
      }
    }
  }

  requirement(): Requirement {
    let [t, key] = this.next();
    let op: LabelOperator | undefined;
    if (t === Tok.Not) {
      op = "!";
      [t, key] = this.next();
    }
    if (t !== Tok.Ident) throw new Error(`found '${key}', expected: identifier`);
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length > 0) throw new Error(invalid("<nil>", key, keyErrs.join("; ")));
    const [after] = this.peek();
    if (op === undefined && (after === Tok.End || after === Tok.Comma)) op = "exists";
    if (op !== undefined) return newRequirementOrThrow(key, op, []);
    const [ot, olit] = this.next(false);
    op = OPERATOR_OF[ot];
    if (op === undefined) throw new Error(`found '${olit}', expected: ${BINARY_OPERATORS}`);
    const values = op === "in" || op === "notin" ? this.setValues() : this.exactValue();
    return newRequirementOrThrow(key, op, [...new Set(values)].sort());
  }

  setValues(): string[] {
    const [t, lit] = this.next();
    if (t !== Tok.OpenPar) throw new Error(`found '${lit}' expected: '('`);
    const [t2, lit2] = this.peek();
    if (t2 === Tok.ClosePar) {
      this.next();
      return [""];
    }
    if (t2 !== Tok.Ident && t2 !== Tok.Comma)
      throw new Error(`found '${lit2}', expected: ',', ')' or identifier`);
    const values = this.identifiers();
    if (this.next()[0] !== Tok.ClosePar) throw new Error(`found '${lit2}', expected: ')'`);
    return values;
  }

  // A comma-separated list where empty entries stand for the empty value: `(a,,b)`, `(,a)`.
  identifiers(): string[] {
    const values: string[] = [];
    for (;;) {
      const [t, lit] = this.next();
      if (t === Tok.Ident) {
        values.push(lit);
        const [t2, lit2] = this.peek();
        if (t2 === Tok.Comma) continue;
        if (t2 === Tok.ClosePar) return values;
        throw new Error(`found '${lit2}', expected: ',' or ')'`);
      }
      if (t !== Tok.Comma) throw new Error(`found '${lit}', expected: ',', or identifier`);
      if (values.length === 0) values.push("");
      const [t2] = this.peek();
      if (t2 === Tok.ClosePar) {
        values.push("");
        return values;
      }
      if (t2 === Tok.Comma) {
        this.next();
        values.push("");
      }
    }
  }

  exactValue(): string[] {
    const [t] = this.peek();
    if (t === Tok.End || t === Tok.Comma) return [""];
    const [t2, lit] = this.next();
    if (t2 === Tok.Ident) return [lit];
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

function newRequirementOrThrow(key: string, op: LabelOperator, values: string[]): Requirement {
  const errs = requirementErrors(key, op, values, "");
  if (errs.length > 0) throw new Error(aggregate(errs));
  return { key, operator: op, values };
}

/** Parses a selector as `labels.Parse` does; "" selects everything. Throws `SelectorParseError`. */
export function parseLabelSelector(text: string): LabelSelector {
  if (text === "") return new RequirementsSelector([]);
  return new RequirementsSelector(new Parser(lex(text)).parse());
}

/** `metav1.LabelSelectorAsSelector`, except that `undefined` selects everything. */
export function labelSelectorFromObject(sel: LabelSelectorObject | undefined): LabelSelector {
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(sel?.matchLabels ?? {})) reqs.push(newRequirement(k, "=", [v]));
  for (const expr of sel?.matchExpressions ?? []) {
    const op = EXPRESSION_OPERATORS[expr.operator];
    if (op === undefined) {
      throw new SelectorParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    }
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  return new RequirementsSelector(reqs);
}

const EXPRESSION_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
};

/** `labels.SelectorFromSet`: every label must equal its value. Not validated, as in Go. */
export function labelSelectorFromSet(labels: Readonly<Record<string, string>>): LabelSelector {
  return new RequirementsSelector(
    Object.entries(labels).map(([key, v]) => ({ key, operator: "=", values: [v] })),
  );
}
