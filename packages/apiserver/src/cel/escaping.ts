// How a schema's property names appear in CEL (kube's cel/escaping.go): a name that is a CEL
// reserved word is `__word__` (`namespace` is the one Kubernetes meets: `p.__namespace__`), and
// `__`, `.`, `-` and `/` in a name become `__underscores__`, `__dot__`, `__dash__`, `__slash__`.
// A name with any other character, or starting with a digit, is not reachable from CEL at all.
// Only the properties of an object schema are escaped; the keys of a map are CEL map keys as they are.

const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);
const EXPAND = /__|[-./]|[^a-zA-Z0-9\-./_]/g;
const WORDS: Record<string, string> = {
  __: "__underscores__",
  ".": "__dot__",
  "-": "__dash__",
  "/": "__slash__",
};
const UNEXPAND = /__(underscores|dot|dash|slash)__/g;
const CHARS: Record<string, string> = { underscores: "__", dot: ".", dash: "-", slash: "/" };

/**
 * Whether `name` is a CEL reserved word: kube (1.31+) also lets a rule select such a property by
 * its plain name (`self.namespace` for `self.__namespace__`).
 */
export function isReservedWord(name: string): boolean {
  return RESERVED.has(name);
}

/** The CEL name of property `name`; undefined when CEL cannot name it. */
export function escapeProperty(name: string): string | undefined {
  if (name === "" || (name[0]! >= "0" && name[0]! <= "9")) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  let ok = true;
  const escaped = name.replace(EXPAND, (s) => {
    const w = WORDS[s];
    if (w === undefined) ok = false;
    return w ?? "";
  });
  return ok ? escaped : undefined;
}

/** The property a CEL field name stands for. */
export function unescapeProperty(field: string): string {
  if (field.length > 4 && field.startsWith("__") && field.endsWith("__")) {
    const word = field.slice(2, -2);
    if (RESERVED.has(word)) return word;
  }
  return field.replace(UNEXPAND, (_, w: string) => CHARS[w]!);
}
