// Helpers shared by the cache's tests (not exported from the folder's index).
import { randomUUID } from "node:crypto";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../../api/index.js";
import { eventually } from "../../envtest/index.js";
import { type RESTClient, resourceOf } from "../../rest/index.js";

/** Waits until `cond` holds, 15 s at most (informers over real HTTP, on a loaded machine). */
export async function until(what: string, cond: () => boolean | Promise<boolean>): Promise<void> {
  await eventually(what, cond, { timeoutMs: 15_000, intervalMs: 5 });
}

/** A namespace of its own for one test: `<prefix>-<random>`. */
export async function newNamespace(rest: RESTClient, prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await rest.create(resourceOf(kinds.Namespace), { metadata: { name } });
  return name;
}

export function configMap(
  namespace: string,
  name: string,
  data: Record<string, string> = {},
  labels?: Record<string, string>,
): ConfigMap {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data };
}
