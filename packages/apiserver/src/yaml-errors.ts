// go-yaml's words for the YAML the yaml package refuses to parse. The two parsers meet most
// mistakes at the same place but word them apart; go-yaml also numbers lines its own way: a
// scanner error's line from 1, a parser error's from 0 (the line before, as people count), and
// it leaves out a line 0. Mistakes not listed here keep the yaml package's words.
import { YamlBodyError } from "./yaml-body.js";

/** A parse error of the yaml package (YAMLParseError), as far as it is read here. */
export interface YamlPackageError {
  code: string;
  message: string;
  pos?: [number, number];
  linePos?: [{ line: number; col: number }, ...unknown[]];
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** The last line before the 1-based `line` with content (not blank, not a comment). */
function previousContent(text: string, line: number): string {
  const lines = text.split("\n", line - 1);
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = lines[i].trim();
    if (t !== "" && !t.startsWith("#")) return t;
  }
  return "";
}

export function goYamlParseError(error: YamlPackageError, text: string): YamlBodyError {
  const line = error.linePos?.[0].line ?? 0;
  const scanner = (words: string, at = line) => ({ words, line: at > 1 ? at : 0 });
  const parser = (words: string) => ({ words, line: line - 1 });
  const { code, message } = error;
  let known: { words: string; line: number };
  if (code === "TAB_AS_INDENT") known = scanner("found character that cannot start any token");
  else if (code === "MISSING_CHAR" && /quote/.test(message))
    known = scanner("found unexpected end of stream");
  else if (code === "BLOCK_AS_IMPLICIT_KEY" || /^Implicit keys need to be on a single line/.test(message)) {
    // go-yaml stops at the colon, the yaml package at the value or key before it.
    const colon = error.pos ? text.slice(error.pos[0]).search(/:(\s|$)/) : -1;
    const at = colon >= 0 && error.pos ? lineAt(text, error.pos[0] + colon) : line;
    known = scanner("mapping values are not allowed in this context", at);
  } else if (code === "UNEXPECTED_TOKEN" && /block-seq-ind/.test(message)) {
    known = scanner("block sequence entries are not allowed in this context");
  } else if (/^Plain value cannot start with reserved character/.test(message)) {
    known = scanner("found character that cannot start any token");
  } else if (/^Invalid escape sequence/.test(message)) known = scanner("found unknown escape character");
  else if (code === "BAD_INDENT" && /^Flow sequence/.test(message)) {
    known = parser("did not find expected ',' or ']'");
  } else if (code === "BAD_INDENT" && /^Flow map/.test(message))
    known = parser("did not find expected ',' or '}'");
  else if (code === "BAD_INDENT" && /^All mapping items must start at the same column/.test(message)) {
    // Misindented: go-yaml expected the next key of the map, or the next item of a list.
    const list = /^-(\s|$)/.test(previousContent(text, line));
    known = parser(list ? "did not find expected '-' indicator" : "did not find expected key");
  } else if (code === "UNEXPECTED_TOKEN" && /^Unexpected flow-(seq|map)-end token/.test(message)) {
    known = parser("did not find expected node content");
  } else known = scanner(message.replace(/ at line \d+, column \d+:[\s\S]*$/, ""));
  return new YamlBodyError(`yaml: ${known.line >= 1 ? `line ${known.line}: ` : ""}${known.words}`);
}

/** The escapes go-yaml's scanner knows in a double-quoted scalar (YAML 1.1's: no `\/`). */
const ESCAPES = new Set([..."0abt\tnvfre \"'\\N_LP"]);
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/**
 * go-yaml's refusal of an escape in the double-quoted text at `text[from, to)`, which the yaml
 * package (YAML 1.2, or JSON.parse) takes: `\/`, and a \u escape of half a surrogate pair.
 */
export function goEscapeError(text: string, from = 0, to = text.length): YamlBodyError | undefined {
  for (let i = text.indexOf("\\", from); i !== -1 && i < to; i = text.indexOf("\\", i + 2)) {
    const c = text[i + 1];
    const at = lineAt(text, i);
    const where = at > 1 ? `line ${at}: ` : "";
    if (HEX_LENGTH[c]) {
      const value = Number.parseInt(text.slice(i + 2, i + 2 + HEX_LENGTH[c]), 16);
      if ((value >= 0xd800 && value <= 0xdfff) || value > 0x10ffff) {
        return new YamlBodyError(`yaml: ${where}found invalid Unicode character escape code`);
      }
    } else if (!ESCAPES.has(c) && c !== "\n" && c !== "\r") {
      return new YamlBodyError(`yaml: ${where}found unknown escape character`);
    }
  }
  return undefined;
}
