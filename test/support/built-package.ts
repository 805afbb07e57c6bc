// The library as npm would install it, for tests that act as its users: built from src/ into
// `<dir>/node_modules/controller-runtime` (package.json, README, LICENSE, dist/), with its
// dependencies and the given extra packages linked from this checkout's node_modules, and its bin.
import { execFile } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const repo = resolve(".");

export interface PackageJSON {
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  bin: Record<string, string>;
}

export const packageJSON = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as PackageJSON;

/** Builds the package into `dir`/node_modules; returns the package's folder. */
export async function installBuiltPackage(dir: string, extra: readonly string[] = []): Promise<string> {
  const pkg = join(dir, "node_modules", "controller-runtime");
  mkdirSync(pkg, { recursive: true });
  for (const f of ["package.json", "README.md", "LICENSE"]) copyFileSync(join(repo, f), join(pkg, f));
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  await run(process.execPath, [tsc, "-p", join(repo, "tsconfig.build.json"), "--outDir", join(pkg, "dist")], {
    cwd: repo,
    maxBuffer: 1 << 24,
  });
  const deps = [
    ...Object.keys(packageJSON.dependencies),
    ...Object.keys(packageJSON.peerDependencies),
    ...extra,
  ];
  for (const name of deps) {
    const target = join(dir, "node_modules", name);
    mkdirSync(join(target, ".."), { recursive: true });
    if (!existsSync(target)) symlinkSync(join(repo, "node_modules", name), target, "dir");
  }
  // npm links each bin into node_modules/.bin.
  const bins = join(dir, "node_modules", ".bin");
  mkdirSync(bins, { recursive: true });
  for (const [name, path] of Object.entries(packageJSON.bin ?? {})) {
    chmodSync(join(pkg, path), 0o755);
    symlinkSync(join("..", "controller-runtime", path), join(bins, name));
  }
  // ...and the bins of the extra packages (tsc, tsx).
  for (const name of extra) {
    const manifest = join(repo, "node_modules", name, "package.json");
    if (!existsSync(manifest)) continue;
    const bin = (JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> }).bin;
    const entries = typeof bin === "string" ? { [name]: bin } : (bin ?? {});
    for (const [cmd, path] of Object.entries(entries)) {
      if (!existsSync(join(bins, cmd))) symlinkSync(join(repo, "node_modules", name, path), join(bins, cmd));
    }
  }
  return pkg;
}
