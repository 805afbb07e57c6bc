// Field selectors as apimachinery's fields.ParseSelector reads them: comma-joined `field=value`,
// `field==value` and `field!=value` terms, with `\,`, `\=` and `\\` escapes in values.

export type FieldOperator = "=" | "==" | "!=";

export interface FieldRequirement {
  readonly field: string;
  readonly op: FieldOperator;
  /** The unescaped value. */
  readonly value: string;
}

export interface FieldSelector {
  /** True when the selector restricts nothing. */
  readonly empty: boolean;
  readonly requirements: readonly FieldRequirement[];
  /** `get` returns a field's value; a missing field counts as "" (as Go's `fields.Set`). */
  matches(get: (field: string) => string | undefined): boolean;
  /** The value `field` must equal (`=` or `==`), if the selector pins it: the cache uses an index then. */
  requiresExactMatch(field: string): string | undefined;
  /** The canonical text form, values escaped. */
  toString(): string;
}

/** A field selector that failed to parse; the message is apimachinery's. */
export class FieldSelectorParseError extends Error {
  override readonly name = "FieldSelectorParseError";
}

/** Escapes `\`, `,` and `=` so that a value survives a round trip through a selector. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Undoes `escapeFieldValue`; unescaped `,` or `=` and unknown escapes are errors, as in Go. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = "";
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== "\\" && c !== "," && c !== "=") {
        throw new FieldSelectorParseError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === "\\") {
      inSlash = true;
    } else if (c === "," || c === "=") {
      // Go prints the rune with %v, which is its code point.
      throw new FieldSelectorParseError(
        `invalid field selector: unescaped character in value: ${c.codePointAt(0)}`,
      );
    } else {
      out += c;
    }
  }
  if (inSlash) throw new FieldSelectorParseError("invalid field selector: invalid escape sequence: \\");
  return out;
}

// Splits on commas that are not escaped; escapes are kept for unescapeFieldValue.
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

// The first operator in the term splits it; "!=" and "==" win over "=" at the same position.
function splitTerm(term: string): [string, FieldOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith("!=", i)) return [term.slice(0, i), "!=", term.slice(i + 2)];
    if (term.startsWith("==", i)) return [term.slice(0, i), "==", term.slice(i + 2)];
    if (term[i] === "=") return [term.slice(0, i), "=", term.slice(i + 1)];
  }
  return undefined;
}

class TermsSelector implements FieldSelector {
  readonly empty: boolean;
  constructor(readonly requirements: readonly FieldRequirement[]) {
    this.empty = requirements.length === 0;
  }
  matches(get: (field: string) => string | undefined): boolean {
    for (const r of this.requirements) {
      const equal = (get(r.field) ?? "") === r.value;
      if (equal === (r.op === "!=")) return false;
    }
    return true;
  }
  requiresExactMatch(field: string): string | undefined {
    for (const r of this.requirements) if (r.field === field && r.op !== "!=") return r.value;
    return undefined;
  }
  toString(): string {
    // Go prints both "=" and "==" terms as "=".
    return this.requirements
      .map((r) => `${r.field}${r.op === "!=" ? "!=" : "="}${escapeFieldValue(r.value)}`)
      .join(",");
  }
}

/** Parses a field selector as `fields.ParseSelector` does; "" selects everything. */
export function parseFieldSelector(text: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  // Go sorts the raw terms, which fixes the order of requirements and of toString().
  for (const part of text === "" ? [] : splitTerms(text).sort()) {
    if (part === "") continue;
    const split = splitTerm(part);
    if (!split) throw new FieldSelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`);
    const [field, op, raw] = split;
    reqs.push({ field, op, value: unescapeFieldValue(raw) });
  }
  return new TermsSelector(reqs);
}

/** `fields.SelectorFromSet`: every field must equal its value; sorted by field. */
export function fieldSelectorFromSet(fields: Readonly<Record<string, string>>): FieldSelector {
  const keys = Object.keys(fields).sort();
  return new TermsSelector(keys.map((field) => ({ field, op: "=", value: fields[field] })));
}

/** A selector from requirements (for callers that build them). */
export function fieldSelectorFromRequirements(requirements: readonly FieldRequirement[]): FieldSelector {
  return new TermsSelector([...requirements]);
}
