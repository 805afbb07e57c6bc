// Aggregated discovery (apidiscovery.k8s.io/v2 APIGroupDiscoveryList): every group, version and
// resource of /api or /apis in one document, as client-go's discovery asks for it first. Built
// from the same entries as the legacy documents: a built-in group version's converted as
// apiserver's ConvertGroupVersionIntoToDiscovery converts its APIResourceList, a custom resource
// group's as apiextensions' discovery controller writes it; groups and versions ordered by the
// merged handler's priorities (kube-aggregator's own group at 20001). The ETag is kube's: the
// SHA-512 of the document's JSON without its type, so an unchanged document is a 304.
import { createHash } from "node:crypto";
import { apiResources, orderedGroups, type Priorities } from "./discovery.js";
import type { Registry, ResourceDefinition } from "./registry/index.js";

type Entry = Record<string, unknown>;

/** kube-aggregator's own group comes first in the merged document. */
const APIREGISTRATION_PRIORITY = 20001;

function gvk(group: unknown, version: unknown, kind: unknown): Entry {
  return { group: group ?? "", version: version ?? "", kind };
}

const scopeOf = (namespaced: unknown) => (namespaced ? "Namespaced" : "Cluster");

/** ConvertGroupVersionIntoToDiscovery: resources, with their subresources under them. */
function builtinResources(list: readonly Entry[]): Entry[] {
  const out: Entry[] = [];
  const parents = new Map<string, Entry>();
  for (const r of list) {
    const name = r.name as string;
    if (name.includes("/")) continue;
    const resource: Entry = {
      resource: name,
      responseKind: gvk(r.group, r.version, r.kind),
      scope: scopeOf(r.namespaced),
      singularResource: r.singularName,
      verbs: r.verbs,
    };
    if (r.shortNames) resource.shortNames = r.shortNames;
    if (r.categories) resource.categories = r.categories;
    out.push(resource);
    parents.set(name, resource);
  }
  for (const r of list) {
    const name = r.name as string;
    const slash = name.indexOf("/");
    if (slash < 0) continue;
    let parent = parents.get(name.slice(0, slash));
    if (!parent) {
      // A subresource without its resource gets an empty one.
      parent = {
        resource: name.slice(0, slash),
        responseKind: gvk("", "", ""),
        scope: scopeOf(r.namespaced),
      };
      out.push(parent);
      parents.set(name.slice(0, slash), parent);
    }
    const sub: Entry = {
      subresource: name.slice(slash + 1),
      responseKind: r.kind ? gvk(r.group, r.version, r.kind) : gvk("", "", ""),
      verbs: r.verbs,
    };
    parent.subresources = [...((parent.subresources as Entry[] | undefined) ?? []), sub];
  }
  return out;
}

const SUBRESOURCE_VERBS = ["get", "patch", "update"];

/** apiextensions' discovery controller: each CRD's resource, /status then /scale, sorted by name. */
function customResources(defs: readonly ResourceDefinition[]): Entry[] {
  return [...defs]
    .sort((a, b) => (a.plural < b.plural ? -1 : 1))
    .map((def) => {
      const kind = gvk(def.group, def.version, def.kind);
      const resource: Entry = {
        resource: def.plural,
        responseKind: kind,
        scope: scopeOf(def.namespaced),
        singularResource: def.singular,
        verbs: def.verbs,
      };
      if (def.shortNames.length > 0) resource.shortNames = def.shortNames;
      if (def.categories.length > 0) resource.categories = def.categories;
      const subresources: Entry[] = [];
      if (def.statusSubresource)
        subresources.push({ subresource: "status", responseKind: kind, verbs: SUBRESOURCE_VERBS });
      if (def.scale) {
        subresources.push({
          subresource: "scale",
          responseKind: gvk("autoscaling", "v1", "Scale"),
          verbs: SUBRESOURCE_VERBS,
        });
      }
      if (subresources.length > 0) resource.subresources = subresources;
      return resource;
    });
}

function versionEntry(registry: Registry, group: string, version: string): Entry {
  const defs = registry.inGroupVersion(group, version);
  const resources = defs.every((d) => d.crdName)
    ? customResources(defs)
    : builtinResources(apiResources(registry, group, version));
  return { version, resources, freshness: "Current" };
}

export interface AggregatedDocument {
  /** The APIGroupDiscoveryList without its type, as kube hashes it. */
  untyped: string;
  /** The quoted ETag. */
  etag: string;
}

/** The last document of each root, by what it was built from (discovery is asked for often). */
const built = new WeakMap<Registry, Map<string, { key: string; doc: AggregatedDocument }>>();

/** The aggregated document of `/api` (the core group) or `/apis` (every other group). */
export function aggregatedDiscovery(
  registry: Registry,
  priorities: Priorities,
  root: "api" | "apis",
): AggregatedDocument {
  const key = `${registry.generation}|${priorities.key}`;
  let roots = built.get(registry);
  if (!roots) {
    roots = new Map();
    built.set(registry, roots);
  }
  const cached = roots.get(root);
  if (cached?.key === key) return cached.doc;
  const doc = buildDocument(registry, priorities, root);
  roots.set(root, { key, doc });
  return doc;
}

function buildDocument(registry: Registry, priorities: Priorities, root: "api" | "apis"): AggregatedDocument {
  let items: Entry[];
  if (root === "api") {
    const versions = registry.groups().find((g) => g.name === "")?.versions ?? [];
    items = [{ metadata: {}, versions: versions.map((v) => versionEntry(registry, "", v)) }];
  } else {
    const groups = orderedGroups(registry, priorities);
    const priority = (name: string, versions: string[]) =>
      name === "apiregistration.k8s.io"
        ? APIREGISTRATION_PRIORITY
        : Math.max(...versions.map((v) => priorities.of(name, v).group));
    // The merged handler orders groups by priority, then name (not by APIService name).
    const ranked = groups
      .map((g) => ({ ...g, priority: priority(g.name, g.versions) }))
      .sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : 1));
    items = ranked.map((g) => ({
      metadata: { name: g.name },
      versions: g.versions.map((v) => versionEntry(registry, g.name, v)),
    }));
  }
  const untyped = JSON.stringify({ metadata: {}, items });
  const etag = `"${createHash("sha512").update(untyped).digest("hex").toUpperCase()}"`;
  return { untyped, etag };
}

/** The document with its type, in the version the client asked for. */
export function typedDocument(doc: AggregatedDocument, version: string): string {
  return `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/${version}",${doc.untyped.slice(1)}`;
}
