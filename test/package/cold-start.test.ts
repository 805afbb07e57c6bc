// What a cold start of the API server loads (issue #43): the modules its entry reaches through
// static imports. The libraries only some requests need are loaded on their first use (lazy.ts);
// one static import of them anywhere on that path (a helper moved next to CEL code, say) loads
// them at every start without failing any other test, so the graph is checked here, with
// esbuild, as the bundle is built.
import assert from "node:assert/strict";
import { test } from "node:test";
import { build, type Metafile } from "esbuild";

/** Files and packages the entry reaches through static imports (type-only ones are erased). */
async function staticallyReached(entry: string): Promise<Set<string>> {
  const { metafile } = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    packages: "external",
    outdir: "unused",
    logLevel: "silent",
  });
  const inputs: Metafile["inputs"] = metafile.inputs;
  const reached = new Set<string>([entry]);
  const todo = [entry];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    for (const i of inputs[file]?.imports ?? []) {
      if (i.kind !== "import-statement" || reached.has(i.path)) continue;
      reached.add(i.path);
      if (!i.external) todo.push(i.path);
    }
  }
  return reached;
}

test("starting the API server loads none of the libraries kept for first use", async () => {
  const reached = await staticallyReached("packages/apiserver/src/index.ts");
  assert.ok(reached.has("packages/apiserver/src/server.ts"), "the graph was followed");
  const lazy = [
    "@bufbuild/cel",
    "@bufbuild/cel/ext",
    "@bufbuild/protobuf",
    "yaml",
    "re2js",
    "controller-runtime/protobuf",
  ];
  assert.deepEqual(
    lazy.filter((m) => reached.has(m)),
    [],
    "imported statically from the server's entry: load them on first use (packages/apiserver/src/lazy.ts)",
  );
});
