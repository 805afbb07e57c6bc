#!/usr/bin/env node
// Type-checks every ```ts block of README.md and docs/*.md against the sources, so that the
// examples keep compiling as the API changes. Blocks import "controller-runtime" as a user's project
// does; here that is the workspace package, resolved to its sources (the "cr-source" condition). A block opened as ```ts file=src/api/memcached.ts is that file of the document's own
// little project, so the tutorial's files import each other as they do in a real project; other
// blocks stand alone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(".tmp", "readme-check");
rmSync(root, { recursive: true, force: true });
const docs = [
  "README.md",
  ...(existsSync("docs")
    ? readdirSync("docs")
        .filter((f) => f.endsWith(".md"))
        .sort()
        .map((f) => join("docs", f))
    : []),
];

const files = [];
let problems = 0;
for (const doc of docs) {
  const dir = join(root, doc.replace(/[/.]/g, "_"));
  const seen = new Set();
  const blocks = [...readFileSync(doc, "utf8").matchAll(/```ts( file=(\S+))?\n([\s\S]*?)```/g)];
  blocks.forEach((m, i) => {
    const path = m[2] ?? `block-${i}.ts`;
    if (seen.has(path)) {
      console.error(`${doc}: ${path} appears twice; show a file once, in its final form`);
      problems++;
    }
    seen.add(path);
    const file = join(dir, path);
    const fixed = m[3];
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, m[2] ? fixed : `export {};\n${fixed}`);
    files.push(file);
  });
}
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
  "--customConditions",
  "cr-source",
];
try {
  if (problems > 0) throw new Error("duplicate files");
  execFileSync(process.execPath, [tsc, ...flags, ...files], { stdio: "inherit" });
  console.log(`${docs.join(", ")}: ${files.length} TypeScript blocks type-check`);
} catch {
  console.error("a documentation code block does not type-check (see above; files in .tmp/readme-check)");
  process.exit(1);
}
