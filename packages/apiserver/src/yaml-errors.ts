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
function previousContent(text: string, line: number, trim = true): string {
  const lines = text.split("\n", line - 1);
  for (let i = lines.length - 1; i >= 0; i--) {
    const t = lines[i].trim();
    if (t !== "" && !t.startsWith("#")) return trim ? t : lines[i].trimEnd();
  }
  return "";
}

/**
 * Where go-yaml finds a key's colon missing: at the next token after the key's line (blank and
 * comment lines skipped), or past the end (a last line without its break counts as broken).
 */
function nextContentLine(text: string, line: number): number {
  const lines = text.split("\n");
  for (let i = line; i < lines.length; i++) {
    const t = lines[i].trim();
    if (t !== "" && !t.startsWith("#")) return i + 1;
  }
  return text.endsWith("\n") ? lines.length : lines.length + 1;
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
  else if (code === "BLOCK_AS_IMPLICIT_KEY" || code === "MULTILINE_IMPLICIT_KEY") {
    // A key of an open block map that runs onto the next line is a key without its colon to
    // go-yaml; anything else is a colon where a value goes. go-yaml stops at the colon, the
    // yaml package at the value or key before it.
    const start = error.pos?.[0] ?? 0;
    const lineStart = text.lastIndexOf("\n", start - 1) + 1;
    const key = /^ *$/.test(text.slice(lineStart, start));
    // An open map: a key before at the same column (go-yaml's "required" simple key).
    const before = previousContent(text, line, false);
    const open = before !== "" && before.length - before.trimStart().length === start - lineStart;
    if (code === "MULTILINE_IMPLICIT_KEY" && key && open) {
      known = scanner("could not find expected ':'", nextContentLine(text, line));
    } else {
      const colon = text.slice(start).search(/:(\s|$)/);
      known = scanner(
        "mapping values are not allowed in this context",
        colon >= 0 ? lineAt(text, start + colon) : line,
      );
    }
  } else if (/^Implicit map keys need to be followed by map values/.test(message)) {
    known = scanner("could not find expected ':'", nextContentLine(text, line));
  } else if (/^Unexpected scalar at node end/.test(message)) {
    const start = error.pos?.[0] ?? 0;
    const end = text.indexOf("\n", start);
    if (/:(\s|$)/.test(text.slice(start, end === -1 ? text.length : end))) {
      const list = /^-(\s|$)/.test(previousContent(text, line));
      known = parser(list ? "did not find expected '-' indicator" : "did not find expected key");
    } else known = scanner("could not find expected ':'", nextContentLine(text, line));
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
