// Schema `pattern`s are regular expressions with Go's RE2 semantics, as kube-apiserver evaluates
// them: linear time in the input whatever the pattern (a CRD's `^(a+)+$` cannot stall the
// server as a backtracking RegExp does), and a pattern RE2 refuses (lookarounds,
// backreferences) is refused when the CRD is created, with Go's message.
import { RE2JS } from "re2js";

/** A compiled pattern: `test` searches anywhere in the input, as Go's MatchString. */
export interface Pattern {
  test(input: string): boolean;
}

// Compiled patterns, as schemas keep them: bounded, as the patterns come from users' CRDs.
const cache = new Map<string, Pattern | Error>();
const CACHE_LIMIT = 2_000;

function compile(pattern: string): Pattern | Error {
  try {
    const re = RE2JS.compile(pattern);
    return { test: (input) => re.matcher(input).find() };
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

function cached(pattern: string): Pattern | Error {
  let entry = cache.get(pattern);
  if (entry === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    entry = compile(pattern);
    cache.set(pattern, entry);
  }
  return entry;
}

/** Go's regexp.Compile error for a pattern RE2 refuses ("error parsing regexp: ..."), or undefined. */
export function patternError(pattern: string): string | undefined {
  const entry = cached(pattern);
  return entry instanceof Error ? entry.message : undefined;
}

/** The compiled pattern, or undefined when RE2 refuses it (such a CRD is refused at creation). */
export function compilePattern(pattern: string): Pattern | undefined {
  const entry = cached(pattern);
  return entry instanceof Error ? undefined : entry;
}
