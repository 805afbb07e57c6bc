// After tsc: the embedded API server as one ES module per entry (the library entry and the
// CLI) with shared chunks, under dist/apiserver/bundle/. Loading ~185 small modules cost a cold
// process ~60 ms of module loading alone; bundled, importing the server takes ~40 ms. The
// libraries it loads on demand (CEL, protobuf) stay separate chunks, loaded on first use;
// packages stay external. `controller-runtime/apiserver` and the CLI point here; the rest of
// the library (envtest) imports the unbundled modules, which behave the same.
import { rmSync } from "node:fs";
import { build } from "esbuild";

// Chunks are content-named: without a clean directory, every build would leave the last one's behind.
rmSync("dist/apiserver/bundle", { recursive: true, force: true });

await build({
  entryPoints: { index: "dist/apiserver/index.js", cli: "dist/apiserver/cli.js" },
  outdir: "dist/apiserver/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
