// `generate crds`: the CRD manifests of every defineCRD definition exported by the modules under
// --from (TypeScript loaded through the project's tsx), one file per CRD named as controller-gen
// names them (<group>_<plural>.yaml).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { stringify } from "yaml";
import { CLIError } from "./errors.js";
import { GENERATED } from "./outputs.js";

/** The CRDs defined in the modules at `paths` (files or folders, not recursed into tests). */
export async function loadDefinedCRDs(
  paths: readonly string[],
): Promise<Map<string, { crd: CustomResourceDefinition; from: string }>> {
  const found = new Map<string, { crd: CustomResourceDefinition; from: string }>();
  const load = await moduleLoader();
  for (const file of paths.flatMap((p) => moduleFiles(resolve(p)))) {
    const exports = (await load(file).catch((err: unknown) => {
      // A package the definition imports is missing: the project's install, not the definition.
      if ((err as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw err;
      throw new CLIError(`loading ${file}: ${(err as Error).message.split("\n")[0]}: run npm install first`, {
        cause: err,
      });
    })) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      const crd = (value as { crd?: CustomResourceDefinition } | null)?.crd;
      if (crd?.kind !== "CustomResourceDefinition" || !crd.metadata?.name) continue;
      const seen = found.get(crd.metadata.name);
      if (seen && seen.from !== file) {
        throw new CLIError(`${crd.metadata.name} is defined twice: in ${seen.from} and in ${file}`);
      }
      found.set(crd.metadata.name, { crd, from: file });
    }
  }
  return found;
}

/** `<group>_<plural>.yaml` → its manifest, for every defined CRD. */
export function crdManifests(
  crds: Map<string, { crd: CustomResourceDefinition; from: string }>,
  outDir: string,
): Map<string, string> {
  const files = new Map<string, string>();
  for (const { crd, from } of [...crds.values()].sort((a, b) =>
    a.crd.metadata!.name!.localeCompare(b.crd.metadata!.name!),
  )) {
    const header = `${GENERATED} (generate crds) from ${relativeToCwd(from)}. Do not edit: change the definition.\n`;
    files.set(
      join(outDir, `${crd.spec.group}_${crd.spec.names.plural}.yaml`),
      `${header}---\n${stringify(crd, { lineWidth: 0 })}`,
    );
  }
  return files;
}

function relativeToCwd(path: string): string {
  const cwd = `${process.cwd()}/`;
  return path.startsWith(cwd) ? path.slice(cwd.length) : path;
}

function moduleFiles(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw new CLIError(`--from ${path}: no such file or folder`);
  }
  if (!stat.isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => [".ts", ".mts", ".js", ".mjs"].includes(extname(f)) && !/\.(test|d)\.[mc]?[tj]s$/.test(f))
    .sort()
    .map((f) => join(path, f));
}

// TypeScript definitions load through tsx, found from the project (where `npm install -D tsx` puts
// it) or, failing that, beside this package.
async function moduleLoader(): Promise<(file: string) => Promise<unknown>> {
  for (const base of [join(process.cwd(), "package.json"), import.meta.url]) {
    try {
      // The ESM build, found through tsx's own exports map (require.resolve would give the CJS one).
      const pkgPath = createRequire(base).resolve("tsx/package.json");
      const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as {
        exports: Record<string, { import?: { default?: string } }>;
      };
      const entry = pkg.exports["./esm/api"]?.import?.default;
      if (!entry) continue;
      const { tsImport } = (await import(pathToFileURL(join(dirname(pkgPath), entry)).href)) as {
        tsImport: (file: string, parent: string) => Promise<unknown>;
      };
      return (file) => tsImport(pathToFileURL(file).href, import.meta.url);
    } catch {
      // try the next place
    }
  }
  return async (file) => {
    if (/\.m?ts$/.test(file)) {
      throw new CLIError(
        `${file} is TypeScript: generate crds loads it through tsx (npm install --save-dev tsx)`,
      );
    }
    return import(pathToFileURL(file).href);
  };
}
