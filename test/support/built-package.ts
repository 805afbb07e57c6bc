// The packages as npm would install them, for tests that act as their users: the library built
// from packages/controller-runtime/src into `<dir>/node_modules/controller-runtime` (package.json,
// README, LICENSE, dist/), and on request the embedded API server built from packages/apiserver
// against that library's declarations into `<dir>/node_modules/controller-runtime-apiserver`;
// their dependencies and the given extra packages linked from this checkout's node_modules, and
// their bins.
//
// The build (tsc twice and the server's bundle, a minute or more of CPU) is made once per content
// of what it reads and kept in the machine's cache: the test files that install the packages, and
// the runs against each server, copy the same build (issue #43). Any change to the sources, the
// manifests, the build configuration or the locked dependencies is another key, so another build.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
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

/** Installs the built library (and the server) into `dir`/node_modules; returns the library's folder. */
export async function installBuiltPackage(
  dir: string,
  extra: readonly string[] = [],
  opts: InstallOptions = {},
): Promise<string> {
  const modules = join(dir, "node_modules");
  const pkg = join(modules, "controller-runtime");
  const built = await builtPackages();
  mkdirSync(modules, { recursive: true });
  // A copy, as npm's install is: tests pack, chmod and write beside it.
  cpSync(join(built, "controller-runtime"), pkg, { recursive: true });
  const linked = [
    ...Object.keys(packageJSON.dependencies),
    ...Object.keys(packageJSON.peerDependencies).filter(
      (p) => !packageJSON.peerDependenciesMeta?.[p]?.optional,
    ),
    ...extra,
  ];
  if (opts.server) {
    cpSync(join(built, "controller-runtime-apiserver"), join(modules, "controller-runtime-apiserver"), {
      recursive: true,
    });
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

/** Where builds are kept, one folder per key: the machine's cache, shared with CI. */
const cacheRoot =
  process.env.CR_BUILT_PACKAGES_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "controller-runtime-ts", "built-packages");
/** Builds kept besides this checkout's (other branches, the last landing). */
const kept = 4;

/**
 * The folder holding `controller-runtime/` and `controller-runtime-apiserver/` as built from this
 * checkout, building them first when no earlier run built the same content. One process builds;
 * others wanting the same key wait for it (a lock folder naming its pid).
 */
export async function builtPackages(): Promise<string> {
  const key = contentKey();
  const done = join(cacheRoot, key);
  const lock = `${done}.lock`;
  mkdirSync(cacheRoot, { recursive: true });
  const deadline = Date.now() + 20 * 60_000;
  while (!existsSync(done)) {
    try {
      mkdirSync(lock);
    } catch {
      // Someone builds it: wait, unless it died without finishing.
      if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline)
        throw new Error(
          `built-package: waited 20 minutes for the build in ${lock}; remove that folder if no test runs`,
        );
      else await sleep(500);
      continue;
    }
    try {
      writeFileSync(join(lock, "pid"), String(process.pid));
      if (!existsSync(done)) await build(done);
      prune(key);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  // Marks it used, so that pruning (by other checkouts too) keeps it while tests copy it.
  utimesSync(done, new Date(), new Date());
  return done;
}

function holderAlive(lock: string): boolean {
  let pid = Number.NaN;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // Created a moment ago, its pid not yet written; or left by a process that died right then.
    const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
    return since !== undefined && Date.now() - since < 10_000;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Builds both packages into a scratch folder beside `done`, then renames it into place. */
async function build(done: string): Promise<void> {
  const scratch = `${done}.${process.pid}.tmp`;
  rmSync(scratch, { recursive: true, force: true });
  try {
    const lib = join(scratch, "controller-runtime");
    mkdirSync(lib, { recursive: true });
    copyFileSync(join(libraryDir, "package.json"), join(lib, "package.json"));
    for (const f of ["README.md", "LICENSE"]) copyFileSync(join(repo, f), join(lib, f));
    await run(
      process.execPath,
      [tsc, "-p", join(libraryDir, "tsconfig.build.json"), "--outDir", join(lib, "dist")],
      { cwd: repo, maxBuffer: 1 << 24 },
    );
    await buildServer(join(scratch, "controller-runtime-apiserver"), join(lib, "dist"), scratch);
    rmSync(join(scratch, "tsconfig.apiserver.json"));
    try {
      renameSync(scratch, done);
    } catch (err) {
      // Built meanwhile by a process whose lock looked stale (another machine's pid): the same content.
      if (!existsSync(done)) throw err;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Drops the builds beyond the few used last, once unused for an hour (other checkouts on this
 * machine may be copying theirs); their folders' times are when they were last used.
 */
function prune(current: string): void {
  const builds = readdirSync(cacheRoot)
    .filter((n) => /^[0-9a-f]{24}$/.test(n) && n !== current)
    .map((n) => ({ n, t: statSync(join(cacheRoot, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { n, t } of builds.slice(kept)) {
    if (Date.now() - t > 3_600_000) rmSync(join(cacheRoot, n), { recursive: true, force: true });
  }
}

/**
 * A hash of everything the build reads: both packages' sources (not their tests, which the build
 * excludes) and manifests, the build configurations, README and LICENSE, the bundle script, the
 * locked dependency versions (tsc's, esbuild's, the types'), and this file, the recipe.
 */
function contentKey(): string {
  const files = [
    ...sourcesUnder(join(libraryDir, "src")),
    ...sourcesUnder(join(serverDir, "src")),
    ...["package.json", "tsconfig.build.json"].flatMap((f) => [join(libraryDir, f), join(serverDir, f)]),
    join(serverDir, "README.md"),
    ...["tsconfig.json", "README.md", "LICENSE", "package-lock.json"].map((f) => join(repo, f)),
    join(repo, "scripts", "bundle-apiserver.mjs"),
    fileURLToPath(import.meta.url),
  ];
  const hash = createHash("sha256");
  for (const f of files) {
    hash.update(`${relative(repo, f)}\0`);
    hash.update(readFileSync(f));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 24);
}

function sourcesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourcesUnder(path, out);
    else if (!name.endsWith(".test.ts")) out.push(path);
  }
  return out;
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
  // The bundle compiles parts of the library into the server's script (scripts/bundle-apiserver.mjs):
  // esbuild finds the built library as an install would place it, beside the server in node_modules.
  const modules = join(scratch, "node_modules");
  mkdirSync(modules, { recursive: true });
  symlinkSync(join(scratch, "controller-runtime"), join(modules, "controller-runtime"), "dir");
  try {
    await run(process.execPath, [join(repo, "scripts", "bundle-apiserver.mjs")], { cwd: pkg });
  } finally {
    rmSync(modules, { recursive: true, force: true });
  }
}
