// kube-apiserver's bootstrap RBAC policy: at every start it makes sure the default roles and
// bindings exist (cluster-admin for system:masters, discovery and health for everyone, admin/edit/
// view built by aggregation, the system components' roles), leaving ones already there alone.
import type { ServerContext } from "../handlers/context.js";
import { normalizeOrder, prepareForCreate } from "../object/meta.js";
import { storeNameOf } from "../registry/index.js";
import type { Obj } from "../storage/index.js";
import * as policy from "./bootstrap-policy.generated.js";
import { rbacGroup } from "./rbac.js";

export function seedBootstrapPolicy(server: ServerContext): void {
  const sets: [string, readonly Obj[]][] = [
    ["clusterroles", policy.clusterroles],
    ["clusterrolebindings", policy.clusterrolebindings],
    ["roles", policy.roles],
    ["rolebindings", policy.rolebindings],
  ];
  for (const [resource, objects] of sets) {
    const def = server.registry.lookup(rbacGroup, "v1", resource)!;
    const store = storeNameOf(def);
    for (const o of objects) {
      const meta = o.metadata as { name: string; namespace?: string };
      if (server.storage.get(store, meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name)) continue;
      const obj: Obj = { kind: def.kind, apiVersion: `${rbacGroup}/v1`, ...structuredClone(o) };
      prepareForCreate(def, obj, meta.namespace ?? "", server.now());
      server.storage.put(store, normalizeOrder(def, obj));
    }
  }
}
