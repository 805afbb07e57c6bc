// Discovery documents (/api, /api/v1, /apis, /apis/{g}, /apis/{g}/{v}), /version and the health
// endpoints, built from the registry on each request so CRDs appear and disappear at once.
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { connectSubresources } from "./handlers/connect.js";
import { sendJson, sendText } from "./http-io.js";
import type { Registry, ResourceDefinition, ServedGroup } from "./registry/index.js";
import { compareKubeVersions, storeNameOf } from "./registry/index.js";
import type { Obj } from "./storage/index.js";
import { serverVersion } from "./server-version.js";

/**
 * Built-in kinds kube 1.37 stores in another group or version than the one served (an earlier
 * version a 1.36 server can read, or core's Event): their hash names the stored one.
 */
const STORED_AS: Readonly<Record<string, string>> = {
  "events.k8s.io/Event": "/v1/Event",
  "autoscaling/HorizontalPodAutoscaler": "autoscaling/v2/HorizontalPodAutoscaler",
  "apiextensions.k8s.io/CustomResourceDefinition": "apiextensions.k8s.io/v1beta1/CustomResourceDefinition",
  "certificates.k8s.io/ClusterTrustBundle": "certificates.k8s.io/v1beta1/ClusterTrustBundle",
  "certificates.k8s.io/PodCertificateRequest": "certificates.k8s.io/v1beta1/PodCertificateRequest",
  "resource.k8s.io/DeviceTaintRule": "resource.k8s.io/v1beta2/DeviceTaintRule",
  "storagemigration.k8s.io/StorageVersionMigration":
    "storagemigration.k8s.io/v1beta1/StorageVersionMigration",
};

/** discovery.StorageVersionHash: the first 8 bytes of the SHA-256 of the stored group/version/kind. */
function storageVersionHash(def: ResourceDefinition): string {
  const stored =
    (!def.crdName && STORED_AS[`${def.group}/${def.kind}`]) ||
    `${def.group}/${def.storageVersion}/${def.kind}`;
  const digest = createHash("sha256").update(stored).digest();
  return digest.subarray(0, 8).toString("base64");
}

