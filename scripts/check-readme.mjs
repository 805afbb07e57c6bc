#!/usr/bin/env node
// Type-checks every ```ts block of README.md against the sources, so the README's examples keep
// compiling as the API changes. Blocks import "controller-runtime"; here that means ../src.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = join(".tmp", "readme-check");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const blocks = [...readFileSync("README.md", "utf8").matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
const files = blocks.map((code, i) => {
  const file = join(dir, `block-${i}.ts`);
  // kubernetes-types imports stay as written: a user's NodeNext project resolves them the same way.
  const fixed = code.replace(
    /from "controller-runtime(\/[a-z]+)?";/g,
    (_, sub) => `from "../../src${sub ?? ""}/index.js";`,
  );
  writeFileSync(file, `export {};\n${fixed}`);
  return file;
});
const tsc = join("node_modules", "typescript", "bin", "tsc");
const flags = [
  "--noEmit",
  "--strict",
  "--skipLibCheck",
  "--module",
  "nodenext",
  "--target",
  "es2023",
  "--lib",
  "es2023",
  "--types",
  "node",
];
try {
  execFileSync(process.execPath, [tsc, ...flags, ...files], { stdio: "inherit" });
  console.log(`README.md: ${files.length} TypeScript blocks type-check`);
} catch {
  console.error("README.md: a TypeScript block does not type-check (see above; files in .tmp/readme-check)");
  process.exit(1);
}
