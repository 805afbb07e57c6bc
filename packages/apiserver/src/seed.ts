// What a fresh kube-apiserver holds before anyone writes: the system namespaces, and once it
// serves, the `default/kubernetes` Service pointing at it (with the Endpoints and EndpointSlice its
// endpoint reconciler keeps) and the client CA it publishes in
// `kube-system/extension-apiserver-authentication` (for aggregated API servers and webhooks
// that check client certificates).
import { networkInterfaces } from "node:os";
import { kindBehaviour } from "./kinds/index.js";
import { localAPIServiceStatus } from "./kinds/apiservice.js";
import type { ServerContext } from "./handlers/context.js";
import { updateManagedFields } from "./object/managed-fields.js";
import { kubeTime, normalizeOrder, prepareForCreate } from "./object/meta.js";
import { storeNameOf } from "./registry/index.js";
import type { Obj } from "./storage/index.js";

export const systemNamespaces = ["default", "kube-system", "kube-public", "kube-node-lease"];

export function seed(server: ServerContext): void {
  const def = server.registry.lookup("", "v1", "namespaces")!;
  for (const name of systemNamespaces) {
    if (server.storage.get(storeNameOf(def), name)) continue;
    createSystemObject(server, "", "namespaces", { kind: "Namespace", apiVersion: "v1", metadata: { name } });
  }
  seedPriorityClasses(server);
  seedAPIServices(server);
}

/** The PriorityClasses kube-apiserver's scheduling bootstrap creates. */
const systemPriorityClasses = [
  {
    name: "system-node-critical",
    value: 2000001000,
    description: "Used for system critical pods that must not be moved from their current node.",
  },
  {
    name: "system-cluster-critical",
    value: 2000000000,
    description:
      "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
  },
];

function seedPriorityClasses(server: ServerContext): void {
  for (const pc of systemPriorityClasses) {
    if (server.storage.get("scheduling.k8s.io/priorityclasses", pc.name)) continue;
    createSystemObject(server, "scheduling.k8s.io", "priorityclasses", {
      kind: "PriorityClass",
      apiVersion: "scheduling.k8s.io/v1",
      metadata: { name: pc.name },
      value: pc.value,
      description: pc.description,
    });
  }
}

/**
 * The APIService kube-apiserver's aggregator registers for each built-in group version, with
 * its priorities (kube-apiserver's apiVersionPriorities): what `kubectl get apiservices` lists.
 */
const apiServicePriorities: Record<string, [number, number]> = {
  "/v1": [18000, 1],
  "apps/v1": [17800, 15],
  "events.k8s.io/v1": [17750, 15],
  "authentication.k8s.io/v1": [17700, 15],
  "authorization.k8s.io/v1": [17600, 15],
  "autoscaling/v1": [17500, 15],
  "autoscaling/v2": [17500, 30],
  "batch/v1": [17400, 15],
  "certificates.k8s.io/v1": [17300, 15],
  "networking.k8s.io/v1": [17200, 15],
  "policy/v1": [17100, 15],
  "rbac.authorization.k8s.io/v1": [17000, 15],
  "storage.k8s.io/v1": [16800, 15],
  "apiextensions.k8s.io/v1": [16700, 15],
  "admissionregistration.k8s.io/v1": [16700, 15],
  "scheduling.k8s.io/v1": [16600, 15],
  "coordination.k8s.io/v1": [16500, 15],
  "node.k8s.io/v1": [16300, 15],
  "discovery.k8s.io/v1": [16200, 15],
  "resource.k8s.io/v1": [16200, 21],
  "flowcontrol.apiserver.k8s.io/v1": [16100, 21],
  "storagemigration.k8s.io/v1": [15800, 15],
};

export const apiServiceStore = "apiregistration.k8s.io/apiservices";

function seedAPIServices(server: ServerContext): void {
  const served = new Set(
    server.registry
      .all()
      .filter((d) => !d.crdName)
      .map((d) => `${d.group}/${d.version}`),
  );
  for (const gv of served) {
    const priorities = apiServicePriorities[gv];
    if (!priorities) continue; // apiregistration.k8s.io itself has none
    const [group, version] = gv.split("/");
    ensureLocalAPIService(server, group, version, "onstart", priorities);
  }
}

/**
 * A local APIService for `version` of `group`, unless there is one: `onstart` for built-in
 * groups, `true` for the groups of CRDs (kube's crd-autoregistration, priorities 1000 and 100).
 */
export function ensureLocalAPIService(
  server: ServerContext,
  group: string,
  version: string,
  automanaged: "onstart" | "true",
  priorities: [number, number] = [1000, 100],
): void {
  const name = `${version}.${group}`;
  if (server.storage.get(apiServiceStore, name)) return;
  createSystemObject(server, "apiregistration.k8s.io", "apiservices", {
    kind: "APIService",
    apiVersion: "apiregistration.k8s.io/v1",
    metadata: { name, labels: { "kube-aggregator.kubernetes.io/automanaged": automanaged } },
    spec: {
      ...(group ? { group } : {}),
      version,
      groupPriorityMinimum: priorities[0],
      versionPriority: priorities[1],
    },
    status: localAPIServiceStatus(server.now()),
  });
}

