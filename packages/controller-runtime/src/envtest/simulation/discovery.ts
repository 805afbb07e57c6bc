// The kinds a simulated cluster controller acts on: every resource the server lists, watches and
// deletes, at its group's preferred version (the set kube-controller-manager's garbage collector
// and namespace controller discover), as metadata-only Kinds.
import { defineKind, type Kind } from "../../api/index.js";
import { metadataOnly, type PartialObjectMetadata } from "../../cache/index.js";
import { fetchGroupVersions, fetchResources } from "../../mapper/discovery.js";
import type { APIGroupList } from "kubernetes-types/meta/v1.js";
import type { RESTClient } from "../../rest/index.js";

export interface DiscoveredKind {
  kind: Kind<PartialObjectMetadata>;
  namespaced: boolean;
}

// Events are many and never owners; leases churn. Neither is collected by kube's GC in practice.
const SKIPPED = new Set(["events", "events.events.k8s.io"]);

export async function discoverDeletableKinds(
  rest: RESTClient,
  timeoutMs = 10_000,
): Promise<DiscoveredKind[]> {
  const groups = await rest.request<APIGroupList>({ path: "/apis", timeoutMs });
  const names = ["", ...(groups.groups ?? []).map((g) => g.name)];
  const out: DiscoveredKind[] = [];
  for (const group of names) {
    const versions = await fetchGroupVersions(rest, group, timeoutMs);
    if (!versions) continue;
    const resources = (await fetchResources(rest, group, versions.preferred, timeoutMs)) ?? [];
    for (const r of resources) {
      const verbs = new Set(r.verbs);
      if (!verbs.has("list") || !verbs.has("watch") || !verbs.has("delete")) continue;
      if (SKIPPED.has(group ? `${r.name}.${group}` : r.name)) continue;
      const kind = defineKind({
        group,
        version: versions.preferred,
        kind: r.kind,
        plural: r.name,
        namespaced: r.namespaced,
      });
      out.push({ kind: metadataOnly(kind), namespaced: r.namespaced });
    }
  }
  return out;
}
