// Warning headers (RFC 7234 §5.5, as the API server sends them: `299 - "text"`): deprecations,
// unknown fields under `fieldValidation=Warn`, admission webhooks' warnings.
import { type Logger, newLogger } from "../log/index.js";

export interface Warning {
  /** 299 for everything the API server sends. */
  code: number;
  /** `-` when the server names no agent. */
  agent: string;
  text: string;
}

/** Called with each warning of a response. */
export type WarningHandler = (warning: Warning) => void;

/** How many distinct warnings a deduplicating handler remembers; a server cannot grow it further. */
const REMEMBERED_WARNINGS = 1024;

export interface WarningLoggerOptions {
  /** Log each distinct warning text once (controller-runtime's default). Default: true. */
  deduplicate?: boolean;
}

/**
 * A handler writing each warning through `logger` at info level, as controller-runtime's
 * `KubeAPIWarningLogger`: once per distinct text unless `deduplicate` is false. Unknown fields
 * in an object the operator writes (`spec.sise`) show up here instead of vanishing.
 */
export function warningLogger(logger: Logger, opts: WarningLoggerOptions = {}): WarningHandler {
  const dedupe = opts.deduplicate ?? true;
  const seen = new Set<string>();
  return (w) => {
    if (dedupe) {
      if (seen.has(w.text)) return;
      // Forgetting the oldest keeps memory bounded; a forgotten warning may be logged again.
      if (seen.size >= REMEMBERED_WARNINGS) seen.delete(seen.values().next().value as string);
      seen.add(w.text);
    }
    logger.info(w.text);
  };
}

/** The REST client's default: `warningLogger` on a logger writing to standard error, made on first use. */
export function defaultWarningHandler(): WarningHandler {
  let handler: WarningHandler | undefined;
  return (w) => {
    handler ??= warningLogger(newLogger({ destination: process.stderr }).withName("KubeAPIWarningLogger"));
    handler(w);
  };
}

/** Parses every warning of a `Warning` header (repeated, or comma-separated); skips malformed ones. */
export function parseWarningHeader(header: string | string[] | undefined): Warning[] {
  if (header === undefined) return [];
  const out: Warning[] = [];
  for (const value of Array.isArray(header) ? header : [header]) parseInto(value, out);
  return out;
}

// warning-value = warn-code SP warn-agent SP warn-text [ SP warn-date ], comma-separated.
function parseInto(value: string, out: Warning[]): void {
  let i = 0;
  const n = value.length;
  while (i < n) {
    while (i < n && (value[i] === " " || value[i] === ",")) i++;
    if (i >= n) return;
    const codeEnd = value.indexOf(" ", i);
    if (codeEnd < 0) return;
    const code = Number(value.slice(i, codeEnd));
    const agentEnd = value.indexOf(" ", codeEnd + 1);
    if (agentEnd < 0 || !Number.isInteger(code)) return;
    const agent = value.slice(codeEnd + 1, agentEnd);
    i = agentEnd + 1;
    if (value[i] !== '"') return;
    let text = "";
    i++;
    while (i < n && value[i] !== '"') {
      if (value[i] === "\\" && i + 1 < n) i++;
      text += value[i];
      i++;
    }
    i++; // closing quote
    out.push({ code, agent, text });
    // Skip an optional quoted warn-date up to the next comma.
    while (i < n && value[i] !== ",") {
      if (value[i] === '"') {
        i = value.indexOf('"', i + 1);
        if (i < 0) return;
      }
      i++;
    }
  }
}
