// Objects and waits shared by the tests that talk to an API server: a namespace of its own per
// test, ConfigMaps, and waiting for a condition with envtest's eventually().
import { randomUUID } from "node:crypto";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { eventually } from "controller-runtime/envtest";
import { type RESTClient, resourceOf } from "controller-runtime/rest";

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
