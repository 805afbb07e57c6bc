// Helpers the simulated controllers share: listing what an object controls, straight from the
// API server. Kube's own controllers read a cache and keep "expectations" of the creates and
// deletes in flight; a live list is the simple stand-in, and never counts a Pod twice.
import type { DeepReadonly, Kind, KubeObject } from "../../api/index.js";
import type { ClientReader } from "../../client/index.js";
import { getControllerOf } from "../../controllerutil/index.js";

export async function listControlled<T extends KubeObject>(
  reader: ClientReader,
  kind: Kind<T>,
  owner: DeepReadonly<KubeObject>,
  signal: AbortSignal,
): Promise<DeepReadonly<T>[]> {
  const list = await reader.list(kind, { inNamespace: owner.metadata?.namespace, signal });
  return list.items.filter(
    (o) => getControllerOf(o)?.uid === owner.metadata?.uid && !o.metadata?.deletionTimestamp,
  );
}

/** The controller reference kube's controllers set on what they create. */
export function controlledBy(owner: DeepReadonly<KubeObject>) {
  return {
    apiVersion: owner.apiVersion ?? "",
    kind: owner.kind ?? "",
    name: owner.metadata?.name ?? "",
    uid: owner.metadata?.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}
