// What a fresh kube-apiserver holds before anyone writes: the system namespaces, and once it
// serves, the `default/kubernetes` Service pointing at it and the client CA it publishes in
// `kube-system/extension-apiserver-authentication` (for aggregated API servers and webhooks
// that check client certificates).
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
    kindBehaviour(def).created?.(obj, { server });
    prepareForCreate(def, obj, "", server.now());
    server.storage.put(storeNameOf(def), normalizeOrder(def, obj));
  }
  seedPriorityClasses(server);
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

/** Creates `obj` as kube-apiserver's own writes do (defaults, metadata, field order). */
function createSystemObject(server: ServerContext, group: string, resource: string, obj: Obj): void {
  const def = server.registry.lookup(group, "v1", resource)!;
  const meta = obj.metadata as Obj;
  kindBehaviour(def).defaults?.(obj, { old: undefined, server });
  kindBehaviour(def).created?.(obj, { server });
  prepareForCreate(def, obj, String(meta.namespace ?? ""), server.now());
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
      spec: { ports, clusterIP: "10.0.0.1", type: "ClusterIP", sessionAffinity: "None" },
    });
  } else if (JSON.stringify((service.obj.spec as Obj).ports) !== JSON.stringify(ports)) {
    const next = JSON.parse(service.json) as Obj;
    (next.spec as Obj).ports = ports;
    server.storage.put("/services", next);
  }
  if (!server.storage.get("/configmaps", "kube-system/extension-apiserver-authentication")) {
    createSystemObject(server, "", "configmaps", {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { name: "extension-apiserver-authentication", namespace: "kube-system" },
      data: { "client-ca-file": clientCaPem },
    });
  }
}
