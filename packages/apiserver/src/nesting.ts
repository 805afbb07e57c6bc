// How deep a request body nests, and kube's limits on it. kube-apiserver 1.37 decodes JSON with
// sigs.k8s.io/json and Go's encoding/json, which stop past 10 000 levels, and YAML with go-yaml,
// which stops past 10 000 block indentations or 10 000 flow levels (counted apart) before the
// JSON it becomes meets the JSON limit. Everything up to the limits is accepted, as kube accepts
// it. Bodies are measured without recursion; JSON.parse does not recurse; the yaml package's
// composer does (it gives out near 1 000 levels), so YAML deeper than a few hundred levels is
// composed here from yaml's parser's tokens (which it makes without recursion).
import type { CST, DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions } from "yaml";
import { type Slot, slot } from "./lazy-slot.js";
import { findDuplicateFields } from "./schema/duplicate-fields.js";

/** The yaml package, loaded by the router (lazy.ts) before a YAML body is parsed. */
export const yamlLib: Slot<typeof import("yaml")> = slot("yaml", () => import("yaml"));

/** kube-apiserver's limit: Go's JSON decoders' maxNestingDepth, go-yaml's max_flow_level and max_indents. */
export const KUBE_MAX_DEPTH = 10_000;

/** Below this, the yaml package composes a YAML body itself (its recursion is safe there). */
const YAML_COMPOSER_DEPTH = 256;

/** A body past Go's JSON limit: encoding/json's words ("invalid character '{' exceeded max depth"). */
export class JsonDepthError extends Error {
  constructor(readonly bracket: string) {
    super(`invalid character '${bracket}' exceeded max depth`);
  }
}

/** A YAML body past go-yaml's limits: its words, with the line when not the first. */
export class YamlDepthError extends Error {
  constructor(readonly line: number) {
    super(`yaml: ${line > 0 ? `line ${line + 1}: ` : ""}exceeded max depth of ${KUBE_MAX_DEPTH}`);
  }
}

export function isDepthError(e: unknown): e is JsonDepthError | YamlDepthError {
  return e instanceof JsonDepthError || e instanceof YamlDepthError;
}

/**
 * Where a JSON text first goes past `limit` levels: the bracket and its offset, or undefined.
 * Counts brackets outside strings, in one pass without recursion.
 */
export function jsonDepthCrossing(
  text: string,
  limit = KUBE_MAX_DEPTH,
): { bracket: string; offset: number } | undefined {
  // Fewer brackets than the limit cannot exceed it: nearly every body stops here.
  if (text.length <= limit) return undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string: to the first quote after an even number of backslashes.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return { bracket: text[i], offset: i };
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return undefined;
}

/** The bracket that takes a JSON text past `limit` levels (`{` or `[`), or undefined. */
export function jsonDepthExceeded(text: string, limit = KUBE_MAX_DEPTH): string | undefined {
  return jsonDepthCrossing(text, limit)?.bracket;
}

/** JSON.parse (which does not recurse) after the depth is measured. */
export function parseJsonBounded(text: string): unknown {
  const crossing = jsonDepthCrossing(text);
  if (crossing) throw new JsonDepthError(crossing.bracket);
  return JSON.parse(text);
}

/** The 0-based line of `offset`. */
function lineOf(text: string, offset: number): number {
  let line = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * Whether a YAML text may nest past `limit` levels: an upper bound from yaml's lexer (which
 * does not recurse), adding a line's indentation, the block indicators (`-`, `?`, `:`) before a
 * point on it, and the flow brackets open there. Each block level needs one more column or one
 * more indicator, so the bound never falls below the real depth.
 */
