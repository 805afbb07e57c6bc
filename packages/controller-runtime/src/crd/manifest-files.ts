// Reading manifests (CRDs, RBAC) from files and directories, for envtest and the CLI, as envtest's
// CRDInstallOptions.Paths does: .yaml, .yml and .json files, several documents per file, documents
// of other kinds skipped.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { parseAllDocuments } from "yaml";

const manifestExtensions = new Set([".yaml", ".yml", ".json"]);

/** Thrown when a CRD path is missing (with `errorIfCRDPathMissing`) or a manifest cannot be read. */
export class CRDFileError extends Error {
  override readonly name = "CRDFileError";
  readonly code = "ERR_ENVTEST_CRD_FILE";
}

/** A manifest document: what is read of every object. */
export interface ManifestObject {
  kind?: string;
  apiVersion?: string;
  [field: string]: unknown;
}

function readManifest(path: string, keep: (o: ManifestObject) => boolean): ManifestObject[] {
  const text = readFileSync(path, "utf8");
  const out: ManifestObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      throw new CRDFileError(`envtest: ${path}: ${doc.errors[0]?.message}`);
    }
    const value = doc.toJS() as ManifestObject | null;
    if (value && typeof value === "object" && keep(value)) out.push(value);
  }
  return out;
}

/**
 * Reads the objects `keep` accepts from files and directories (.yaml, .yml, .json; several
 * documents per file; directories are not recursed, as in envtest). A missing path is skipped,
 * unless `missing` answers an error for it.
 */
export function readManifestObjects(
  paths: readonly string[],
  keep: (o: ManifestObject) => boolean,
  missing: (path: string) => Error | undefined = () => undefined,
): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const path of paths) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      const err = missing(path);
      if (err) throw err;
      continue;
    }
    const files = stat.isDirectory()
      ? readdirSync(path)
          .filter((f) => manifestExtensions.has(extname(f)))
          .sort()
          .map((f) => join(path, f))
      : [path];
    for (const file of files) out.push(...readManifest(file, keep));
  }
  return out;
}

/** Reads every CRD in the given files and directories (directories are not recursed, as in envtest). */
export function readCRDs(paths: readonly string[], errorIfMissing: boolean): CustomResourceDefinition[] {
  const isCRD = (o: ManifestObject) =>
    o.kind === "CustomResourceDefinition" && (o.apiVersion?.startsWith("apiextensions.k8s.io/") ?? false);
  const missing = (path: string) =>
    errorIfMissing
      ? new CRDFileError(`envtest: the CRD path ${path} does not exist (errorIfCRDPathMissing is set)`)
      : undefined;
  return readManifestObjects(paths, isCRD, missing) as unknown as CustomResourceDefinition[];
}
