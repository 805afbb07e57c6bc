// The packages as a user installs them: the library and the embedded API server, each built from
// its src/ and packed by npm, and compiled against by a consumer project with the strictest compiler options (exactOptionalPropertyTypes, no
// skipLibCheck), which is where shipped declarations break first. The README's examples are that
// consumer's code, imported from "controller-runtime" as a user writes them.
//
// No test here asks this run's API server (the one without the server package starts envtest with
// an empty environment, so the embedded mode):
// run-tests: independent of the API server (it builds, packs and type-checks the packages)
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { installBuiltPackage, packageJSON, serverPackageJSON } from "../support/built-package.js";

const run = promisify(execFile);
const tsc = resolve("node_modules/typescript/bin/tsc");
const pkgJson = packageJSON;

let dir = "";
let pkg = "";

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "cr-packed-"));
  pkg = await installBuiltPackage(dir, ["@types"], { server: true });
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const [name, manifest] of [
  ["controller-runtime", packageJSON],
  ["controller-runtime-apiserver", serverPackageJSON],
] as const) {
  test(`npm packs ${name}: its build, declarations, README and LICENSE; no sources or source maps`, async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: join(pkg, "..", name),
    });
    const files = (JSON.parse(stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path);
    assert.ok(files.includes("LICENSE") && files.includes("README.md") && files.includes("package.json"));
    assert.match(readFileSync(join(pkg, "..", name, "LICENSE"), "utf8"), /Apache License\s+Version 2\.0/);
    assert.deepEqual(
      files.filter((f) => f.endsWith(".map")),
      [],
      "source maps would point at src/, which is not shipped",
    );
    assert.deepEqual(
      files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")),
      [],
    );
    assert.deepEqual(
      files.filter((f) => /\.test\.(js|d\.ts)$/.test(f)),
      [],
    );
    for (const [entry, target] of Object.entries(manifest.exports)) {
      assert.ok(files.includes(target.types.replace(/^\.\//, "")), `${entry}: ${target.types} is packed`);
      assert.ok(files.includes(target.default.replace(/^\.\//, "")), `${entry}: ${target.default} is packed`);
    }
    for (const bin of Object.values(manifest.bin))
      assert.ok(files.includes(bin.replace(/^\.\//, "")), `${bin} is packed`);
  });
}

test("the library's dependencies hold nothing of the server's, nor the server itself", () => {
  const own = new Set(Object.keys(packageJSON.dependencies));
  const serverOnly = Object.keys(serverPackageJSON.dependencies).filter((d) => !own.has(d));
  assert.ok(serverOnly.includes("@bufbuild/cel") && serverOnly.includes("re2js"), "the server has its own");
  // @bufbuild/protobuf is the library's own: its client speaks kube's protobuf for built-in kinds
  // (controller-runtime/protobuf), and the server uses that codec through the entry point.
  assert.deepEqual(
    Object.keys(packageJSON.dependencies).filter((d) => d.startsWith("@bufbuild/") || d === "re2js"),
    ["@bufbuild/protobuf"],
  );
  // Not even as an optional peer: npm counts a peer that a dev dependency satisfies as needed in
  // production, and `npm ci --omit=dev` would install the server (bench/install-size.sh).
  assert.equal(packageJSON.peerDependencies["controller-runtime-apiserver"], undefined);
});

test("a consumer with the strictest compiler options type-checks against the shipped declarations", async () => {
  const consumer = dir;
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(
    join(consumer, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        types: ["node"],
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noImplicitOverride: true,
        noPropertyAccessFromIndexSignature: true,
        verbatimModuleSyntax: true,
        skipLibCheck: false,
        noEmit: true,
      },
      include: ["*.ts"],
    }),
  );
  // Every entry point, so every shipped declaration file is reached and checked.
  const entries = [
    ...Object.keys(pkgJson.exports).map((e) => e.replace(/^\./, "controller-runtime")),
    "controller-runtime-apiserver",
    "controller-runtime-apiserver/fake",
  ];
  writeFileSync(
    join(consumer, "entries.ts"),
    entries.map((e, i) => `import * as m${i} from "${e}";\nexport { m${i} };\n`).join(""),
  );
  const blocks = [...readFileSync("README.md", "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length > 5, "the README's examples were found");
  blocks.forEach((code, i) => {
    writeFileSync(join(consumer, `readme-${i}.ts`), `export {};\n${code}`);
  });
  try {
    await run(process.execPath, [tsc, "-p", "."], { cwd: consumer, maxBuffer: 1 << 24 });
  } catch (err) {
    const out = (err as { stdout?: string }).stdout ?? String(err);
    assert.fail(`the consumer does not type-check:\n${out.split("\n").slice(0, 40).join("\n")}`);
  }
});

test("without the server package, envtest's embedded mode says what to install", async () => {
  // A project that installed the library alone: its node_modules links the built library and this
  // checkout's other packages (its dependencies and theirs), but not the server (--preserve-symlinks
  // keeps Node from finding the server beside the library's real folder).
  const alone = mkdtempSync(join(tmpdir(), "cr-alone-"));
  try {
    const modules = join(alone, "node_modules");
    mkdirSync(modules);
    symlinkSync(pkg, join(modules, "controller-runtime"), "dir");
    for (const name of readdirSync(resolve("node_modules"))) {
      if (name.startsWith(".") || name === "controller-runtime" || name === "controller-runtime-apiserver")
        continue;
      symlinkSync(resolve("node_modules", name), join(modules, name), "dir");
    }
    writeFileSync(join(alone, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      join(alone, "start.js"),
      `import { Environment } from "controller-runtime/envtest";
try {
  await new Environment({ env: {} }).start();
  console.log("started");
} catch (err) {
  console.log(err.name + ": " + err.message);
}
`,
    );
    const { stdout } = await run(process.execPath, ["--preserve-symlinks", "start.js"], {
      cwd: alone,
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    assert.match(stdout, /^EmbeddedServerMissingError: envtest: the embedded API server is not installed/);
    assert.match(stdout, /npm install --save-dev controller-runtime-apiserver/);
    assert.match(stdout, /KUBEBUILDER_ASSETS/);
  } finally {
    rmSync(alone, { recursive: true, force: true });
  }
});
