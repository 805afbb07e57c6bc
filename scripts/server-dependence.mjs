// Which test files can behave differently with the API server envtest's variables choose
// (KUBEBUILDER_ASSETS, USE_EXISTING_CLUSTER), for scripts/run-tests.mjs: the run against a real
// control plane repeats only those; the others do the same thing in every mode and ran already in
// `npm test` (issue #43: the second pass spent minutes rebuilding docs and packages).
//
// A file depends on the server when it, or a module of this repository it imports (followed
// through relative imports), gets a server from envtest (`testEnvironment()`, `new Environment`),
// reads envtest's variables, or starts the CLI's `run`, which reads them too. Static and
// deliberately wide: a false "depends" only costs time; a false "does not" would hide a real
// server's answer, so when in doubt (an import it cannot read) the file counts as depending.
// A file whose text shows a server it never asks for (in a fixture it writes, in a message it
// expects) says so in a line of its own: `// run-tests: independent of the API server (why)`.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const serverMarkers = [
  /\btestEnvironment\b/,
  /\bnew Environment\b/,
  /\bEnvironment\s*\(/,
  /KUBEBUILDER_ASSETS|USE_EXISTING_CLUSTER|TEST_ASSET_(ETCD|KUBE_APISERVER)/,
  /\bserverMode\b|\bneedsControlPlane\b|\bversionDifference\b|\bknownDifference\b/,
  /"run"|'run'/, // the CLI's run command, spawned
];
const declaredIndependent = /^\/\/ run-tests: independent of the API server\b/m;
const relativeImport = /(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;

const marked = new Map();

/** True when `file` (a path to a .ts test file) may act differently per server mode. */
export function dependsOnServer(file) {
  if (declaredIndependent.test(readFileSync(file, "utf8"))) return false;
  // Every module of the closure, each read once; library sources (packages/*/src) are not
  // followed: they read envtest's variables only when a test makes an Environment or runs the CLI,
  // which the test's own text shows.
  const todo = [resolve(file)];
  const seen = new Set(todo);
  for (let path = todo.pop(); path !== undefined; path = todo.pop()) {
    let text;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      return true; // unreadable: count it as depending
    }
    if (!marked.has(path))
      marked.set(
        path,
        serverMarkers.some((m) => m.test(text)),
      );
    if (marked.get(path)) return true;
    for (const m of text.matchAll(relativeImport)) {
      const target = sourceOf(resolve(dirname(path), m[1]));
      if (target === undefined || seen.has(target) || isLibrarySource(target)) continue;
      seen.add(target);
      todo.push(target);
    }
  }
  return false;
}

const librarySources = resolve("packages");
const isLibrarySource = (path) => path.startsWith(librarySources) && !path.endsWith(".test.ts");

/** The .ts source an import specifier names (`./x.js` is `./x.ts` in this checkout). */
function sourceOf(spec) {
  for (const candidate of [spec.replace(/\.js$/, ".ts"), spec, `${spec}.ts`, join(spec, "index.ts")]) {
    if (/\.(ts|mjs|js)$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  return undefined;
}
