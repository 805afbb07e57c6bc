// The body of a generated table the API server reads on first use: its entries as JSON text, one
// a line (diffs stay readable), parsed by the first call of the function that returns it. As an
// object literal, V8 parsed and built the whole table at every import of the server (the
// built-in schemas and Go fields: ~4 ms of a cold start, issue #43); a string costs a scan.

/** `export function <name>(): <type>` over `entries`, parsed once on its first call. */
export function lazyJsonTable(
  name: string,
  type: string,
  doc: string,
  entries: Record<string, unknown>,
): string {
  const lines = Object.entries(entries).map(
    ([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`,
  );
  const text = lines.join(",\n");
  // A template literal holds the text as it is (String.raw when JSON escapes are to be kept);
  // only these two would end or break it.
  if (text.includes("`") || text.includes("${")) throw new Error(`${name}: an entry holds \` or \${`);
  return [
    "// The table as JSON, parsed on its first use (scripts/lazy-json-module.ts says why).",
    `const TEXT = ${text.includes("\\") ? "String.raw" : ""}\`{`,
    text,
    "}`;",
    "",
    `let parsed: ${type} | undefined;`,
    "",
    `/** ${doc} */`,
    `export function ${name}(): ${type} {`,
    `  parsed ??= JSON.parse(TEXT) as ${type};`,
    "  return parsed;",
    "}",
    "",
  ].join("\n");
}
