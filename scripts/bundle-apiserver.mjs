// After tsc, in packages/apiserver: the embedded API server as one ES module per entry (the
// library entry, the fake client and the CLI) with shared chunks, under dist/bundle/. Loading
// ~185 small modules cost a cold process ~60 ms of module loading alone; bundled, importing the server takes ~40 ms.
// The libraries it loads on demand (CEL, protobuf) stay separate chunks, loaded on first use;
// packages (controller-runtime among them) stay external.
import { rmSync } from "node:fs";
import { build } from "esbuild";

// Chunks are content-named: without a clean directory, every build would leave the last one's behind.
rmSync("dist/bundle", { recursive: true, force: true });

await build({
  entryPoints: { index: "dist/index.js", cli: "dist/cli.js", fake: "dist/fake/index.js" },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
});
