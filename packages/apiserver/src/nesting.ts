// How deep a request body nests, and kube's limits on it. kube-apiserver 1.37 decodes JSON with
// sigs.k8s.io/json and Go's encoding/json, which stop past 10 000 levels, and YAML with go-yaml,
// which stops past 10 000 block indentations or 10 000 flow levels (counted apart) before the
// JSON it becomes meets the JSON limit. Everything up to the limits is accepted, as kube accepts
// it. Bodies are measured without recursion; JSON.parse does not recurse; the yaml package's
// composer does (it gives out near 1 000 levels), so YAML deeper than a few hundred levels is
// composed here from yaml's parser's tokens (which it makes without recursion). Either way the
// nodes of the first document are given go-yaml's meaning by yaml-body.ts, and parse errors
// go-yaml's words by yaml-errors.ts.
import type { CST, DocumentOptions, ParseOptions, SchemaOptions, ToJSOptions } from "yaml";
import { type Slot, slot } from "./lazy-slot.js";
import { findDuplicateFields } from "./schema/duplicate-fields.js";
import { goEscapeError, goYamlParseError, type YamlPackageError } from "./yaml-errors.js";
import {
  decodeYaml,
  type YamlMapping,
  type YamlNode,
  YamlBodyError,
  type YamlSequence,
} from "./yaml-body.js";

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
  /** go-yaml's strict errors for repeated keys, in decoding order: `line 7: key "a" already set in map`. */
  duplicates: string[];
}

/**
 * go-yaml's reader refuses what YAML 1.1 does not print (its check_printable) before any token:
 * C0 controls but tab and line breaks, DEL, C1 controls but NEL, surrogates, U+FFFE and U+FFFF.
 */
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/**
 * A YAML body as kube reads it (yaml-body.ts gives the nodes go-yaml's meaning), up to its
 * limits (YamlDepthError, then JsonDepthError past them). A JSON text without repeated keys (as
 * most clients send apply configurations) is parsed as JSON: faster, measured exactly, and
 * read alike by YAML 1.1.
 */
export function readYaml(text: string): YamlRead {
  if (NOT_PRINTABLE.test(text)) throw new YamlBodyError("yaml: control characters are not allowed");
  const start = text.trimStart().charCodeAt(0);
  // A number past float64's range is a string to go-yaml, Infinity to JSON.parse: read as YAML.
  const huge = /\d[eE]\+?\d{3}/.test(text);
  if ((start === 0x7b || start === 0x5b) && !huge && findDuplicateFields(text).length === 0) {
    const crossing = jsonDepthCrossing(text);
    // go-yaml reads JSON as flow YAML: its flow limit is the JSON limit.
    if (crossing) throw new YamlDepthError(lineOf(text, crossing.offset));
    try {
      const value = JSON.parse(text);
      const refused = text.includes("\\") ? goEscapeError(text) : undefined;
      if (refused) throw refused;
      return { value, duplicates: [] };
    } catch (e) {
      if (e instanceof YamlBodyError) throw e;
      // Not JSON after all: YAML's flow style reads it.
    }
  }
  // A lone carriage return breaks a line in YAML 1.1 (and go-yaml), not in the yaml package's 1.2.
  if (text.includes("\r")) text = text.replace(/\r(?!\n)/g, "\n");
  if (!yamlDepthExceeded(text, YAML_COMPOSER_DEPTH)) {
    let root: YamlNode | undefined;
    try {
      root = composeShallowYaml(text);
    } catch (e) {
      // yaml reports its own stack overflow as a parse error; the deep path below takes it.
      if (!(e instanceof RangeError || /Maximum call stack size exceeded/.test((e as Error)?.message))) {
        throw e;
      }
      return decodeYaml(composeDeepYaml(text));
    }
    return decodeYaml(root);
  }
  return decodeYaml(composeDeepYaml(text));
}

/** The value of a YAML body (see readYaml); its repeated keys are not reported. */
export function parseYamlBounded(text: string, _options?: YamlOptions): unknown {
  return readYaml(text).value;
}

/** The full form of a tag as written (`!!int`, `!<...>`, `!foo`), as go-yaml's parser makes it. */
function fullTag(source: string): string {
  if (source.startsWith("!!")) return `tag:yaml.org,2002:${source.slice(2)}`;
  if (source.startsWith("!<") && source.endsWith(">")) return source.slice(2, -1);
  return source;
}

