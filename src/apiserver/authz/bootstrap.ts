// kube-apiserver's bootstrap RBAC policy: at every start it makes sure the default roles and
// bindings exist (cluster-admin for system:masters, discovery and health for everyone, admin/edit/
// view built by aggregation, the system components' roles), leaving ones already there alone.
// The objects are prepared (aggregated, defaulted, in kube's field order) once per process; each
// start only gives them their own uid and creation time.
import { randomUUID } from "node:crypto";
import type { ServerContext } from "../handlers/context.js";
import { kubeTime, normalizeOrder, prepareForCreate } from "../object/meta.js";
import type { Registry } from "../registry/index.js";
import { storeNameOf } from "../registry/index.js";
import type { Obj } from "../storage/index.js";
import { aggregate } from "./aggregation.js";
import * as policy from "./bootstrap-policy.generated.js";
import { rbacGroup } from "./rbac.js";

/**
 * Rules kube's bootstrap policy gained after the 1.26 server the generated policy was read from,
 * up to the version the embedded server reports (plugin/pkg/auth/authorizer/rbac/bootstrappolicy).
 */
const LATER_RULES: Record<string, Obj[]> = {
  // 1.28: SelfSubjectReview GA, for everyone (kubectl auth whoami).
  "system:basic-user": [
    { verbs: ["create"], apiGroups: ["authentication.k8s.io"], resources: ["selfsubjectreviews"] },
  ],
};

interface Prepared {
  store: string;
  key: string;
  json: string;
}

let prepared: Prepared[] | undefined;

function prepare(registry: Registry): Prepared[] {
  const aggregated = aggregate(
    policy.clusterroles.map((obj) => ({ name: (obj.metadata as { name: string }).name, obj })),
  );
  const sets: [string, readonly Obj[]][] = [
    ["clusterroles", policy.clusterroles],
    ["clusterrolebindings", policy.clusterrolebindings],
    ["roles", policy.roles],
    ["rolebindings", policy.rolebindings],
  ];
  const out: Prepared[] = [];
  for (const [resource, objects] of sets) {
    const def = registry.lookup(rbacGroup, "v1", resource)!;
    for (const o of objects) {
      const meta = o.metadata as { name: string; namespace?: string };
      const obj: Obj = { kind: def.kind, apiVersion: `${rbacGroup}/v1`, ...structuredClone(o) };
      const rules = resource === "clusterroles" ? aggregated.get(meta.name) : undefined;
      if (rules) obj.rules = structuredClone(rules);
      const later = resource === "clusterroles" ? LATER_RULES[meta.name] : undefined;
      if (later) obj.rules = [...((obj.rules as Obj[] | undefined) ?? []), ...structuredClone(later)];
      prepareForCreate(def, obj, meta.namespace ?? "", new Date(0));
      out.push({
        store: storeNameOf(def),
        key: meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name,
        json: JSON.stringify(normalizeOrder(def, obj)),
      });
    }
  }
  return out;
}

export function seedBootstrapPolicy(server: ServerContext): void {
  prepared ??= prepare(server.registry);
  const created = kubeTime(server.now());
  for (const p of prepared) {
    if (server.storage.get(p.store, p.key)) continue;
    const obj = JSON.parse(p.json) as Obj;
    const meta = obj.metadata as Obj;
    meta.uid = randomUUID();
    meta.creationTimestamp = created;
    server.storage.put(p.store, obj);
  }
}
