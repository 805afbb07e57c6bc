// What a fresh kube-apiserver holds before anyone writes: the system namespaces.
import { kindBehaviour } from "./kinds/index.js";
import type { ServerContext } from "./handlers/context.js";
import { normalizeOrder, prepareForCreate } from "./object/meta.js";
import { storeNameOf } from "./registry/index.js";
import type { Obj } from "./storage/index.js";

export const systemNamespaces = ["default", "kube-system", "kube-public", "kube-node-lease"];

export function seed(server: ServerContext): void {
  const def = server.registry.lookup("", "v1", "namespaces")!;
  for (const name of systemNamespaces) {
    if (server.storage.get(storeNameOf(def), name)) continue;
    const obj: Obj = { kind: "Namespace", apiVersion: "v1", metadata: { name } };
    kindBehaviour(def).defaults?.(obj, { old: undefined, server });
    prepareForCreate(def, obj, "", server.now());
    server.storage.put(storeNameOf(def), normalizeOrder(def, obj));
  }
}
