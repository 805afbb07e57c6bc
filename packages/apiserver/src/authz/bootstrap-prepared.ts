// The bootstrap policy read from kube-apiserver (bootstrap-policy.generated.ts) made ready to
// store: ClusterRoles aggregated, the rules kube added after 1.26, defaults, kube's field order.
// scripts/gen-bootstrap-prepared.ts writes the result to bootstrap-prepared.generated.ts, which
// the server seeds from; bootstrap.test.ts checks that file holds what this makes today, so a
// change to the policy or to the code below shows up as a failing test, not as a stale seed.
import { normalizeOrder, prepareForCreate } from "../object/meta.js";
import { builtinResources, Registry, storeNameOf } from "../registry/index.js";
import type { Obj } from "../storage/index.js";
import { aggregate } from "./aggregation.js";
import type { PreparedObject } from "./bootstrap-prepared.generated.js";
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

/** The policy as the embedded server stores it; each object's uid empty, its creation time zero. */
export function preparePolicy(): PreparedObject[] {
  const registry = new Registry(builtinResources());
  const aggregated = aggregate(
    policy.clusterroles.map((obj) => ({ name: (obj.metadata as { name: string }).name, obj })),
  );
  const sets: [string, readonly Obj[]][] = [
    ["clusterroles", policy.clusterroles],
    ["clusterrolebindings", policy.clusterrolebindings],
    ["roles", policy.roles],
    ["rolebindings", policy.rolebindings],
  ];
  const out: PreparedObject[] = [];
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
      (obj.metadata as Obj).uid = ""; // each start gives its own
      out.push({
        store: storeNameOf(def),
        key: meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name,
        json: JSON.stringify(normalizeOrder(def, obj)),
      });
    }
  }
  return out;
}
