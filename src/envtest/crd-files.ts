// Reading CRD manifests from files and directories, as envtest's CRDInstallOptions.Paths does:
// .yaml, .yml and .json files, several documents per file, non-CRD documents skipped.
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

function readManifest(path: string): CustomResourceDefinition[] {
  const text = readFileSync(path, "utf8");
  const crds: CustomResourceDefinition[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      throw new CRDFileError(`envtest: ${path}: ${doc.errors[0]?.message}`);
    }
    const value = doc.toJS() as { kind?: string; apiVersion?: string } | null;
    if (
      value &&
      value.kind === "CustomResourceDefinition" &&
      value.apiVersion?.startsWith("apiextensions.k8s.io/")
    ) {
      crds.push(value as CustomResourceDefinition);
    }
  }
  return crds;
}

/** Reads every CRD in the given files and directories (directories are not recursed, as in envtest). */
export function readCRDs(paths: readonly string[], errorIfMissing: boolean): CustomResourceDefinition[] {
  const crds: CustomResourceDefinition[] = [];
  for (const path of paths) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      if (errorIfMissing) {
        throw new CRDFileError(`envtest: the CRD path ${path} does not exist (errorIfCRDPathMissing is set)`);
      }
      continue;
    }
    const files = stat.isDirectory()
      ? readdirSync(path)
          .filter((f) => manifestExtensions.has(extname(f)))
          .sort()
          .map((f) => join(path, f))
      : [path];
    for (const file of files) crds.push(...readManifest(file));
  }
  return crds;
}
