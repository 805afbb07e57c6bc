// How deep a request body nests, measured before anything parses it. kube's decoders stop at
// 10 000 levels (Go's encoding/json, go-yaml); the embedded server walks objects with recursive
// JavaScript (validation, pruning, field sets, merges), which a few thousand levels would take
// past the stack. So bodies are measured here, without recursion, and refused with kube's words
// past `MAX_BODY_DEPTH` (JSON) or `MAX_YAML_DEPTH`, which no real manifest comes near.
import type { DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions } from "yaml";
import { type Slot, slot } from "./lazy-slot.js";

/** The yaml package, loaded by the router (lazy.ts) before a YAML body is parsed. */
export const yamlLib: Slot<typeof import("yaml")> = slot("yaml", () => import("yaml"));

/** kube-apiserver's limit, for the messages. */
export const KUBE_MAX_DEPTH = 10_000;

/**
 * The embedded server's limit for JSON: deep enough for any real object (the deepest CRD
 * schemas nest a few dozen levels), shallow enough that every recursive walk of the object
 * stays inside Node's stack with room to spare (server-side apply's merge, the deepest, gives
 * out near 2 000). A difference from kube-apiserver, which accepts up to 10 000.
 */
export const MAX_BODY_DEPTH = 1_000;

/** The limit for YAML, whose parser (the yaml package) recurses deeper per level: it gives out near 1 000. */
export const MAX_YAML_DEPTH = 500;

/**
 * The bracket that takes a JSON text past `limit` levels (`{` or `[`), or undefined. Counts
 * brackets outside strings, in one pass without recursion.
 */
export function jsonDepthExceeded(text: string, limit = MAX_BODY_DEPTH): string | undefined {
  // Fewer brackets than the limit cannot exceed it: nearly every body stops here.
  if (text.length <= limit) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return text[i];
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return undefined;
}

/**
 * Whether a YAML text may nest past `limit` levels: an upper bound from yaml's lexer (which
 * does not recurse), adding a line's indentation, the block indicators (`-`, `?`, `:`) before a
 * point on it, and the flow brackets open there. Each block level needs one more column or one
 * more indicator, so the bound never falls below the real depth.
 */
export function yamlDepthExceeded(text: string, limit = MAX_YAML_DEPTH): boolean {
  if (text.length <= limit) return false;
  let flow = 0;
  let lineDepth = 0;
  let atLineStart = true;
  for (const token of new (yamlLib.get().Lexer)().lex(text)) {
    const first = token.charCodeAt(0);
    if (token === "\n" || token === "\r\n") {
      atLineStart = true;
      lineDepth = 0;
      continue;
    }
    if (atLineStart && first === 0x20 /* indentation */) lineDepth = token.length;
    atLineStart = false;
    if (token === "[" || token === "{") flow++;
    else if (token === "]" || token === "}") flow = Math.max(0, flow - 1);
    else if (flow === 0 && (token === "-" || token === "?" || token === ":")) lineDepth++;
    else continue;
    if (lineDepth + flow > limit) return true;
  }
  return false;
}

/** Go's json decoder's words for a body past the limit, as kube wraps them. */
export function jsonDepthMessage(bracket: string): string {
  return `invalid character '${bracket}' exceeded max depth`;
}

/** go-yaml's words, as kube wraps them ("yaml: exceeded max depth of 10000"). */
export function yamlDepthMessage(limit = MAX_YAML_DEPTH): string {
  return `yaml: exceeded max depth of ${limit}`;
}

/** A body nested past the limit; its message is the decoder's as kube reports it. */
export class DepthExceededError extends Error {}

/** JSON.parse (which does not recurse) after the depth is measured. */
export function parseJsonBounded(text: string): unknown {
  const bracket = jsonDepthExceeded(text);
  if (bracket) throw new DepthExceededError(jsonDepthMessage(bracket));
  return JSON.parse(text);
}

/**
 * yaml's parse after the depth is measured. Where duplicate keys are allowed (the last wins, as
 * in JSON.parse), a JSON text (as most clients send apply configurations) is parsed as JSON:
 * faster, and measured exactly. yaml's own recursion overflowing the stack is a decode error
 * too, never a crash.
 */
export function parseYamlBounded(
  text: string,
  options?: ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions,
): unknown {
  const start = text.trimStart().charCodeAt(0);
  if (options?.uniqueKeys === false && (start === 0x7b || start === 0x5b)) {
    if (jsonDepthExceeded(text)) throw new DepthExceededError(yamlDepthMessage(MAX_BODY_DEPTH));
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON after all: YAML's flow style reads it.
    }
  }
  if (yamlDepthExceeded(text)) throw new DepthExceededError(yamlDepthMessage());
  try {
    return yamlLib.get().parse(text, options);
  } catch (e) {
    // yaml reports its own stack overflow as a parse error.
    if (e instanceof RangeError || /Maximum call stack size exceeded/.test((e as Error)?.message)) {
      throw new DepthExceededError(yamlDepthMessage());
    }
    throw e;
  }
}
