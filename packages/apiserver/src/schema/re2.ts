// re2js is ~260 KB of JavaScript, ~10 ms of a cold start, and only a schema `pattern` or a CEL
// regex function needs it: it is loaded on the first of those, synchronously (validation is
// synchronous), from its CommonJS build. Both users share this one copy.
import { createRequire } from "node:module";
import type { RE2JS } from "re2js";

let loaded: typeof RE2JS | undefined;

/** re2js's RE2JS class, loaded on the first call. */
export function re2js(): typeof RE2JS {
  loaded ??= (createRequire(import.meta.url)("re2js") as typeof import("re2js")).RE2JS;
  return loaded;
}
