// GET componentstatuses (deprecated, still served): the health of the control plane's parts as
// kube-apiserver reports it when it runs alone, as under envtest: its etcd healthy, no scheduler
// or controller-manager listening.
import { sendJson } from "../http-io.js";
import { ApiError, methodNotAllowed } from "../status.js";
import type { ResourceRequest } from "./context.js";

/** Whether the request is for the core `componentstatuses` resource. */
export function isComponentStatus(r: Pick<ResourceRequest, "def">): boolean {
  return !r.def.crdName && r.def.group === "" && r.def.kind === "ComponentStatus";
}

const unreachable = (port: number) =>
  `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused`;

function components(): { name: string; healthy: boolean; message: string }[] {
  return [
    { name: "scheduler", healthy: false, message: unreachable(10259) },
    { name: "controller-manager", healthy: false, message: unreachable(10257) },
    { name: "etcd-0", healthy: true, message: '{"health":"true"}' },
  ];
}

function item(c: { name: string; healthy: boolean; message: string }) {
  return {
    metadata: { name: c.name },
    conditions: [{ type: "Healthy", status: c.healthy ? "True" : "False", message: c.message }],
  };
}

export function handleComponentStatus(r: ResourceRequest, method: string, watch: boolean): void {
  if ((method !== "GET" && method !== "HEAD") || watch) throw methodNotAllowed();
  if (r.name) {
    const c = components().find((x) => x.name === r.name);
    // kube 1.37 answers an unknown component with a NotFound that names the
    // resource in the singular.
    if (!c) {
      throw new ApiError(404, "NotFound", `componentstatus "${r.name}" not found`, {
        name: r.name,
        kind: "componentstatus",
      });
    }
    sendJson(r.res, 200, JSON.stringify({ kind: "ComponentStatus", apiVersion: "v1", ...item(c) }));
    return;
  }
  sendJson(
    r.res,
    200,
    JSON.stringify({
      kind: "ComponentStatusList",
      apiVersion: "v1",
      metadata: {},
      items: components().map(item),
    }),
  );
}