/**
 * Creates `obj` as kube-apiserver's own writes do (defaults, metadata, field order), with the
 * managedFields of its loopback client's Update: what it wrote, defaults included, is its own.
 */
function createSystemObject(server: ServerContext, group: string, resource: string, obj: Obj): void {
  const def = server.registry.lookup(group, "v1", resource)!;
  const meta = obj.metadata as Obj;
  kindBehaviour(def).defaults?.(obj, { old: undefined, server });
  const managedFields = updateManagedFields(undefined, obj, {
    manager: "kube-apiserver",
    def,
    apiVersion: group ? `${group}/v1` : "v1",
    subresource: "",
    time: kubeTime(server.now()),
    types: server.types,
  });
  kindBehaviour(def).created?.(obj, { server });
  prepareForCreate(def, obj, String(meta.namespace ?? ""), server.now());
  if (managedFields.length > 0) meta.managedFields = managedFields;
  server.storage.put(storeNameOf(def), normalizeOrder(def, obj));
}

/** The objects kube-apiserver writes once it serves on `port`; the Service follows the port. */
export function seedServing(server: ServerContext, port: number, clientCaPem: string): void {
  const service = server.storage.get("/services", "default/kubernetes");
  const ports = [{ name: "https", protocol: "TCP", port: 443, targetPort: port }];
  if (!service) {
    createSystemObject(server, "", "services", {
      kind: "Service",
      apiVersion: "v1",
      metadata: {
        name: "kubernetes",
        namespace: "default",
        labels: { component: "apiserver", provider: "kubernetes" },
      },
      // What kube's kubernetesservice controller writes.
      spec: {
        ports,
        clusterIP: "10.0.0.1",
        type: "ClusterIP",
        sessionAffinity: "None",
        ipFamilyPolicy: "SingleStack",
      },
    });
  } else if (JSON.stringify((service.obj.spec as Obj).ports) !== JSON.stringify(ports)) {
    const next = JSON.parse(service.json) as Obj;
    (next.spec as Obj).ports = ports;
    server.storage.put("/services", next);
  }
  seedEndpoints(server, port);
  if (!server.storage.get("/configmaps", "kube-system/extension-apiserver-authentication")) {
    createSystemObject(server, "", "configmaps", {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "extension-apiserver-authentication", namespace: "kube-system" },
      data: { "client-ca-file": clientCaPem },
    });
  }
}

/**
 * The address kube-apiserver advertises when not told one (envtest tells it none): the host's
 * own, never a loopback one (its endpoint reconciler refuses those). Undefined on a host with no
 * other address: then, as nothing could reach the server through it, no endpoints are written.
 */
function advertiseAddress(): string | undefined {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}

/**
 * The `default/kubernetes` Endpoints and EndpointSlice kube-apiserver's endpoint reconciler writes:
 * the server's address and serving port, so that clients (and conformance tests) that look the
 * API server up through its Service's endpoints find it.
 */
function seedEndpoints(server: ServerContext, port: number): void {
  const ip = advertiseAddress();
  if (!ip) return;
  const ports = [{ name: "https", port, protocol: "TCP" }];
  const endpoints = {
    kind: "Endpoints",
    apiVersion: "v1",
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: { "endpointslice.kubernetes.io/skip-mirror": "true" },
    },
    subsets: [{ addresses: [{ ip }], ports }],
  };
  const slice = {
    kind: "EndpointSlice",
    apiVersion: "discovery.k8s.io/v1",
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: { "kubernetes.io/service-name": "kubernetes" },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: [ip], conditions: { ready: true } }],
    ports,
  };
  // A restarted server on another port: its reconciler rewrites both.
  const current = server.storage.get("/endpoints", "default/kubernetes");
  if (!current) createSystemObject(server, "", "endpoints", endpoints);
  else if (JSON.stringify((current.obj as Obj).subsets) !== JSON.stringify(endpoints.subsets)) {
    server.storage.put("/endpoints", { ...(JSON.parse(current.json) as Obj), subsets: endpoints.subsets });
  }
  const currentSlice = server.storage.get("discovery.k8s.io/endpointslices", "default/kubernetes");
  if (!currentSlice) createSystemObject(server, "discovery.k8s.io", "endpointslices", slice);
  else if (JSON.stringify((currentSlice.obj as Obj).ports) !== JSON.stringify(ports)) {
    server.storage.put("discovery.k8s.io/endpointslices", {
      ...(JSON.parse(currentSlice.json) as Obj),
      endpoints: slice.endpoints,
      ports,
    });
  }
}