/**
 * The first document's nodes, composed by the yaml package (with no meaning given to scalars:
 * its failsafe schema), then walked in document order without recursion, aliases resolved to
 * the anchor defined last before them as go-yaml's parser resolves them.
 */
function composeShallowYaml(text: string): YamlNode | undefined {
  const Y = yamlLib.get();
  const lineCounter = new Y.LineCounter();
  const docs = Y.parseAllDocuments(text, {
    schema: "failsafe",
    version: "1.1",
    uniqueKeys: false,
    merge: false,
    lineCounter,
  });
  // go-yaml reads the first document only.
  const doc = Array.isArray(docs) ? docs[0] : undefined;
  if (!doc) return undefined;
  const errors = doc.errors.filter((e) => e.code !== "TAG_RESOLVE_FAILED");
  if (errors.length > 0) throw goYamlParseError(errors[0] as YamlPackageError, text);
  if (doc.directives?.yaml.explicit && doc.directives.yaml.version !== "1.1") {
    throw new YamlBodyError("yaml: found incompatible YAML document");
  }
  const lineAt = (offset: number | undefined) => lineCounter.linePos(offset ?? 0).line - 1;
  const anchors = new Map<string, YamlNode>();
  let root: YamlNode | undefined;
  const work: { node: unknown; at: number; place: (n: YamlNode) => void }[] = [
    { node: doc.contents, at: 0, place: (n) => (root = n) },
  ];
  for (let item = work.pop(); item; item = work.pop()) {
    const { node, place } = item;
    if (node === null || node === undefined) {
      place({ kind: "scalar", value: "", plain: true, line: item.at });
      continue;
    }
    if (Y.isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) throw new YamlBodyError(`yaml: unknown anchor '${node.source}' referenced`);
      place({ kind: "alias", name: node.source, target, line: lineAt(node.range?.[0]) });
      continue;
    }
    let made: YamlNode;
    const line = lineAt((node as { range?: number[] }).range?.[0]);
    const tag = (node as { tag?: string }).tag;
    if (Y.isScalar(node)) {
      if (node.type === "QUOTE_DOUBLE" && node.range) {
        const refused = goEscapeError(text, node.range[0], node.range[1]);
        if (refused) throw refused;
      }
      made = { kind: "scalar", value: String(node.value), plain: node.type === "PLAIN", tag, line };
    } else if (Y.isMap(node) || Y.isSeq(node)) {
      const children: YamlNode[] = [];
      made = Y.isMap(node) ? { kind: "mapping", children, line } : { kind: "sequence", children, line };
      // Children in document order: pushed last to first.
      const pending: typeof work = [];
      for (const entry of node.items as unknown[]) {
        if (Y.isPair(entry)) {
          let target = children;
          if (Y.isSeq(node)) {
            // A pair in a flow sequence is a map of one.
            const pair: YamlMapping = { kind: "mapping", children: [], line };
            target = pair.children;
            children.push(pair);
          }
          const k = target.push(undefined as unknown as YamlNode) - 1;
          const v = target.push(undefined as unknown as YamlNode) - 1;
          const keyLine = Y.isNode(entry.key) ? lineAt(entry.key.range?.[0]) : line;
          pending.push({ node: entry.key, at: keyLine, place: (n) => (target[k] = n) });
          pending.push({ node: entry.value, at: keyLine, place: (n) => (target[v] = n) });
        } else {
          const i = children.push(undefined as unknown as YamlNode) - 1;
          pending.push({ node: entry, at: line, place: (n) => (children[i] = n) });
        }
      }
      for (let i = pending.length - 1; i >= 0; i--) work.push(pending[i]);
    } else throw new YamlBodyError("yaml: could not read a node");
    // go-yaml's parser records an anchor as its node starts: an alias inside sees it.
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, made);
    place(made);
  }
  return root;
}

interface ComposeFrame {
  node: CST.BlockMap | CST.BlockSequence | CST.FlowCollection;
  made: YamlMapping | YamlSequence;
  index: number;
  /** go-yaml's block indentation stack depth and current column here. */
  indents: number;
  column: number;
  flow: number;
  /** Containers from the document down to this one. */
  depth: number;
  /** A key in a flow sequence, waiting for its value (the pair is a map of one). */
  key?: YamlNode;
  /** A map's key placed, its value next. */
  awaitingValue: boolean;
}

