// The packages as npm would install them, for tests that act as their users: the library built
// from packages/controller-runtime/src into `<dir>/node_modules/controller-runtime` (package.json,
// README, LICENSE, dist/), and on request the embedded API server built from packages/apiserver
// against that library's declarations into `<dir>/node_modules/controller-runtime-apiserver`;
// their dependencies and the given extra packages linked from this checkout's node_modules, and
// their bins.
import { execFile } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const repo = resolve(".");
const libraryDir = join(repo, "packages", "controller-runtime");
const serverDir = join(repo, "packages", "apiserver");
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");

export interface PackageJSON {
  name: string;
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin: Record<string, string>;
}

const readJSON = (path: string) => JSON.parse(readFileSync(path, "utf8")) as PackageJSON;
export const packageJSON = readJSON(join(libraryDir, "package.json"));
export const serverPackageJSON = readJSON(join(serverDir, "package.json"));

export interface InstallOptions {
  /** Also build and install the embedded API server package (a dev dependency's place). */
  server?: boolean;
}

/** Builds the library (and the server) into `dir`/node_modules; returns the library's folder. */
export async function installBuiltPackage(
  dir: string,
  extra: readonly string[] = [],
  opts: InstallOptions = {},
): Promise<string> {
  const modules = join(dir, "node_modules");
  const pkg = join(modules, "controller-runtime");
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(libraryDir, "package.json"), join(pkg, "package.json"));
  for (const f of ["README.md", "LICENSE"]) copyFileSync(join(repo, f), join(pkg, f));
  await run(
    process.execPath,
    [tsc, "-p", join(libraryDir, "tsconfig.build.json"), "--outDir", join(pkg, "dist")],
    {
      cwd: repo,
      maxBuffer: 1 << 24,
    },
  );
  const linked = [
    ...Object.keys(packageJSON.dependencies),
    ...Object.keys(packageJSON.peerDependencies).filter(
      (p) => !packageJSON.peerDependenciesMeta?.[p]?.optional,
    ),
    ...extra,
  ];
  if (opts.server) {
    await buildServer(join(modules, "controller-runtime-apiserver"), join(pkg, "dist"), dir);
    linked.push(...Object.keys(serverPackageJSON.dependencies));
  }
  for (const name of linked) {
    const target = join(modules, name);
    mkdirSync(join(target, ".."), { recursive: true });
    if (!existsSync(target)) symlinkSync(join(repo, "node_modules", name), target, "dir");
  }
  // npm links each bin into node_modules/.bin.
  const bins = join(modules, ".bin");
  mkdirSync(bins, { recursive: true });
  const installed = opts.server ? [packageJSON, serverPackageJSON] : [packageJSON];
  for (const p of installed) {
    for (const [name, path] of Object.entries(p.bin ?? {})) {
      chmodSync(join(modules, p.name, path), 0o755);
      symlinkSync(join("..", p.name, path), join(bins, name));
    }
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

/**
 * The server as its `npm run build` makes it (tsc, then the bundle), compiled against the
 * library's built declarations in `libraryDist`, as a user's install would resolve them.
 */
async function buildServer(pkg: string, libraryDist: string, scratch: string): Promise<void> {
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(serverDir, "package.json"), join(pkg, "package.json"));
  copyFileSync(join(serverDir, "README.md"), join(pkg, "README.md"));
  copyFileSync(join(repo, "LICENSE"), join(pkg, "LICENSE"));
  const config = join(scratch, "tsconfig.apiserver.json");
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(serverDir, "tsconfig.build.json"),
      compilerOptions: {
        outDir: join(pkg, "dist"),
        typeRoots: [join(repo, "node_modules", "@types")],
        paths: {
          "controller-runtime": [join(libraryDist, "index.d.ts")],
          "controller-runtime/*": [join(libraryDist, "*", "index.d.ts")],
        },
      },
    }),
  );
  await run(process.execPath, [tsc, "-p", config], { cwd: repo, maxBuffer: 1 << 24 });
  await run(process.execPath, [join(repo, "scripts", "bundle-apiserver.mjs")], { cwd: pkg });
}