function resourceEntries(def: ResourceDefinition): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames.length > 0) main.shortNames = def.shortNames;
  if (def.categories.length > 0) main.categories = def.categories;
  if (!def.review) main.storageVersionHash = storageVersionHash(def);
  const out = [main];
  // APIResource's field order: name, singularName, namespaced, group, version, kind, verbs.
  const sub = (name: string, kind: string) => ({
    name,
    singularName: "",
    namespaced: def.namespaced,
    kind,
    verbs: ["get", "patch", "update"],
  });
  if (def.statusSubresource) out.push(sub(`${def.plural}/status`, def.kind));
  if (def.scale) {
    out.push({
      name: `${def.plural}/scale`,
      singularName: "",
      namespaced: def.namespaced,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
  }
  if (!def.crdName && def.group === "") out.push(...connectSubresources(def.kind));
  if (!def.crdName && def.group === "" && def.kind === "Pod") {
    out.push({
      name: "pods/eviction",
      singularName: "",
      namespaced: true,
      group: "policy",
      version: "v1",
      kind: "Eviction",
      verbs: ["create"],
    });
  }
  if (!def.crdName && def.group === "" && def.kind === "Pod") {
    out.push(
      { name: "pods/binding", singularName: "", namespaced: true, kind: "Binding", verbs: ["create"] },
      sub("pods/ephemeralcontainers", "Pod"),
      sub("pods/resize", "Pod"),
    );
  }
  if (!def.crdName && def.group === "certificates.k8s.io" && def.kind === "CertificateSigningRequest") {
    out.push(sub("certificatesigningrequests/approval", def.kind));
  }
  if (!def.crdName && def.group === "" && def.kind === "ServiceAccount") {
    out.push({
      name: "serviceaccounts/token",
      singularName: "",
      namespaced: true,
      group: "authentication.k8s.io",
      version: "v1",
      kind: "TokenRequest",
      verbs: ["create"],
    });
  }
  if (!def.crdName && def.group === "" && def.kind === "Namespace") {
    out.push({
      name: "namespaces/finalize",
      singularName: "",
      namespaced: false,
      kind: "Namespace",
      verbs: ["update"],
    });
  }
  return out;
}

/**
 * The APIResource entries of a group version, in kube's order: a built-in group version's sorted
 * by name (its installer's order); a custom resource group's as the CRD discovery controller
 * appends them, each CRD's resource, then /status, then /scale (CRDs by plural here, where kube
 * takes its cache's order).
 */
export function apiResources(registry: Registry, group: string, version: string): Record<string, unknown>[] {
  const defs = registry.inGroupVersion(group, version);
  const byName = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    (a.name as string) < (b.name as string) ? -1 : 1;
  if (defs.length > 0 && defs.every((d) => d.crdName)) {
    return [...defs].sort((a, b) => (a.plural < b.plural ? -1 : 1)).flatMap(resourceEntries);
  }
  return defs.flatMap(resourceEntries).sort(byName);
}

export function resourceList(registry: Registry, group: string, version: string): string | undefined {
  const resources = apiResources(registry, group, version);
  if (resources.length === 0) return undefined;
  const doc: Record<string, unknown> = { kind: "APIResourceList" };
  if (group !== "") doc.apiVersion = "v1";
  doc.groupVersion = group === "" ? version : `${group}/${version}`;
  doc.resources = resources;
  return JSON.stringify(doc);
}

/** An APIService's priorities: where its group and its version come in discovery. */
export interface Priority {
  group: number;
  version: number;
}

/**
 * Priorities by `group/version`, from the APIServices kube-aggregator registers (local ones for
 * every built-in group version, 1000 and 100 for a CRD's); 1000 and 100 where none is stored yet.
 */
export class Priorities {
  readonly #byGroupVersion = new Map<string, Priority>();

  constructor(apiServices: readonly Obj[]) {
    for (const o of apiServices) {
      const spec = (o.spec ?? {}) as Obj;
      this.#byGroupVersion.set(`${String(spec.group ?? "")}/${String(spec.version ?? "")}`, {
        group: Number(spec.groupPriorityMinimum ?? 0),
        version: Number(spec.versionPriority ?? 0),
      });
    }
  }

  /** Identifies the priorities: a document built from equal ones is the same. */
  get key(): string {
    return JSON.stringify([...this.#byGroupVersion].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  of(group: string, version: string): Priority {
    return this.#byGroupVersion.get(`${group}/${version}`) ?? { group: 1000, version: 100 };
  }

  /** A group's versions, the preferred first: by version priority, then kube's version order. */
  sortVersions(group: string, versions: readonly string[]): string[] {
    return [...versions].sort(
      (a, b) => this.of(group, b).version - this.of(group, a).version || compareKubeVersions(a, b),
    );
  }
}

const APIREGISTRATION = "apiregistration.k8s.io";

function groupDoc(name: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

/**
 * The groups of /apis in kube-aggregator's order: its own group first, then by the group
 * priority of their APIServices (highest first, ties by APIService name), each group where its
 * first APIService puts it.
 */
export function orderedGroups(registry: Registry, priorities: Priorities): ServedGroup[] {
  const served = registry.groups().filter((g) => g.name !== "");
  const services = served
    .flatMap((g) => g.versions.map((version) => ({ group: g.name, version })))
    .sort(
      (a, b) =>
        priorities.of(b.group, b.version).group - priorities.of(a.group, a.version).group ||
        (`${a.version}.${a.group}` < `${b.version}.${b.group}` ? -1 : 1),
    );
  const names = [...new Set(services.map((s) => s.group))];
  names.sort((a, b) => (a === APIREGISTRATION ? -1 : b === APIREGISTRATION ? 1 : 0));
  return names.map((name) => ({
    name,
    versions: priorities.sortVersions(name, served.find((g) => g.name === name)!.versions),
  }));
}

export function apiGroupList(registry: Registry, priorities: Priorities): string {
  const groups = orderedGroups(registry, priorities).map((g) => groupDoc(g.name, g.versions));
  return JSON.stringify({ kind: "APIGroupList", apiVersion: "v1", groups });
}

export function apiGroup(registry: Registry, group: string, priorities: Priorities): string | undefined {
  const g = registry.groups().find((x) => x.name === group);
  if (!g || group === "") return undefined;
  const versions = priorities.sortVersions(g.name, g.versions);
  return JSON.stringify({ kind: "APIGroup", apiVersion: "v1", ...groupDoc(g.name, versions) });
}

export function apiVersions(serverAddress: string): string {
  return JSON.stringify({
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  });
}

export function sendVersion(res: ServerResponse): void {
  sendJson(res, 200, JSON.stringify(serverVersion, null, 2));
}

const healthChecks = [
  "ping",
  "log",
  "etcd",
  "poststarthook/start-apiextensions-controllers",
  "poststarthook/crd-informer-synced",
];

/** /healthz, /livez, /readyz and their `/<check>` sub-paths; `?verbose` lists the checks. */
export function sendHealth(res: ServerResponse, path: string, verbose: boolean): boolean {
  const [, endpoint, ...rest] = path.split("/");
  if (endpoint !== "healthz" && endpoint !== "livez" && endpoint !== "readyz") return false;
  const check = rest.join("/");
  if (check !== "" && !healthChecks.includes(check)) return false;
  if (check !== "" || !verbose) {
    sendText(res, 200, "ok");
    return true;
  }
  const lines = healthChecks.map((c) => `[+]${c} ok`);
  sendText(res, 200, `${lines.join("\n")}\n${endpoint} check passed\n`);
  return true;
}

/** Whether a store still serves: used to list stores every namespace cleanup must visit. */
export function namespacedStores(registry: Registry): Map<string, ResourceDefinition> {
  const out = new Map<string, ResourceDefinition>();
  for (const d of registry.all()) {
    if (!d.namespaced) continue;
    const key = storeNameOf(d);
    const prev = out.get(key);
    if (!prev || d.version === d.storageVersion) out.set(key, d);
  }
  return out;
}