/**
 * Composes the nodes of the first document of a deep YAML text from yaml's CST, for the common
 * forms (block and flow collections, scalars, tags, anchors and aliases), checking go-yaml's
 * limits on the way. No recursion.
 */
function composeDeepYaml(text: string): YamlNode | undefined {
  const Y = yamlLib.get();
  const anchors = new Map<string, YamlNode>();
  let doc: CST.Document | undefined;
  for (const token of new Y.Parser().parse(text)) {
    if (token.type === "document") {
      doc = token;
      break;
    }
    if (token.type === "error") throw new YamlBodyError(`yaml: ${token.message}`);
  }
  if (!doc?.value) return undefined;

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
      else if (t.type === "tag") tag = fullTag(t.source);
    }
    return { anchor, tag };
  };
  const scalar = (token: CST.Token, tag: string | undefined): YamlNode => {
    const line = position(token.offset).line;
    if (token.type === "alias") {
      const name = token.source.slice(1);
      const target = anchors.get(name);
      if (!target) throw new YamlBodyError(`yaml: unknown anchor '${name}' referenced`);
      return { kind: "alias", name, target, line };
    }
    if (token.type === "double-quoted-scalar") {
      const refused = goEscapeError(text, token.offset, token.offset + token.source.length);
      if (refused) throw refused;
    }
    const resolved = Y.CST.resolveAsScalar(token as CST.FlowScalar | CST.BlockScalar);
    if (!resolved) throw new YamlBodyError("yaml: could not read a scalar");
    return { kind: "scalar", value: resolved.value, plain: resolved.type === "PLAIN", tag, line };
  };
  const empty = (offset: number): YamlNode => ({
    kind: "scalar",
    value: "",
    plain: true,
    line: position(offset).line,
  });

  const stack: ComposeFrame[] = [];
  let root: YamlNode | undefined;
  /** Places `node` where the frame on top (or the document) waits for one. */
  const place = (node: YamlNode, anchor: string | undefined) => {
    if (anchor !== undefined) anchors.set(anchor, node);
    const top = stack[stack.length - 1];
    if (!top) {
      root = node;
      return;
    }
    if (top.made.kind === "sequence" && top.key !== undefined) {
      top.made.children.push({ kind: "mapping", children: [top.key, node], line: top.key.line });
      top.key = undefined;
      return;
    }
    top.made.children.push(node);
  };
  /** Opens a collection, or places a scalar. */
  const visit = (
    token: CST.Token | null | undefined,
    parent: ComposeFrame | undefined,
    propTokens: readonly CST.SourceToken[] | undefined,
    offset: number,
  ) => {
    const { anchor, tag } = props(propTokens);
    if (token === null || token === undefined) {
      place(empty(offset), anchor);
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
      const line = position(token.offset).line;
      const made: YamlMapping | YamlSequence = isMap
        ? { kind: "mapping", children: [], line }
        : { kind: "sequence", children: [], line };
      // Placed as it opens: go-yaml records the anchor then, and an alias inside sees it.
      place(made, anchor);
      stack.push({ node: token, made, index: 0, indents, column, flow, depth, awaitingValue: false });
      return;
    }
    if (token.type === "error") throw new YamlBodyError(`yaml: ${token.message}`);
    place(scalar(token, tag), anchor);
  };

  visit(doc.value, undefined, doc.start, doc.offset);
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
    if (top.awaitingValue) {
      top.awaitingValue = false;
      const item = items[top.index - 1];
      visit(item.value, top, item.sep, item.sep?.[item.sep.length - 1]?.offset ?? top.node.offset);
      continue;
    }
    if (top.index >= items.length) {
      stack.pop();
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
        throw new YamlBodyError("yaml: complex keys are not supported");
      }
      const { anchor, tag } = props(item.start);
      const key = keyToken ? scalar(keyToken, tag) : empty(top.node.offset);
      if (anchor !== undefined) anchors.set(anchor, key);
      if (top.made.kind === "sequence") top.key = key;
      else top.made.children.push(key);
      top.awaitingValue = true;
      continue;
    }
    visit(item.value, top, item.start, item.start?.[0]?.offset ?? top.node.offset);
  }
  if (yamlCrossing !== undefined) throw new YamlDepthError(position(yamlCrossing).line);
  if (jsonCrossing !== undefined) throw new JsonDepthError(jsonCrossing.bracket);
  return root;
}
