// Warning headers (RFC 7234 §5.5, as the API server sends them: `299 - "text"`): deprecations,
// unknown fields under `fieldValidation=Warn`, admission webhooks' warnings.

export interface Warning {
  /** 299 for everything the API server sends. */
  code: number;
  /** `-` when the server names no agent. */
  agent: string;
  text: string;
}

/** Called with each warning of a response. */
export type WarningHandler = (warning: Warning) => void;

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