export function yamlDepthExceeded(text: string, limit: number): boolean {
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

type YamlOptions = ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions;

/** A YAML body as read: the value (a repeated key's last value wins, as go-yaml's does) and the repeats. */
export interface YamlRead {
  value: unknown;
  /** go-yaml's strict errors for repeated keys, in document order: `line 7: key "a" already set in map`. */
  duplicates: string[];
}

/** go-yaml's words for a key repeated in one map (%#v of the key). */
function duplicateMessage(line: number, key: unknown): string {
  return `line ${line}: key ${typeof key === "string" ? JSON.stringify(key) : String(key)} already set in map`;
}

/**
 * A YAML body as kube reads it, up to its limits (YamlDepthError, then JsonDepthError past
 * them). A JSON text without repeated keys (as most clients send apply configurations) is
 * parsed as JSON: faster, and measured exactly.
 */
export function readYaml(text: string): YamlRead {
  const start = text.trimStart().charCodeAt(0);
  if ((start === 0x7b || start === 0x5b) && findDuplicateFields(text).length === 0) {
    const crossing = jsonDepthCrossing(text);
    // go-yaml reads JSON as flow YAML: its flow limit is the JSON limit.
    if (crossing) throw new YamlDepthError(lineOf(text, crossing.offset));
    try {
      return { value: JSON.parse(text), duplicates: [] };
    } catch {
      // Not JSON after all: YAML's flow style reads it.
    }
  }
  if (!yamlDepthExceeded(text, YAML_COMPOSER_DEPTH)) {
    try {
      return composeShallowYaml(text);
    } catch (e) {
      // yaml reports its own stack overflow as a parse error; the deep path below takes it.
      if (!(e instanceof RangeError || /Maximum call stack size exceeded/.test((e as Error)?.message))) {
        throw e;
      }
    }
  }
  return composeDeepYaml(text);
}

/** go-yaml reports repeats as its decoder meets them: in the order of their lines. */
function inLineOrder(duplicates: string[]): string[] {
  const line = (d: string) => Number(/^line (\d+)/.exec(d)?.[1] ?? 0);
  return duplicates.length < 2 ? duplicates : duplicates.sort((a, b) => line(a) - line(b));
}

/** The value of a YAML body (see readYaml); its repeated keys are not reported. */
export function parseYamlBounded(text: string, _options?: YamlOptions): unknown {
  return readYaml(text).value;
}

/** The yaml package's composition, with repeated keys allowed and found (its maps keep them all). */
function composeShallowYaml(text: string): YamlRead {
  const Y = yamlLib.get();
  const lineCounter = new Y.LineCounter();
  const doc = Y.parseDocument(text, { uniqueKeys: false, lineCounter });
  if (doc.errors.length > 0) throw doc.errors[0];
  const duplicates: string[] = [];
  const stack: unknown[] = [doc.contents];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Y.isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = Y.isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          const at = (Y.isNode(pair.key) && pair.key.range?.[0]) || 0;
          duplicates.push(duplicateMessage(lineCounter.linePos(at).line, key));
        }
        seen.add(key);
      }
      for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i].value);
    } else if (Y.isSeq(node)) {
      for (let i = node.items.length - 1; i >= 0; i--) stack.push(node.items[i]);
    }
  }
  return { value: doc.toJS(), duplicates: inLineOrder(duplicates) };
}

interface ComposeFrame {
  node: CST.BlockMap | CST.BlockSequence | CST.FlowCollection;
  target: Record<string, unknown> | unknown[];
  index: number;
  /** go-yaml's block indentation stack depth and current column here. */
  indents: number;
  column: number;
  flow: number;
  /** Containers from the document down to this one. */
  depth: number;
  /** The key waiting for its value (maps), and its line. */
  key?: string;
  keyLine: number;
  anchor?: string;
}

/**
 * Composes the first document of a deep YAML text from yaml's CST, as the yaml package would for
 * the common forms (block and flow collections, scalars of the core schema, anchors and
 * aliases, `!!str`), checking go-yaml's limits on the way. No recursion.
 */
