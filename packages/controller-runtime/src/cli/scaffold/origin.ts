// Where the running CLI came from, so that `init` writes dependencies `npm install` can resolve:
// the registry's version range when it was installed from the registry, else a `file:` spec for
// the tarball or folder it runs from. npm records how it resolved each package in the hidden
// lockfile `node_modules/.package-lock.json` (npx keeps one in its cache folder too): `resolved`
// is `file:<path>` for a tarball, a bare path with `link: true` for a folder, and a registry URL
// otherwise. A folder outside any node_modules (a clone's packages/controller-runtime, reached
// through a link) is its own origin.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { EMBEDDED_SERVER_PACKAGE } from "../../envtest/embedded-server.js";

/** Where one package comes from: the registry (a version range) or a local tarball or folder. */
export type PackageOrigin = { kind: "registry"; range: string } | { kind: "file"; path: string };

export interface Origins {
  library: PackageOrigin;
  server: PackageOrigin;
  /** What the reader should know: how an origin was chosen, when it is a guess. */
  notes: string[];
}

interface LockEntry {
  resolved?: string;
  link?: boolean;
}

// This package's folder: the same place relative to src/cli/scaffold and dist/cli/scaffold.
const ownRoot = fileURLToPath(new URL("../../../", import.meta.url));

function versionOf(root: string): string {
  return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * The origins of the library and of the embedded server for a new project. `library` and
 * `server` (the `--library` and `--apiserver` flags) override detection: a path on disk becomes
 * a `file:` origin, anything else is taken as an npm version range.
 */
export function detectOrigins(
  flags: { library?: string; server?: string },
  cwd: string,
  /** The library's folder (tests give another). Default: this package's. */
  libraryRoot = ownRoot,
): Origins {
  const root = realpathSync(libraryRoot);
  const version = versionOf(root);
  const registry: PackageOrigin = { kind: "registry", range: `^${version}` };
  const notes: string[] = [];
  const given = (value: string): PackageOrigin => {
    const path = resolve(cwd, value.replace(/^file:/, ""));
    return existsSync(path) ? { kind: "file", path } : { kind: "registry", range: value };
  };
  const library = flags.library ? given(flags.library) : originOf(root, registry);
  let server: PackageOrigin | undefined = flags.server ? given(flags.server) : undefined;
  if (!server && library.kind === "file") {
    const found = originOf(findInstalled(root, EMBEDDED_SERVER_PACKAGE), registry);
    const installed = found?.kind === "file" ? found : undefined;
    const beside = besideLibrary(library.path, version);
    // A library named by --library brings its server from beside it, not from where the CLI runs.
    server = flags.library ? (beside ?? installed) : (installed ?? beside);
    if (server?.kind === "file" && !server.path.endsWith(".tgz") && !existsSync(join(server.path, "dist"))) {
      notes.push(`${server.path} has no dist/: run npm run build in its repository before npm install`);
    }
    if (!server) {
      notes.push(
        `no ${EMBEDDED_SERVER_PACKAGE} found beside ${library.path}: wrote ${registry.range}, which resolves once it is published; pass --apiserver <tarball or folder> to use a local one`,
      );
    }
  }
  return { library, server: server ?? registry, notes };
}

/** The dependency spec of an origin in a project at `projectDir`: npm's relative `file:` form. */
export function specOf(origin: PackageOrigin, projectDir: string): string {
  if (origin.kind === "registry") return origin.range;
  const rel = relative(projectDir, origin.path).split(sep).join("/");
  return `file:${rel || "."}`;
}

/**
 * How the package at `installed` got there: the lockfile's `file:` origin, the folder itself when
 * it lies outside node_modules, `registry` otherwise; undefined when it is not installed.
 */
function originOf(installed: string, registry: PackageOrigin): PackageOrigin;
function originOf(installed: string | undefined, registry: PackageOrigin): PackageOrigin | undefined;
function originOf(installed: string | undefined, registry: PackageOrigin): PackageOrigin | undefined {
  if (!installed) return undefined;
  const real = realpathSync(installed);
  if (!real.split(sep).includes("node_modules")) return { kind: "file", path: real };
  // Installed as a copy at <base>/node_modules/<name>: ask npm's lockfile how it got there.
  const base = dirname(dirname(real));
  const key = `node_modules/${basename(real)}`;
  for (const lock of [join(base, "node_modules", ".package-lock.json"), join(base, "package-lock.json")]) {
    const entry = lockEntry(lock, key);
    if (!entry?.resolved) continue;
    if (entry.resolved.startsWith("file:")) {
      return { kind: "file", path: resolve(base, entry.resolved.slice("file:".length)) };
    }
    if (entry.link) return { kind: "file", path: resolve(base, entry.resolved) };
    break;
  }
  return registry;
}

/** `<dir>/node_modules/<name>` of the nearest ancestor of `from` that has one. */
function findInstalled(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The server's tarball beside the library's (as `npm pack` names it), or its workspace folder. */
function besideLibrary(libraryPath: string, version: string): PackageOrigin | undefined {
  const candidates = libraryPath.endsWith(".tgz")
    ? [join(dirname(libraryPath), `${EMBEDDED_SERVER_PACKAGE}-${version}.tgz`)]
    : [join(dirname(libraryPath), "apiserver"), join(dirname(libraryPath), EMBEDDED_SERVER_PACKAGE)];
  for (const path of candidates) {
    if (path.endsWith(".tgz") ? existsSync(path) : isPackage(path, EMBEDDED_SERVER_PACKAGE)) {
      return { kind: "file", path };
    }
  }
  return undefined;
}

function isPackage(dir: string, name: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name === name;
  } catch {
    return false;
  }
}

function lockEntry(path: string, key: string): LockEntry | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(path, "utf8")) as { packages?: Record<string, LockEntry> };
    return lock.packages?.[key];
  } catch {
    return undefined;
  }
}
