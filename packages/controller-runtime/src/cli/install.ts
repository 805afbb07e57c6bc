// `install` and `uninstall`: the project's CRDs (config/crd, as `generate` writes them) into or
// out of the cluster of the kubeconfig, as kubebuilder's `make install` and `make uninstall`.
import { relative, resolve } from "node:path";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { readCRDs } from "../crd/manifest-files.js";
import { installCRDs, uninstallCRDs } from "../envtest/crd-install.js";
import { getConfig, type RESTConfig } from "../rest/index.js";
import { CLIError } from "./errors.js";

/** How long a CRD may take to be Established and served (or to go) in a real cluster. */
const CRD_WAIT_MS = 60_000;

export interface ClusterFlags {
  kubeconfig?: string;
  /** CRD files and folders. Default: config/crd. */
  from?: string[];
}

/** The config of `--kubeconfig`, else KUBECONFIG, in-cluster or ~/.kube/config, as kubectl finds it. */
export function clusterConfig(kubeconfig: string | undefined): RESTConfig {
  try {
    return getConfig({ argv: [], ...(kubeconfig ? { kubeconfig } : {}) });
  } catch (err) {
    throw new CLIError(`${(err as Error).message}`, { cause: err });
  }
}

/** The project's CRDs; a clear error when there are none yet, unless `allowNone`. */
export function projectCRDs(
  dir: string,
  from: string[] | undefined,
  allowNone = false,
): CustomResourceDefinition[] {
  const paths = (from ?? ["config/crd"]).map((p) => resolve(dir, p));
  const where = paths.map((p) => relative(dir, p) || ".").join(", ");
  let crds: CustomResourceDefinition[];
  try {
    crds = readCRDs(paths, true);
  } catch (err) {
    throw new CLIError(`${(err as Error).message}: run npm run generate (or create api) first`, {
      cause: err,
    });
  }
  if (crds.length === 0 && !allowNone) {
    throw new CLIError(`no CRDs in ${where}: run npx controller-runtime create api, then npm run generate`);
  }
  return crds;
}

export async function install(dir: string, flags: ClusterFlags): Promise<string[]> {
  const crds = projectCRDs(dir, flags.from);
  const config = clusterConfig(flags.kubeconfig);
  const installed = await installCRDs(config, crds, { maxTimeMs: CRD_WAIT_MS }).catch((err: unknown) => {
    throw new CLIError(`installing CRDs into ${config.host}: ${(err as Error).message}`, { cause: err });
  });
  return installed.map((c) => `installed CRD ${c.metadata?.name} into ${config.host}`);
}

export async function uninstall(dir: string, flags: ClusterFlags): Promise<string[]> {
  const crds = projectCRDs(dir, flags.from);
  const config = clusterConfig(flags.kubeconfig);
  await uninstallCRDs(config, crds, { maxTimeMs: CRD_WAIT_MS }).catch((err: unknown) => {
    throw new CLIError(`deleting CRDs from ${config.host}: ${(err as Error).message}`, { cause: err });
  });
  // Deleting a CRD deletes every object of its kind, as `kubectl delete -k config/crd` does.
  return crds.map((c) => `deleted CRD ${c.metadata?.name} (and every object of it) from ${config.host}`);
}
