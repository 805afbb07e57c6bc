// What ships: the package is built from src/ without its tests, so test support must not live
// there. No library file may import from test/, and no test helper may hide under src/.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

function libraryFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) libraryFiles(path, out);
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

test("no library file is test support or imports it (dist/ holds the library only)", () => {
  const files = libraryFiles("src");
  assert.ok(files.length > 100, "src/ was read");
  const helpers = files.filter((f) => /(^|\/)(test-[^/]*|[^/]*-harness)\.ts$/.test(f));
  assert.deepEqual(helpers, [], "test helpers belong in test/support/");
  const importing = files.filter((f) => /from "(\.\.\/)+test\//.test(readFileSync(f, "utf8")));
  assert.deepEqual(importing, [], "library files importing test code");
});
