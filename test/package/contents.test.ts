// What ships, and the one door between the two packages. Each package is built from its src/
// without its tests, so test support must not live there. The library never imports the server:
// envtest loads it by name, through the interface envtest/embedded-server.ts defines. The server
// uses the library only through the library's published entry points, never by a relative path
// into its sources.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const library = sourceFiles("packages/controller-runtime/src");
const server = sourceFiles("packages/apiserver/src");
const importsOf = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1] ?? "");

test("no package file is test support or imports it (dist/ holds the packages only)", () => {
  assert.ok(library.length > 100 && server.length > 100, "both src/ folders were read");
  const files = [...library, ...server];
  const helpers = files.filter((f) => /(^|\/)(test-[^/]*|[^/]*-harness)\.ts$/.test(f));
  assert.deepEqual(helpers, [], "test helpers belong in test/support/");
  const importing = files.filter((f) => importsOf(f).some((i) => /^(\.\.\/)+test\//.test(i)));
  assert.deepEqual(importing, [], "package files importing test code");
});

test("the library never imports the server; envtest's door is the only place that names it", () => {
  const importing = library.filter((f) =>
    importsOf(f).some((i) => i.startsWith("controller-runtime-apiserver") || i.includes("apiserver/src")),
  );
  assert.deepEqual(importing, [], "library files importing the API server");
  const naming = library.filter((f) => readFileSync(f, "utf8").includes('"controller-runtime-apiserver"'));
  assert.deepEqual(naming, ["packages/controller-runtime/src/envtest/embedded-server.ts"]);
});

test("the server reaches the library only through its published entry points", () => {
  const exported = new Set(
    Object.keys(
      (JSON.parse(readFileSync("packages/controller-runtime/package.json", "utf8")) as { exports: object })
        .exports,
    ).map((e) => e.replace(/^\./, "controller-runtime")),
  );
  const outside = server.flatMap((f) =>
    importsOf(f)
      .filter(
        (i) =>
          i.includes("controller-runtime/src") || (i.startsWith("controller-runtime") && !exported.has(i)),
      )
      .map((i) => `${f}: ${i}`),
  );
  assert.deepEqual(outside, []);
});
