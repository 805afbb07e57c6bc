// Discovery documents (/api, /api/v1, /apis, /apis/{g}, /apis/{g}/{v}), /version and the health
// endpoints, built from the registry on each request so CRDs appear and disappear at once.
import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { connectSubresources } from "./handlers/connect.js";
import { sendJson, sendText } from "./http-io.js";
import type { Registry, ResourceDefinition } from "./registry/index.js";
import { storeNameOf } from "./registry/index.js";
import { serverVersion } from "./server-version.js";

function storageVersionHash(def: ResourceDefinition): string {
  const digest = createHash("sha256").update(`${def.group}/${def.storageVersion}/${def.kind}`).digest();
  return digest.subarray(0, 8).toString("base64");
}

function resourceEntries(def: ResourceDefinition): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: def.plural,
    singularName: def.review ? "" : def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
  };
  if (def.shortNames.length > 0) main.shortNames = def.shortNames;
  if (def.categories.length > 0) main.categories = def.categories;
  if (!def.review) main.storageVersionHash = storageVersionHash(def);
  const out = [main];
  const sub = { singularName: "", namespaced: def.namespaced, verbs: ["get", "patch", "update"] };
  if (def.statusSubresource) out.push({ name: `${def.plural}/status`, ...sub, kind: def.kind });
  if (def.scale) {
    out.push({
      name: `${def.plural}/scale`,
      singularName: "",
      namespaced: def.namespaced,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: sub.verbs,
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
      { name: "pods/ephemeralcontainers", ...sub, kind: "Pod" },
      { name: "pods/resize", ...sub, kind: "Pod" },
    );
  }
  if (!def.crdName && def.group === "certificates.k8s.io" && def.kind === "CertificateSigningRequest") {
    out.push({ name: "certificatesigningrequests/approval", ...sub, kind: def.kind });
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

export function resourceList(registry: Registry, group: string, version: string): string | undefined {
  const defs = registry.inGroupVersion(group, version);
  if (defs.length === 0) return undefined;
  const resources = defs
    .flatMap(resourceEntries)
    .sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : 1));
  const doc: Record<string, unknown> = { kind: "APIResourceList" };
  if (group !== "") doc.apiVersion = "v1";
  doc.groupVersion = group === "" ? version : `${group}/${version}`;
  doc.resources = resources;
  return JSON.stringify(doc);
}

function groupDoc(name: string, versions: string[]): Record<string, unknown> {
  const entries = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

export function apiGroupList(registry: Registry): string {
  const groups = registry
    .groups()
    .filter((g) => g.name !== "")
    .map((g) => groupDoc(g.name, g.versions));
  return JSON.stringify({ kind: "APIGroupList", apiVersion: "v1", groups });
}

export function apiGroup(registry: Registry, group: string): string | undefined {
  const g = registry.groups().find((x) => x.name === group);
  if (!g || group === "") return undefined;
  return JSON.stringify({ kind: "APIGroup", apiVersion: "v1", ...groupDoc(g.name, g.versions) });
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
