// Writes kube-apiserver makes on its own behalf (its allocators and its bootstrap controllers):
// stored as a client's would be, with metadata, field order, managedFields of the writing
// component, watch events and the server's reactions, but without a request or admission.
import type { ManagedFieldsEntry } from "kubernetes-types/meta/v1.js";
import type { ServerContext } from "../handlers/context.js";
import { type ResourceDefinition, storeNameOf } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { updateManagedFields } from "./managed-fields.js";
import { kubeTime, normalizeOrder, prepareForCreate } from "./meta.js";

function definition(server: ServerContext, group: string, resource: string): ResourceDefinition {
  const def = server.registry.lookup(group, "v1", resource);
  if (!def) throw new Error(`the server serves no ${resource}.${group}/v1`);
  return def;
}

const apiVersionOf = (def: ResourceDefinition) => (def.group ? `${def.group}/${def.version}` : def.version);

/**
 * Creates `obj` as `manager` (an Update, as kube's loopback clients write), with `extraFields`
 * entries before it (e.g. a controller's Apply of the status), and returns what was stored.
 */
export function createAsSystem(
  server: ServerContext,
  group: string,
  resource: string,
  obj: Obj,
  manager: string,
  extraFields: (time: string) => ManagedFieldsEntry[] = () => [],
): StoredObject {
  const def = definition(server, group, resource);
  const meta = obj.metadata as Obj;
  const now = server.now();
  prepareForCreate(def, obj, String(meta.namespace ?? ""), now);
  const time = kubeTime(now);
  const entries = [
    ...extraFields(time),
    ...updateManagedFields(undefined, obj, {
      manager,
      def,
      apiVersion: apiVersionOf(def),
      subresource: "",
      time,
      types: server.types,
    }),
  ];
  if (entries.length > 0) meta.managedFields = entries;
  const stored = server.storage.put(storeNameOf(def), normalizeOrder(def, obj));
  server.hooks.afterWrite(def, stored, undefined);
  return stored;
}

/** Removes an object as kube-apiserver's own clients delete it (no finalizers are expected). */
export function deleteAsSystem(server: ServerContext, group: string, resource: string, key: string): void {
  const def = definition(server, group, resource);
  const removed = server.storage.remove(storeNameOf(def), key);
  if (removed) server.hooks.afterDelete(def, removed);
}
