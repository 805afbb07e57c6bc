// A port of apimachinery's label selector Lexer and Parser, error messages included.
import {
  type LabelOperator,
  type Requirement,
  SelectorParseError,
  checkedRequirement,
  invalid,
  qualifiedNameErrors,
} from "./label-requirement.js";

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
    if (op !== undefined) return checkedRequirement(key, op, []);
    const [ot, olit] = this.next(false);
    op = OPERATOR_OF[ot];
    if (op === undefined) throw new Error(`found '${olit}', expected: ${BINARY_OPERATORS}`);
    const values = op === "in" || op === "notin" ? this.setValues() : this.exactValue();
    return checkedRequirement(key, op, [...new Set(values)].sort());
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

/** The requirements of a selector's text, in text order; throws `SelectorParseError`. */
export function parseRequirements(text: string): Requirement[] {
  return new Parser(lex(text)).parse();
}
