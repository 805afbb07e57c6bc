// Installs CRDs and waits until the API server serves them: each CRD `Established`, then its
// resources present in discovery, as controller-runtime's envtest waits (WaitForCRDs).
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import type { APIResourceList } from "kubernetes-types/meta/v1.js";
import { kinds } from "../api/index.js";
import { newRESTClient, isAlreadyExists, isNotFound, resourceOf } from "../rest/index.js";
import type { RESTConfig } from "../rest/index.js";

export interface CRDInstallOptions {
  /** How long to wait for every CRD to be served. Default: 10 s. */
  maxTimeMs?: number;
  /** Time between polls. Default: 50 ms. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

const crdResource = resourceOf(kinds.CustomResourceDefinition);

function established(crd: CustomResourceDefinition): boolean {
  return (crd.status?.conditions ?? []).some((c) => c.type === "Established" && c.status === "True");
}

/** Creates (or updates) each CRD, then waits until all are established and discoverable. */
export async function installCRDs(
  config: RESTConfig,
  crds: readonly CustomResourceDefinition[],
  opts: CRDInstallOptions = {},
): Promise<CustomResourceDefinition[]> {
  const client = newRESTClient(config);
  const deadline = Date.now() + (opts.maxTimeMs ?? 10_000);
  const poll = opts.pollIntervalMs ?? 50;
  const signal = opts.signal;
  try {
    const installed: CustomResourceDefinition[] = [];
    for (const crd of crds) {
      const name = crd.metadata?.name ?? "";
      try {
        installed.push(await client.create(crdResource, crd, { signal }));
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        const existing = await client.get<CustomResourceDefinition>(crdResource, name, { signal });
        const next = {
          ...crd,
          metadata: { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion },
        };
        installed.push(await client.update(crdResource, next, { signal }));
      }
    }
    for (const crd of installed) {
      const name = crd.metadata?.name ?? "";
      for (;;) {
        const current = await client.get<CustomResourceDefinition>(crdResource, name, { signal });
        if (established(current) && (await discoverable(current))) break;
        if (Date.now() > deadline) {
          throw new Error(
            `envtest: CRD ${name} was not established and served within ${opts.maxTimeMs ?? 10_000} ms`,
          );
        }
        await new Promise((r) => setTimeout(r, poll));
      }
    }
    return installed;
  } finally {
    await client.close();
  }

  async function discoverable(crd: CustomResourceDefinition): Promise<boolean> {
    const { group, names, versions } = crd.spec;
    for (const v of versions.filter((x) => x.served)) {
      try {
        const list = await client.request<APIResourceList>({ path: `/apis/${group}/${v.name}`, signal });
        if (!list.resources.some((r) => r.name === names.plural)) return false;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    }
    return true;
  }
}

/** Deletes the given CRDs and waits until they are gone. */
export async function uninstallCRDs(
  config: RESTConfig,
  crds: readonly CustomResourceDefinition[],
  opts: CRDInstallOptions = {},
): Promise<void> {
  const client = newRESTClient(config);
  const deadline = Date.now() + (opts.maxTimeMs ?? 10_000);
  try {
    for (const crd of crds) {
      const name = crd.metadata?.name ?? "";
      try {
        await client.delete(crdResource, name, { signal: opts.signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    for (const crd of crds) {
      for (;;) {
        try {
          await client.get(crdResource, crd.metadata?.name ?? "", { signal: opts.signal });
        } catch (err) {
          if (isNotFound(err)) break;
          throw err;
        }
        if (Date.now() > deadline)
          throw new Error(`envtest: CRD ${crd.metadata?.name} was not deleted in time`);
        await new Promise((r) => setTimeout(r, opts.pollIntervalMs ?? 50));
      }
    }
  } finally {
    await client.close();
  }
}
