// Runs the bundled server's code (dist/bundle/server.cjs, built by scripts/bundle-apiserver.mjs)
// with a V8 code cache (issue #43). Compiling ~1.3 MB of JavaScript was a third of a cold start,
// and Node 20 caches no compiled ES modules (module.enableCompileCache is Node 22+), so the
// bundle's code is one CommonJS-style script run through vm.Script, whose `cachedData` V8 accepts:
// the bytecode of every function compiled in the first run (those run at start-up and by the
// first requests, not only the top level), written when that process exits and read by the next.
//
// The cache is a speed-up only: a missing, unreadable, rejected (another V8) or unwritable cache
// costs the compilation it would have saved, never the start. It is kept in the user's cache
// directory (XDG_CACHE_HOME or ~/.cache, then the system's temporary directory), in a folder of
// this user's (bytecode read from a folder someone else can write would be their code run as
// ours), one file per bundle (the build's hash of it: V8 itself checks only the source's length)
// and Node version. CONTROLLER_RUNTIME_APISERVER_CODE_CACHE=off reads and writes none.
import type { Script } from "node:vm";

// Node's modules from process.getBuiltinModule: imported as ES modules, each cost a start more.
const { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } =
  process.getBuiltinModule("node:fs");
const { builtinModules, createRequire } = process.getBuiltinModule("node:module");
const { homedir, tmpdir } = process.getBuiltinModule("node:os");
const { isAbsolute, join } = process.getBuiltinModule("node:path");
const { fileURLToPath } = process.getBuiltinModule("node:url");
const vm = process.getBuiltinModule("node:vm");

/** Caches kept per directory: one per bundle and Node version in use, the oldest dropped. */
const KEEP = 4;

export interface CachedScript {
  /** The script: esbuild's CommonJS output, its `import.meta.url` defined as `__importMetaUrl`. */
  file: URL;
  /** A hash of the script's text, made by the build. */
  key: string;
  /** The packages it requires, imported beforehand (ES modules cannot be required on Node 20.18). */
  imported: Record<string, unknown>;
  /** Where caches go; by default the user's cache directory, then the temporary directory. */
  dirs?: string[];
}

/** Runs the script; returns its exports. */
export function runCachedScript(opts: CachedScript): Record<string, unknown> {
  const filename = fileURLToPath(opts.file);
  // ASCII (the build escapes the rest): Latin-1 is read without decoding UTF-8.
  const source = readFileSync(filename, "latin1");
  const off = process.env.CONTROLLER_RUNTIME_APISERVER_CODE_CACHE === "off";
  const dir = off ? undefined : (opts.dirs ?? defaultDirs()).find(ownDirectory);
  const path = dir && join(dir, `${opts.key}-node${process.version}-${process.arch}.v8cache`);
  const cachedData = path ? readIfAny(path) : undefined;

  const imported = new Map(Object.entries(opts.imported));
  const nodeRequire = createRequire(opts.file);
  const require = (id: string): unknown => {
    if (imported.has(id)) return imported.get(id);
    if (id.startsWith("node:") || builtinModules.includes(id)) return nodeRequire(id);
    throw new Error(
      `internal error: the API server's code requires ${id} before importing it: import it before the module that uses it (packages/apiserver/src/lazy.ts)`,
    );
  };
  // One line with the script's first, so that stack traces keep its line numbers.
  const wrapped = `(function (exports, require, module, __filename, __importMetaUrl, __import) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename, cachedData });
  // Its `import()` of packages (the build made them `__import`): the modules it imports on first
  // use (lazy.ts), the packages' own ES modules shared with the rest of the process; once
  // imported, its `require` of them answers them too.
  const importPackage = async (specifier: string) => {
    const ns: unknown = await import(specifier);
    imported.set(specifier, ns);
    return ns;
  };
  const module = { exports: {} as Record<string, unknown> };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    require,
    module,
    filename,
    opts.file.href,
    importPackage,
  );
  const used = cachedData !== undefined && !script.cachedDataRejected;
  // Written when the process exits, with what it compiled by then: the next start needs it all.
  if (path && !used) process.once("exit", () => writeCache(path, script, opts.key));
  return module.exports;
}

function defaultDirs(): string[] {
  const xdg = process.env.XDG_CACHE_HOME;
  // XDG: a relative path is to be ignored.
  const user = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  const uid = process.getuid?.() ?? "user";
  return [
    join(user, "controller-runtime-ts", "apiserver-code"),
    // Straight under the temporary directory, whose sticky bit keeps others from moving it.
    join(tmpdir(), `controller-runtime-ts-${uid}-apiserver-code`),
  ];
}

/** Whether `dir` exists or could be made, and is this user's and writable by no one else. */
function ownDirectory(dir: string): boolean {
  try {
    // Made when missing; not a link, which could be moved meanwhile.
    if (!lstatSync(dir, { throwIfNoEntry: false })) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || (st.uid === uid && (st.mode & 0o022) === 0));
  } catch {
    return false;
  }
}

function readIfAny(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function writeCache(path: string, script: Script, key: string): void {
  try {
    // Written aside and renamed: a process starting meanwhile reads the old file or the new one.
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
    renameSync(partial, path);
    dropOldest(join(path, ".."), key);
  } catch {
    // A cache not written is a start not sped up.
  }
}

function dropOldest(dir: string, key: string): void {
  const caches = readdirSync(dir)
    .filter((f) => f.endsWith(".v8cache") && !f.startsWith(key))
    .map((f) => ({ f, mtime: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { f } of caches.slice(KEEP - 1)) unlinkSync(join(dir, f));
}
