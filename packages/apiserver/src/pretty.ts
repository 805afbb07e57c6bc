// kube-apiserver's pretty printing: `?pretty=true` (Go's ParseBool spellings), or, with no
// `pretty` parameter, a user agent that is curl, Wget or a browser, gets its JSON indented as
// Go's json.MarshalIndent(v, "", "  ") writes it, with no newline at the end.
import type { IncomingMessage } from "node:http";

const goTrue = new Set(["1", "t", "T", "TRUE", "true", "True"]);

/** Whether kube would pretty-print the answer to `req` (negotiation.go's isPrettyPrint). */
export function isPrettyPrint(req: IncomingMessage | undefined): boolean {
  if (!req) return false;
  const url = req.url ?? "";
  const q = url.indexOf("?");
  if (q !== -1 && url.includes("pretty", q)) {
    const value = new URLSearchParams(url.slice(q + 1)).get("pretty");
    if (value) return goTrue.has(value);
  }
  const agent = req.headers["user-agent"] ?? "";
  return agent.startsWith("curl") || agent.startsWith("Wget") || agent.startsWith("Mozilla/5.0");
}

/**
 * `json` indented by two spaces per level, as Go's json.Indent does it: empty objects and arrays
 * stay `{}` and `[]`, strings and numbers are copied as they are (no re-encoding, so no int64
 * loses precision).
 */
export function indentJson(json: string): string {
  let out = "";
  let depth = 0;
  const newline = (d: number) => `\n${"  ".repeat(d)}`;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === "\\" ? 2 : 1;
      out += json.slice(i, j + 1);
      i = j;
    } else if (c === "{" || c === "[") {
      let j = i + 1;
      while (json[j] === " " || json[j] === "\n" || json[j] === "\t" || json[j] === "\r") j++;
      if (json[j] === (c === "{" ? "}" : "]")) {
        out += c + json[j];
        i = j;
      } else {
        depth++;
        out += c + newline(depth);
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += newline(depth) + c;
    } else if (c === ",") out += `,${newline(depth)}`;
    else if (c === ":") out += ": ";
    else if (c !== " " && c !== "\n" && c !== "\t" && c !== "\r") out += c;
  }
  return out;
}
