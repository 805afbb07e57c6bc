// Which files the runs against a real control plane repeat (scripts/server-dependence.mjs): a file
// wrongly left out would hide what kube-apiserver answers, so the rule is checked on this
// checkout's own files, each kind of dependence once.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { dependsOnServer as depends } from "../../scripts/server-dependence.mjs";

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) testFiles(path, out);
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const all = ["packages/controller-runtime/src", "packages/apiserver/src", "test", "examples"].flatMap((d) =>
  testFiles(d),
);

test("every file that gets a server from envtest, or skips a test per mode, is repeated", () => {
  assert.ok(all.length > 200, "the test files were found");
  const missed = all.filter((f) => {
    const text = readFileSync(f, "utf8");
    if (/^\/\/ run-tests: independent of the API server\b/m.test(text)) return false;
    return /\b(testEnvironment|needs|needsControlPlane|new Environment)\(/.test(text) && !depends(f);
  });
  assert.deepEqual(missed, []);
});

test("through the test support a file imports: a harness that starts envtest makes it depend", () => {
  assert.equal(depends("packages/controller-runtime/src/controller/controller.test.ts"), true);
  assert.equal(depends("test/apiserver/objects.test.ts"), true, "creation-timestamp.ts asks the mode");
});

test("files that build, pack or check sources are left to the embedded run", () => {
  for (const f of [
    "test/package/docs.test.ts",
    "test/package/contents.test.ts",
    "test/package/packed.test.ts",
    "packages/controller-runtime/src/codegen/types-from-crds.test.ts",
    "packages/controller-runtime/src/workqueue/rate-limiter.test.ts",
  ]) {
    assert.equal(depends(f), false, f);
  }
  assert.equal(depends("test/cli/scaffold.test.ts"), true, "the scaffolded project's tests use the server");
});
