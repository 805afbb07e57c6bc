// The JSONPath subset kube uses in printer columns, scale paths and selectable fields
// (client-go's jsonpath inside `{...}`): `.a.b`, `['a.b']`, `[0]`, `[-1]`, `[*]`, `.*`, `..a`
// and filters such as `[?(@.type=="Ready")]`.

type Segment =
  | { kind: "field"; name: string }
  | { kind: "index"; index: number }
  | { kind: "wildcard" }
  | { kind: "recursive"; name: string }
  | { kind: "filter"; path: Segment[]; op?: string; literal?: unknown };

/** Thrown for a path this evaluator cannot parse. */
export class JSONPathError extends Error {
  override name = "JSONPathError";
  constructor(path: string, detail: string) {
    super(`invalid JSONPath ${JSON.stringify(path)}: ${detail}`);
  }
}

/** A parsed path; `find` returns every match (none for an absent field). */
export interface JSONPath {
  readonly source: string;
  find(value: unknown): unknown[];
}

/** Parses `.spec.replicas`, `{.status.phase}` or `status.conditions[?(@.type=="Ready")].status`. */
export function parseJSONPath(source: string): JSONPath {
  let text = source.trim();
  if (text.startsWith("{") && text.endsWith("}")) text = text.slice(1, -1).trim();
  if (text.startsWith("$")) text = text.slice(1);
  const segments = parseSegments(text, source);
  return { source, find: (value) => evaluate(segments, [value]) };
}

function parseSegments(text: string, source: string): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  const ident = () => {
    const start = i;
    while (i < text.length && text[i] !== "." && text[i] !== "[") i++;
    return text.slice(start, i);
  };
  if (text.length > 0 && text[0] !== "." && text[0] !== "[") out.push({ kind: "field", name: ident() });
  while (i < text.length) {
    if (text.startsWith("..", i)) {
      i += 2;
      out.push({ kind: "recursive", name: ident() });
    } else if (text[i] === ".") {
      i++;
      const name = ident();
      if (name === "*") out.push({ kind: "wildcard" });
      else if (name !== "") out.push({ kind: "field", name });
    } else if (text[i] === "[") {
      const end = closing(text, i);
      if (end < 0) throw new JSONPathError(source, "unclosed [");
      out.push(bracket(text.slice(i + 1, end).trim(), source));
      i = end + 1;
    } else {
      throw new JSONPathError(source, `unexpected ${JSON.stringify(text[i])}`);
    }
  }
  return out;
}

/** The index of the `]` closing the `[` at `start`, skipping quoted text. */
function closing(text: string, start: number): number {
  let quote = "";
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = "";
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === "[") {
      depth++;
    } else if (c === "]" && --depth === 0) {
      return i;
    }
  }
  return -1;
}

function bracket(inner: string, source: string): Segment {
  if (inner === "*") return { kind: "wildcard" };
  if (/^-?\d+$/.test(inner)) return { kind: "index", index: Number(inner) };
  const quoted = /^(['"])(.*)\1$/.exec(inner);
  if (quoted) return { kind: "field", name: quoted[2] };
  const filter = /^\?\((.*)\)$/s.exec(inner);
  if (filter) {
    const m = /^@([^=!<>\s]*)\s*(==|!=|<=|>=|<|>)?\s*(.*)$/s.exec(filter[1].trim());
    if (!m) throw new JSONPathError(source, `unsupported filter ${inner}`);
    const path = parseSegments(m[1], source);
    if (!m[2]) return { kind: "filter", path };
    return { kind: "filter", path, op: m[2], literal: literal(m[3].trim()) };
  }
  throw new JSONPathError(source, `unsupported [${inner}]`);
}

function literal(text: string): unknown {
  const quoted = /^(['"])(.*)\1$/s.exec(text);
  if (quoted) return quoted[2];
  if (text === "true" || text === "false") return text === "true";
  const n = Number(text);
  return Number.isNaN(n) ? text : n;
}

function evaluate(segments: Segment[], start: unknown[]): unknown[] {
  let current = start;
  for (const seg of segments) {
    const next: unknown[] = [];
    for (const v of current) step(seg, v, next);
    current = next;
  }
  return current;
}

function step(seg: Segment, v: unknown, out: unknown[]): void {
  switch (seg.kind) {
    case "field":
      if (v !== null && typeof v === "object" && !Array.isArray(v) && seg.name in v) {
        out.push((v as Record<string, unknown>)[seg.name]);
      }
      return;
    case "index":
      if (Array.isArray(v)) {
        const i = seg.index < 0 ? v.length + seg.index : seg.index;
        if (i >= 0 && i < v.length) out.push(v[i]);
      }
      return;
    case "wildcard":
      if (Array.isArray(v)) out.push(...v);
      else if (v !== null && typeof v === "object") out.push(...Object.values(v));
      return;
    case "recursive":
      collect(seg.name, v, out);
      return;
    case "filter":
      for (const item of Array.isArray(v) ? v : []) {
        const found = evaluate(seg.path, [item]);
        if (seg.op === undefined ? found.length > 0 : found.some((f) => compare(f, seg.op!, seg.literal))) {
          out.push(item);
        }
      }
  }
}

function collect(name: string, v: unknown, out: unknown[]): void {
  if (v === null || typeof v !== "object") return;
  if (!Array.isArray(v) && name in v) out.push((v as Record<string, unknown>)[name]);
  for (const child of Object.values(v)) collect(name, child, out);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
  }
  if (typeof a !== "number" || typeof b !== "number") return false;
  return op === "<" ? a < b : op === ">" ? a > b : op === "<=" ? a <= b : a >= b;
}

/** Prints a value as client-go's jsonpath printer does: strings bare, the rest as JSON. */
export function jsonPathText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
