#!/usr/bin/env node
// Runs every *.test.ts under src/, test/ and examples/ with node's own test runner (through tsx).
// Arguments narrow the run to files whose path contains one of them: `npm run test:only -- rest/`.
// Node 20 accepts no globs after --test, so the file list is built here.
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const roots = ["src", "test", "examples"];
const filters = process.argv.slice(2);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (name.endsWith(".test.ts")) out.push(path);
  }
  return out;
}

const files = roots
  .flatMap((r) => walk(r, []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error("no test files matched", filters);
  process.exit(1);
}

// Tests are mostly waiting on loopback I/O, so run more files than there are cores.
const concurrency = process.env.TEST_CONCURRENCY ?? "4";
const args = [
  "--import",
  "tsx",
  "--test",
  `--test-concurrency=${concurrency}`,
  "--test-reporter=spec",
  ...files,
];
const child = spawn(process.execPath, args, { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
