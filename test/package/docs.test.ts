// `npm run docs` builds: the API reference from the doc comments of every entry point, with the
// guides in docs/ beside it, and no broken link or warning. (Their code blocks are type-checked by
// scripts/check-docs.mjs, and the tutorial's files run in test/cli/scaffold.test.ts.)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";

const run = promisify(execFile);

test("the API reference and the guides build without warnings", async () => {
  const out = mkdtempSync(join(tmpdir(), "cr-docs-"));
  try {
    const typedoc = resolve("node_modules/typedoc/bin/typedoc");
    // --skipErrorChecking: typedoc's own type check is tsc's over the same tsconfig.json, which
    // `npm test` runs first (npm run typecheck); here it doubled the time of this test (issue #43).
    await run(process.execPath, [typedoc, "--out", out, "--treatWarningsAsErrors", "--skipErrorChecking"], {
      maxBuffer: 1 << 24,
    }).catch((err: { stdout?: string }) => assert.fail(`typedoc failed:\n${err.stdout ?? err}`));
    assert.ok(existsSync(join(out, "index.html")));
    const guides = readdirSync(join(out, "documents")).sort();
    for (const guide of ["concepts", "deploying", "from-go", "getting-started", "testing", "tutorial"]) {
      assert.ok(guides.includes(`${guide}.html`), `${guide} is in the built docs`);
    }
    // Each entry point's page is named as it is imported.
    const modules = readdirSync(join(out, "modules"));
    for (const page of [
      "controller-runtime.html",
      "controller-runtime_crd.html",
      "controller-runtime-apiserver.html",
    ]) {
      assert.ok(modules.includes(page), `${page} is in the built docs`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
