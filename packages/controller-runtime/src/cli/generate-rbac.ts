// `generate rbac`: the manager's ClusterRole (and a Role per namespace) from kubebuilder's RBAC
// markers next to the controllers, as controller-gen reads them:
//   // +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// (`groups=core` or `groups=""` is the core group; `namespace=`, `resourceNames=` and `urls=` too).
// Rules with the same group, verbs and names are merged, and everything is sorted, so the output
// changes only when a marker does.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { stringify } from "yaml";
import { CLIError } from "./errors.js";
import { GENERATED } from "./outputs.js";

export interface RBACMarker {
  groups: string[];
  resources: string[];
  verbs: string[];
  resourceNames: string[];
  urls: string[];
  namespace: string;
  /** file:line, for errors. */
  at: string;
}

const MARKER = /^\s*\/\/\s*\+kubebuilder:rbac:(.*)$/;
const KEYS = new Set(["groups", "resources", "verbs", "resourceNames", "urls", "namespace"]);

/** The markers in the sources under `paths` (folders are recursed; node_modules skipped). */
export function readRBACMarkers(paths: readonly string[]): RBACMarker[] {
  const markers: RBACMarker[] = [];
  for (const file of paths.flatMap((p) => sourceFiles(p))) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const m = MARKER.exec(line);
        if (m) markers.push(parseMarker(m[1] ?? "", `${relative(".", file)}:${i + 1}`));
      });
  }
  return markers;
}

export function parseMarker(text: string, at: string): RBACMarker {
  const marker: RBACMarker = {
    groups: [],
    resources: [],
    verbs: [],
    resourceNames: [],
    urls: [],
    namespace: "",
    at,
  };
  for (const part of text.trim().split(",")) {
    const eq = part.indexOf("=");
    const key = part.slice(0, eq).trim();
    if (eq < 0 || !KEYS.has(key)) {
      throw new CLIError(
        `${at}: cannot read the rbac marker's ${JSON.stringify(part)} (keys: ${[...KEYS].join(", ")})`,
      );
    }
    const values = part
      .slice(eq + 1)
      .split(";")
      .map((v) => v.trim().replace(/^"(.*)"$/, "$1"));
    if (key === "namespace") marker.namespace = values[0] ?? "";
    else if (key === "groups") marker.groups = values.map((g) => (g === "core" ? "" : g));
    else marker[key as "resources" | "verbs" | "resourceNames" | "urls"] = values.filter((v) => v !== "");
  }
  if (marker.verbs.length === 0) throw new CLIError(`${at}: an rbac marker needs verbs=`);
  if (marker.urls.length === 0 && marker.resources.length === 0) {
    throw new CLIError(`${at}: an rbac marker needs resources= (or urls=)`);
  }
  if (marker.urls.length === 0 && marker.groups.length === 0) marker.groups = [""];
  return marker;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** The normalised rules of `markers`: one verb set per (group, resource, names), then merged. */
export function rulesOf(markers: readonly RBACMarker[]): PolicyRule[] {
  const verbs = new Map<string, Set<string>>();
  const add = (key: string, vs: string[]) => {
    const set = verbs.get(key) ?? new Set<string>();
    for (const v of vs) set.add(v);
    verbs.set(key, set);
  };
  for (const m of markers) {
    for (const url of m.urls) add(JSON.stringify(["url", url]), m.verbs);
    for (const group of m.urls.length > 0 ? [] : m.groups) {
      for (const resource of m.resources)
        add(JSON.stringify(["res", group, resource, [...m.resourceNames].sort()]), m.verbs);
    }
  }
  // Same group, verbs and names: one rule listing the resources.
  const merged = new Map<string, PolicyRule>();
  for (const [key, set] of verbs) {
    const parsed = JSON.parse(key) as ["url", string] | ["res", string, string, string[]];
    const sortedVerbs = [...set].sort();
    if (parsed[0] === "url") {
      const k = JSON.stringify(["url", sortedVerbs]);
      const rule = merged.get(k) ?? { nonResourceURLs: [], verbs: sortedVerbs };
      rule.nonResourceURLs?.push(parsed[1]);
      merged.set(k, rule);
      continue;
    }
    const [, group, resource, names] = parsed;
    const k = JSON.stringify([group, sortedVerbs, names]);
    const rule = merged.get(k) ?? {
      apiGroups: [group],
      resources: [],
      ...(names.length > 0 ? { resourceNames: names } : {}),
      verbs: sortedVerbs,
    };
    rule.resources?.push(resource);
    merged.set(k, rule);
  }
  const rules = [...merged.values()];
  for (const r of rules) {
    r.resources?.sort();
    r.nonResourceURLs?.sort();
  }
  return rules.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
}

function sortKey(r: PolicyRule): string {
  return r.nonResourceURLs
    ? `~${r.nonResourceURLs.join(",")}`
    : `${r.apiGroups?.[0] ?? ""}\u0000${r.resources?.[0] ?? ""}\u0000${r.verbs.join(",")}`;
}

/** The role manifest (ClusterRole, then a Role per namespace) for `markers`. */
export function roleManifest(markers: readonly RBACMarker[], roleName: string, from: string): string {
  const byNamespace = new Map<string, RBACMarker[]>();
  for (const m of markers) byNamespace.set(m.namespace, [...(byNamespace.get(m.namespace) ?? []), m]);
  const docs: object[] = [
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: roleName },
      rules: rulesOf(byNamespace.get("") ?? []),
    },
  ];
  for (const ns of [...byNamespace.keys()].filter(Boolean).sort()) {
    const nsMarkers = byNamespace.get(ns) ?? [];
    if (nsMarkers.some((m) => m.urls.length > 0)) {
      throw new CLIError(`${nsMarkers[0]?.at}: urls= needs a ClusterRole; drop namespace=`);
    }
    docs.push({
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: roleName, namespace: ns },
      rules: rulesOf(nsMarkers),
    });
  }
  const header = `${GENERATED} (generate rbac) from the +kubebuilder:rbac markers in ${from}. Do not edit.\n`;
  return header + docs.map((d) => `---\n${stringify(d, { lineWidth: 0 })}`).join("");
}

function sourceFiles(path: string): string[] {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    throw new CLIError(`${path}: no such file or folder`);
  }
  if (!stat.isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      if (name === "node_modules" || name.startsWith(".")) return [];
      const full = join(path, name);
      if (statSync(full).isDirectory()) return sourceFiles(full);
      return [".ts", ".mts", ".js", ".mjs", ".go"].includes(extname(name)) ? [full] : [];
    });
}
