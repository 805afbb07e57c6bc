// What `init` writes as the library's and the server's dependency, from where the CLI runs: npm's
// hidden lockfile for an installed copy (as npm and npx leave one), the folder of a clone, the
// registry otherwise; and what --library and --apiserver say instead.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { detectOrigins, specOf } from "./origin.js";

const scratch = mkdtempSync(join(tmpdir(), "cr-origin-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** `<base>/node_modules/<name>` with a package.json, and npm's hidden lockfile entry for it. */
function installed(base: string, packages: Record<string, { resolved?: string; link?: boolean }>): void {
  for (const name of Object.keys(packages)) {
    mkdirSync(join(base, "node_modules", name), { recursive: true });
    writeFileSync(
      join(base, "node_modules", name, "package.json"),
      JSON.stringify({ name, version: "1.2.3" }),
    );
  }
  const lock = Object.fromEntries(Object.entries(packages).map(([n, e]) => [`node_modules/${n}`, e]));
  writeFileSync(join(base, "node_modules", ".package-lock.json"), JSON.stringify({ packages: lock }));
}

const specs = (o: ReturnType<typeof detectOrigins>, project: string) => ({
  library: specOf(o.library, project),
  server: specOf(o.server, project),
});

test("installed from tarballs: file: specs to both, relative to the project", () => {
  const base = join(scratch, "tarballs", "op");
  installed(base, {
    "controller-runtime": { resolved: "file:../controller-runtime-1.2.3.tgz" },
    "controller-runtime-apiserver": { resolved: "file:../controller-runtime-apiserver-1.2.3.tgz" },
  });
  const o = detectOrigins({}, base, join(base, "node_modules", "controller-runtime"));
  assert.deepEqual(specs(o, join(base, "new-project")), {
    library: "file:../../controller-runtime-1.2.3.tgz",
    server: "file:../../controller-runtime-apiserver-1.2.3.tgz",
  });
  assert.deepEqual(o.notes, []);
});

test("run by npx from a tarball: the server's tarball beside the library's, else the registry and a note", () => {
  const tarballs = join(scratch, "npx");
  const cache = join(tarballs, "cache");
  installed(cache, { "controller-runtime": { resolved: "file:../lib/controller-runtime-1.2.3.tgz" } });
  mkdirSync(join(tarballs, "lib"));
  writeFileSync(join(tarballs, "lib", "controller-runtime-1.2.3.tgz"), "");
  const root = join(cache, "node_modules", "controller-runtime");
  const project = join(tarballs, "op");
  const alone = detectOrigins({}, project, root);
  assert.deepEqual(specs(alone, project), {
    library: "file:../lib/controller-runtime-1.2.3.tgz",
    server: "^1.2.3",
  });
  assert.match(
    alone.notes.join("\n"),
    /no controller-runtime-apiserver found beside .*: wrote \^1\.2\.3.*--apiserver/,
  );

  writeFileSync(join(tarballs, "lib", "controller-runtime-apiserver-1.2.3.tgz"), "");
  assert.deepEqual(specs(detectOrigins({}, project, root), project), {
    library: "file:../lib/controller-runtime-1.2.3.tgz",
    server: "file:../lib/controller-runtime-apiserver-1.2.3.tgz",
  });
});

test("linked from a clone: the package folders themselves", () => {
  const clone = join(scratch, "clone");
  for (const [dir, name] of [
    ["controller-runtime", "controller-runtime"],
    ["apiserver", "controller-runtime-apiserver"],
  ] as const) {
    mkdirSync(join(clone, "packages", dir, "dist"), { recursive: true });
    writeFileSync(join(clone, "packages", dir, "package.json"), JSON.stringify({ name, version: "1.2.3" }));
  }
  // The workspace's links, as `npm ci` in the clone makes them.
  mkdirSync(join(clone, "node_modules"));
  symlinkSync(
    join(clone, "packages", "apiserver"),
    join(clone, "node_modules", "controller-runtime-apiserver"),
  );
  const project = join(scratch, "linked-op");
  assert.deepEqual(
    specs(detectOrigins({}, project, join(clone, "packages", "controller-runtime")), project),
    {
      library: "file:../clone/packages/controller-runtime",
      server: "file:../clone/packages/apiserver",
    },
  );
});

test("installed from the registry, or from nowhere npm recorded: the version range", () => {
  const base = join(scratch, "registry");
  installed(base, {
    "controller-runtime": {
      resolved: "https://registry.npmjs.org/controller-runtime/-/controller-runtime-1.2.3.tgz",
    },
  });
  const project = join(base, "op");
  assert.deepEqual(
    specs(detectOrigins({}, project, join(base, "node_modules", "controller-runtime")), project),
    {
      library: "^1.2.3",
      server: "^1.2.3",
    },
  );
});

test("--library and --apiserver: a path becomes file:, anything else is an npm range", () => {
  const base = join(scratch, "flags");
  installed(base, { "controller-runtime": {} });
  writeFileSync(join(base, "lib.tgz"), "");
  writeFileSync(join(base, "server.tgz"), "");
  const root = join(base, "node_modules", "controller-runtime");
  const project = join(base, "op");
  assert.deepEqual(specs(detectOrigins({ library: "lib.tgz", server: "server.tgz" }, base, root), project), {
    library: "file:../lib.tgz",
    server: "file:../server.tgz",
  });
  assert.deepEqual(specs(detectOrigins({ library: "^2.0.0", server: "next" }, base, root), project), {
    library: "^2.0.0",
    server: "next",
  });
});
