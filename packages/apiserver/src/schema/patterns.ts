// Schema `pattern`s are regular expressions with Go's RE2 semantics, as kube-apiserver evaluates
// them: linear time in the input whatever the pattern (a CRD's `^(a+)+$` cannot stall the
// server as a backtracking RegExp does), and a pattern RE2 refuses (lookarounds,
// backreferences) is refused when the CRD is created, with Go's message.
import { re2js } from "./re2.js";
import type { Schema } from "./schema-types.js";

/** A compiled pattern: `test` searches anywhere in the input, as Go's MatchString. */
export interface Pattern {
  test(input: string): boolean;
}

function compile(pattern: string): Pattern | Error {
  try {
    const re = re2js().compile(pattern);
    return { test: (input) => re.matcher(input).find() };
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** Go's regexp.Compile error for a pattern RE2 refuses ("error parsing regexp: ..."), or undefined. */
export function patternError(pattern: string): string | undefined {
  const compiled = compile(pattern);
  return compiled instanceof Error ? compiled.message : undefined;
}

/**
 * The compiled patterns of one API server, by schema node: each made on its first use and gone
 * with its schema (a CRD's schemas live as long as the CRD is served).
 */
export class PatternCache {
  readonly #compiled = new WeakMap<Schema, Pattern | Error>();

  /** The node's compiled `pattern`, or undefined when RE2 refuses it (such a CRD is refused at creation). */
  of(schema: Schema & { pattern: string }): Pattern | undefined {
    let entry = this.#compiled.get(schema);
    if (entry === undefined) {
      entry = compile(schema.pattern);
      this.#compiled.set(schema, entry);
    }
    return entry instanceof Error ? undefined : entry;
  }
}