function composeDeepYaml(text: string): YamlRead {
  const Y = yamlLib.get();
  const schema = new Y.Schema({});
  const scalarTags = schema.tags.filter(
    (t): t is typeof t & { test: RegExp; resolve: (s: string, e: unknown, o: unknown) => unknown } =>
      "test" in t && t.test instanceof RegExp,
  );
  const duplicates: string[] = [];
  const anchors = new Map<string, unknown>();
  let doc: CST.Document | undefined;
  for (const token of new Y.Parser().parse(text)) {
    if (token.type === "document") {
      doc = token;
      break;
    }
    if (token.type === "error") throw new Error(`yaml: ${token.message}`);
  }
  if (!doc?.value) return { value: null, duplicates };

  const lineStarts: number[] = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const position = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, column: offset - lineStarts[lo] };
  };
  // The first place go-yaml or the JSON decoder gives up, in text order.
  let yamlCrossing: number | undefined;
  let jsonCrossing: { offset: number; bracket: string } | undefined;

  const props = (tokens: readonly CST.SourceToken[] | undefined) => {
    let anchor: string | undefined;
    let tag: string | undefined;
    for (const t of tokens ?? []) {
      if (t.type === "anchor") anchor = t.source.slice(1);
      else if (t.type === "tag") tag = t.source;
    }
    return { anchor, tag };
  };
  const scalar = (token: CST.Token, tag: string | undefined): unknown => {
    if (token.type === "alias") {
      const name = token.source.slice(1);
      if (!anchors.has(name)) throw new Error(`yaml: unknown anchor '${name}' referenced`);
      return anchors.get(name);
    }
    const resolved = Y.CST.resolveAsScalar(token as CST.FlowScalar | CST.BlockScalar);
    if (!resolved) throw new Error("yaml: could not read a scalar");
    if (resolved.type !== "PLAIN" || tag === "!!str" || tag === "!") return resolved.value;
    for (const t of scalarTags) {
      if (t.test.test(resolved.value)) {
        // null and bool come back as Scalar nodes.
        const v = t.resolve(resolved.value, () => {}, { intAsBigInt: false });
        return Y.isScalar(v) ? v.value : v;
      }
    }
    return resolved.value;
  };

  const stack: ComposeFrame[] = [];
  let result: unknown;
  /** Places `value` where the frame on top (or the document) waits for one. */
  const place = (value: unknown, anchor: string | undefined) => {
    if (anchor !== undefined) anchors.set(anchor, value);
    const top = stack[stack.length - 1];
    if (!top) {
      result = value;
      return;
    }
    if (Array.isArray(top.target)) {
      if (top.key !== undefined) {
        // A pair in a flow sequence is a map of one.
        top.target.push({ [top.key]: value });
        top.key = undefined;
      } else top.target.push(value);
      return;
    }
    const key = top.key ?? "";
    if (Object.hasOwn(top.target, key)) duplicates.push(duplicateMessage(top.keyLine + 1, key));
    Object.defineProperty(top.target, key, { value, enumerable: true, writable: true, configurable: true });
    top.key = undefined;
  };
  /** Opens a collection, or places a scalar. */
  const visit = (
    token: CST.Token | null | undefined,
    parent: ComposeFrame | undefined,
    propTokens?: readonly CST.SourceToken[],
  ) => {
    const { anchor, tag } = props(propTokens);
    if (token === null || token === undefined) {
      place(null, anchor);
      return;
    }
    if (token.type === "block-map" || token.type === "block-seq" || token.type === "flow-collection") {
      const depth = (parent?.depth ?? 0) + 1;
      let indents = parent?.indents ?? 0;
      let column = parent?.column ?? -1;
      let flow = parent?.flow ?? 0;
      let isMap: boolean;
      if (token.type === "flow-collection") {
        flow++;
        if (flow > KUBE_MAX_DEPTH && yamlCrossing === undefined) yamlCrossing = token.start.offset;
        isMap = token.start.source === "{";
      } else {
        const at = position(token.offset).column;
        // go-yaml's roll_indent: a block collection right of the current indentation pushes one.
        if (column < at) {
          indents++;
          column = at;
          if (indents > KUBE_MAX_DEPTH && yamlCrossing === undefined) yamlCrossing = token.offset;
        }
        isMap = token.type === "block-map";
      }
      if (depth > KUBE_MAX_DEPTH && jsonCrossing === undefined) {
        jsonCrossing = { offset: token.offset, bracket: isMap ? "{" : "[" };
      }
      stack.push({
        node: token,
        target: isMap ? {} : [],
        index: 0,
        indents,
        column,
        flow,
        depth,
        anchor,
        keyLine: 0,
      });
      return;
    }
    if (token.type === "error") throw new Error(`yaml: ${token.message}`);
    place(scalar(token, tag), anchor);
  };

  visit(doc.value, undefined, doc.start);
  while (stack.length > 0) {
    if (yamlCrossing !== undefined) break;
    const top = stack[stack.length - 1];
    const items = top.node.items as {
      start?: CST.SourceToken[];
      key?: CST.Token | null;
      sep?: CST.SourceToken[];
      value?: CST.Token;
    }[];
    // A key placed, its value next.
    if (top.key !== undefined && top.index > 0) {
      const item = items[top.index - 1];
      visit(item.value, top, item.sep);
      continue;
    }
    if (top.index >= items.length) {
      stack.pop();
      place(top.target, top.anchor);
      continue;
    }
    const item = items[top.index++];
    const hasKey = item.key !== undefined || (item.sep ?? []).some((t) => t.type === "map-value-ind");
    if (hasKey && !(top.node.type === "block-seq")) {
      const keyToken = item.key;
      if (
        keyToken &&
        keyToken.type !== "scalar" &&
        keyToken.type !== "single-quoted-scalar" &&
        keyToken.type !== "double-quoted-scalar" &&
        keyToken.type !== "alias"
      ) {
        throw new Error("yaml: complex keys are not supported");
      }
      const k = keyToken ? scalar(keyToken, props(item.start).tag) : null;
      top.key = k === null || k === undefined ? "" : String(k);
      top.keyLine = keyToken ? position(keyToken.offset).line : 0;
      continue;
    }
    visit(item.value, top, item.start);
  }
  if (yamlCrossing !== undefined) throw new YamlDepthError(position(yamlCrossing).line);
  if (jsonCrossing !== undefined) throw new JsonDepthError(jsonCrossing.bracket);
  return { value: result, duplicates: inLineOrder(duplicates) };
}
