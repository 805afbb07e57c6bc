#!/usr/bin/env node
// Runs every *.test.ts of the two packages (packages/*/src), test/ and examples/ with node's own
// test runner (through tsx), the packages resolved to their sources (the "cr-source" condition).
// Arguments narrow the run to files whose path contains one of them: `npm run test:only -- rest/`.
// Node 20 accepts no globs after --test, so the file list is built here.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { dependsOnServer } from "./server-dependence.mjs";

const roots = ["packages/controller-runtime/src", "packages/apiserver/src", "test", "examples"];
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

const matched = roots
  .flatMap((r) => walk(r, []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (matched.length === 0) {
  console.error("no test files matched", filters);
  process.exit(1);
}

// Which API server the tests that need one get (test/support/environment.ts reads the same
// variables as envtest), and what was left unchecked on it, summed up after node's own summary.
const existing = /^(1|t|true|y|yes)$/i.test(process.env.USE_EXISTING_CLUSTER ?? "");
const binaries = !!(
  process.env.KUBEBUILDER_ASSETS ||
  (process.env.TEST_ASSET_ETCD && process.env.TEST_ASSET_KUBE_APISERVER)
);
const server = existing
  ? "the current kubeconfig's cluster (USE_EXISTING_CLUSTER)"
  : binaries
    ? `real etcd + kube-apiserver (${process.env.KUBEBUILDER_ASSETS ?? process.env.TEST_ASSET_KUBE_APISERVER})`
    : "the embedded API server";

// Against a real server, only the files that can act differently on it (scripts/server-dependence.mjs):
// the others do the same in every mode and ran in `npm test`, on the embedded server. Their own
// server-independent tests skip themselves there too (independentOfServer() in
// test/support/environment.ts). TEST_EVERY_FILE=1 runs them all anyway.
const everyFile = existing || binaries ? /^(1|t|true|y|yes)$/i.test(process.env.TEST_EVERY_FILE ?? "") : true;
const files = everyFile ? matched : matched.filter((f) => dependsOnServer(f));
const leftOut = matched.length - files.length;
if (files.length === 0) {
  console.log(
    `none of the ${matched.length} matching files talks to an API server: they run on the embedded server alone (TEST_EVERY_FILE=1 runs them here)`,
  );
  process.exit(0);
}

// Tests are mostly waiting on loopback I/O, so run more files than there are cores.
const concurrency = process.env.TEST_CONCURRENCY ?? "4";
// Beside the spec reporter on stdout, each top-level test's file and time, for the slowest files
// printed at the end (issue 43: the note names them).
const timesDir = mkdtempSync(join(tmpdir(), "cr-test-times-"));
const timesFile = join(timesDir, "times.jsonl");
const args = [
  "--import",
  "tsx",
  "--test",
  `--test-concurrency=${concurrency}`,
  "--test-reporter=spec",
  "--test-reporter-destination=stdout",
  `--test-reporter=${new URL("./test-times-reporter.mjs", import.meta.url).href}`,
  `--test-reporter-destination=${timesFile}`,
  ...files,
];
const skippedForEmbedded = new Map();
let ranBefore = 0;
const differences = new Set();
let pending = "";
function scan(line) {
  const skip = /^\s*﹣ (.*) \([\d.]+ms\) # needs the embedded API server: (.*)$/.exec(line);
  if (skip) skippedForEmbedded.set(skip[1], skip[2]);
  if (/^\s*﹣ .* # does not depend on the API server: /.test(line)) ranBefore++;
  const diff = /^# (version difference|known difference)[^:]*: (.*)$/.exec(line.trim());
  if (diff) differences.add(`${diff[1]}: ${diff[2]}`);
}
// Child processes the tests start (examples, fixtures, the fuzzer's workers) resolve the same way.
const nodeOptions = [process.env.NODE_OPTIONS, "--conditions=cr-source"].filter(Boolean).join(" ");
const child = spawn(process.execPath, args, {
  stdio: ["inherit", "pipe", "inherit"],
  env: { ...process.env, NODE_OPTIONS: nodeOptions },
});
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString("utf8");
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) scan(line);
});
child.on("exit", (code, signal) => {
  scan(pending);
  console.log(`\nAPI server for these tests: ${server}`);
  if (leftOut > 0 || ranBefore > 0)
    console.log(
      `${leftOut} files and ${ranBefore} tests do not depend on the API server and were left to the embedded run (npm test)`,
    );
  if (skippedForEmbedded.size > 0) {
    console.log(`${skippedForEmbedded.size} tests need the embedded API server and were skipped:`);
    for (const [name, why] of skippedForEmbedded) console.log(`  - ${name}: ${why}`);
  }
  for (const d of differences) console.log(`  unchecked here, ${d}`);
  printSlowest();
  process.exit(signal ? 1 : (code ?? 1));
});

/** The files whose tests took longest (the sum of their top-level tests), slowest first. */
function printSlowest(count = 10) {
  const perFile = new Map();
  try {
    for (const line of readFileSync(timesFile, "utf8").split("\n")) {
      if (!line) continue;
      const { file, ms } = JSON.parse(line);
      perFile.set(file, (perFile.get(file) ?? 0) + ms);
    }
  } catch {
    return; // no test ended: nothing to rank
  } finally {
    rmSync(timesDir, { recursive: true, force: true });
  }
  if (perFile.size < 2) return;
  console.log(`slowest test files (the sum of their top-level tests; ${concurrency} files at a time):`);
  const ranked = [...perFile].sort((a, b) => b[1] - a[1]).slice(0, count);
  for (const [file, ms] of ranked)
    console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${relative(process.cwd(), file)}`);
}
