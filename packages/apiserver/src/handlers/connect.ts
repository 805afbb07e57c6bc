// The connect subresources: a Pod's log, exec, attach, portforward and proxy, a Service's and a
// Node's proxy. kube-apiserver serves them by reaching the kubelet or the endpoints; with no
// kubelet (as under envtest) it answers what this answers, checked against kube-apiserver 1.26:
// a Pod on no node has no logs (204) and no host to exec in (400); a Pod on a node that does not
// exist is a 404 (worded with "pods", as kube words it); a node without addresses is a 500.
import { ApiError, badRequest, methodNotAllowed, notFound } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";

const POD_CONNECT = new Set(["log", "exec", "attach", "portforward", "proxy"]);

/** Whether the request is for a connect subresource. */
export function isConnect(r: Pick<ResourceRequest, "def" | "subresource">): boolean {
  if (r.def.crdName || r.def.group !== "") return false;
  if (r.def.kind === "Pod") return POD_CONNECT.has(r.subresource);
  return (r.def.kind === "Service" || r.def.kind === "Node") && r.subresource === "proxy";
}

const PODS = { group: "", resource: "pods", kind: "Pod" };

/** The node a Pod runs on, or kube's answer when there is none to reach. */
function reachNode(r: ResourceRequest, nodeName: string): never {
  const node = r.server.storage.get("/nodes", nodeName)?.obj as Obj | undefined;
  if (!node) throw notFound(PODS, nodeName); // kube's node lookup, worded as the pod's
  throw kubeletUnreachable(node);
}

function kubeletUnreachable(node: Obj): ApiError {
  const first = ((node.status as Obj | undefined)?.addresses as Obj[] | undefined)?.[0];
  if (!first) return new ApiError(500, "", "no preferred addresses found; known addresses: []");
  return new ApiError(500, "", `dial tcp ${String(first.address)}:10250: connect: connection refused`);
}

function containerNames(spec: Obj): string[] {
  const names: string[] = [];
  for (const list of ["containers", "initContainers", "ephemeralContainers"]) {
    for (const c of (spec[list] as Obj[] | undefined) ?? [])
      if (typeof c?.name === "string") names.push(c.name);
  }
  return names;
}

function podLog(r: ResourceRequest, pod: Obj): void {
  const spec = (pod.spec ?? {}) as Obj;
  const container = r.query.get("container");
  const name = r.name;
  if (container) {
    if (!containerNames(spec).includes(container)) {
      throw badRequest(`container ${container} is not valid for pod ${name}`);
    }
  } else {
    const main = ((spec.containers as Obj[] | undefined) ?? []).map((c) => String(c.name));
    if (main.length > 1) {
      throw badRequest(
        `a container name must be specified for pod ${name}, choose one of: [${main.join(" ")}]`,
      );
    }
  }
  if (!spec.nodeName) {
    // No node, no logs yet: kube answers an empty success.
    r.res.writeHead(204, { "Cache-Control": "no-cache, private" });
    r.res.end();
    return;
  }
  reachNode(r, String(spec.nodeName));
}

export function handleConnect(r: ResourceRequest, method: string): void {
  if (r.def.kind === "Pod") {
    const pod = mustGet(r).obj as Obj;
    const spec = (pod.spec ?? {}) as Obj;
    switch (r.subresource) {
      case "log":
        if (method !== "GET" && method !== "HEAD") throw methodNotAllowed();
        podLog(r, pod);
        return;
      case "proxy": {
        const ip = (pod.status as Obj | undefined)?.podIP;
        if (!ip) throw badRequest("address not allowed");
        throw new ApiError(
          503,
          "ServiceUnavailable",
          `error trying to reach service: dial tcp ${String(ip)}:80: connect: connection refused`,
        );
      }
      default:
        if (method !== "GET" && method !== "POST") throw methodNotAllowed();
        if (!spec.nodeName) throw badRequest(`pod ${r.name} does not have a host assigned`);
        reachNode(r, String(spec.nodeName));
    }
  }
  if (r.def.kind === "Node") throw kubeletUnreachable(mustGet(r).obj as Obj);
  // A Service's proxy goes to its endpoints; without an Endpoints object kube finds no service.
  mustGet(r);
  const endpoints = r.server.storage.get("/endpoints", `${r.namespace}/${r.name}`)?.obj as Obj | undefined;
  if (!endpoints) throw notFound({ group: "", resource: "services", kind: "Service" }, r.name);
  throw new ApiError(503, "ServiceUnavailable", `no endpoints available for service "${r.name}"`);
}

/** Discovery entries of the connect subresources, as kube lists them. */
export function connectSubresources(kind: string): Record<string, unknown>[] {
  const all = ["create", "delete", "get", "patch", "update"];
  const entry = (name: string, k: string, verbs: string[], namespaced = true) => ({
    name,
    singularName: "",
    namespaced,
    kind: k,
    verbs,
  });
  if (kind === "Pod") {
    return [
      entry("pods/attach", "PodAttachOptions", ["create", "get"]),
      entry("pods/exec", "PodExecOptions", ["create", "get"]),
      entry("pods/log", "Pod", ["get"]),
      entry("pods/portforward", "PodPortForwardOptions", ["create", "get"]),
      entry("pods/proxy", "PodProxyOptions", all),
    ];
  }
  if (kind === "Service") return [entry("services/proxy", "ServiceProxyOptions", all)];
  if (kind === "Node") return [entry("nodes/proxy", "NodeProxyOptions", all, false)];
  return [];
}
