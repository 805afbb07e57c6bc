// After tsc, in packages/apiserver: the embedded API server's package entries, under dist/bundle/.
// - server.cjs: the server's code (the library entry's graph) as one CommonJS-style script, and
//   index.js, which runs it with a V8 code cache (src/code-cache.ts): a cold start compiled ~1.3 MB
//   of ES modules each time, and Node 20 caches none (issue #43). The parts of the library it
//   uses at start are inside it (INSIDE): loading their ~35 modules one by one cost a start ~25 ms
//   of CPU, and inside they are cached too. They hold no state shared with the caller's copy:
//   functions, and errors that the server's own code throws and catches (PatchError,
//   SelectorParseError, FaultStatusError); what crosses (a CertificateAuthority, fault rules,
//   the Faults a server hands envtest) is plain data or used through its methods. Every other
//   package stays the installed one, shared with the rest of the process: the libraries kept for
//   first use (CEL, protobuf, YAML), imported when lazy.ts loads them.
// - cli.js: the bin, on index.js.
// - fake.js and its chunks: the fake client, ES modules as before (~185 small modules cost ~60 ms
//   to load; bundled ~40), every package external: it works with the caller's controller-runtime
//   objects (clients, selectors, errors), so it shares their module instances.
import { createHash } from "node:crypto";
import { builtinModules } from "node:module";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/** The library's folders compiled into server.cjs (see above). */
const INSIDE = new Set([
  "controller-runtime/api",
  "controller-runtime/patch",
  "controller-runtime/certs",
  "controller-runtime/envtest/faults",
]);
const isBuiltin = (p) => p.startsWith("node:") || builtinModules.includes(p);

// Chunks are content-named: without a clean directory, every build would leave the last one's behind.
rmSync("dist/bundle", { recursive: true, force: true });

const common = { bundle: true, platform: "node", target: "node20", logLevel: "warning" };

const script = await build({
  ...common,
  entryPoints: ["dist/index.js"],
  outfile: "dist/bundle/server.cjs",
  format: "cjs",
  metafile: true,
  define: { "import.meta.url": "__importMetaUrl" },
  plugins: [
    {
      name: "packages-outside-but-the-library-pure-parts",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (a) =>
          INSIDE.has(a.path) ? undefined : { path: a.path, external: true },
        );
      },
    },
  ],
});

// The packages server.cjs requires at its start (import statements followed from the entry) are
// imported by index.js beforehand; the others must be imported (lazy.ts) before they are required.
const inputs = script.metafile.inputs;
const atStart = new Set();
const seen = new Set(["dist/index.js"]);
for (const todo = ["dist/index.js"]; todo.length > 0; ) {
  for (const i of inputs[todo.pop()]?.imports ?? []) {
    if (i.kind !== "import-statement" || seen.has(i.path)) continue;
    seen.add(i.path);
    if (i.external) atStart.add(i.path);
    else todo.push(i.path);
  }
}
const imported = [...atStart].filter((p) => !isBuiltin(p)).sort();
const dynamic = new Set(
  Object.values(inputs).flatMap((i) =>
    i.imports.filter((d) => d.kind === "dynamic-import").map((d) => d.path),
  ),
);
const required = new Set(
  Object.values(inputs).flatMap((i) =>
    i.imports.filter((d) => d.external && !isBuiltin(d.path)).map((d) => d.path),
  ),
);
/** The packages `file` imports, itself or through its static imports, that a start has not imported. */
function packagesOf(file) {
  const found = new Set();
  const seenHere = new Set([file]);
  for (const todo = [file]; todo.length > 0; ) {
    for (const i of inputs[todo.pop()]?.imports ?? []) {
      if (i.kind !== "import-statement" || seenHere.has(i.path) || seen.has(i.path)) continue;
      seenHere.add(i.path);
      if (!i.external) todo.push(i.path);
      else if (!isBuiltin(i.path)) found.add(i.path);
    }
  }
  return found;
}
// Each module imported on first use must come after its packages (lazy-packages.ts), but for
// those imported by a start already.
const { LAZY_PACKAGES } = await import(
  new URL("dist/lazy-packages.js", pathToFileURL(`${process.cwd()}/`)).href
);
const lazyModules = [...dynamic].filter((p) => p.startsWith("dist/"));
for (const file of lazyModules) {
  const listed = LAZY_PACKAGES[`./${file.slice("dist/".length)}`] ?? [];
  const missing = [...packagesOf(file)].filter((p) => !listed.includes(p));
  if (missing.length > 0)
    throw new Error(
      `${file}, imported on first use, imports ${missing.join(", ")}: add them to its entry in packages/apiserver/src/lazy-packages.ts, which imports them first`,
    );
}

// A script's `import()` needs a callback of vm's that Node 20 takes only with
// --experimental-vm-modules: its imports of packages call `__import` instead, code-cache.ts's.
let text = readFileSync("dist/bundle/server.cjs", "utf8");
for (const p of [...required].filter((p) => dynamic.has(p))) {
  const call = `import(${JSON.stringify(p)})`;
  if (!text.includes(call)) throw new Error(`server.cjs: ${call} not found to rewrite`);
  text = text.replaceAll(call, `__import(${JSON.stringify(p)})`);
}
// ASCII only (esbuild leaves a regular expression's µ as it is), read as Latin-1 by code-cache.ts:
// decoding UTF-8 cost a few ms more, and V8 keeps a source with one character past Latin-1 as
// two bytes a character.
text = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const left = text.match(/\bimport\((?!")|\bimport\("[^"]*"\)/);
if (left) throw new Error(`server.cjs: ${left[0]}... left, which a vm script cannot run`);
writeFileSync("dist/bundle/server.cjs", text);

// The entry's export names, for index.js to export the same.
const esm = await build({
  ...common,
  entryPoints: ["dist/index.js"],
  outdir: "dist/bundle/unused",
  format: "esm",
  packages: "external",
  write: false,
  metafile: true,
});
const names = Object.values(esm.metafile.outputs).find((o) => o.entryPoint === "dist/index.js").exports;

const key = createHash("sha256").update(readFileSync("dist/bundle/server.cjs")).digest("hex").slice(0, 16);
await build({
  ...common,
  stdin: {
    resolveDir: "dist",
    sourcefile: "index.js",
    contents: [
      ...imported.map((p, n) => `import * as p${n} from ${JSON.stringify(p)};`),
      `import { runCachedScript } from "./code-cache.js";`,
      `const exports = runCachedScript({`,
      `  file: new URL("./server.cjs", import.meta.url),`,
      `  key: ${JSON.stringify(key)},`,
      `  imported: { ${imported.map((p, n) => `${JSON.stringify(p)}: p${n}`).join(", ")} },`,
      `});`,
      `export const { ${names.join(", ")} } = exports;`,
    ].join("\n"),
  },
  outfile: "dist/bundle/index.js",
  format: "esm",
  packages: "external",
});

await build({
  ...common,
  entryPoints: ["dist/cli.js"],
  outfile: "dist/bundle/cli.js",
  format: "esm",
  packages: "external",
  plugins: [
    {
      name: "the-server-from-index",
      setup(b) {
        b.onResolve({ filter: /^\.\/server\.js$/ }, () => ({ path: "./index.js", external: true }));
      },
    },
  ],
});

await build({
  ...common,
  entryPoints: { fake: "dist/fake/index.js" },
  outdir: "dist/bundle",
  splitting: true,
  format: "esm",
  packages: "external",
});
