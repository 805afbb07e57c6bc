// GET componentstatuses (deprecated, still served): the health of the control plane's parts as
// kube-apiserver reports it when it runs alone, as under envtest: its etcd healthy, no scheduler
// or controller-manager listening.
import { metaApiVersionOf, sendJson } from "../http-io.js";
import { ApiError, methodNotAllowed } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";
import { checkFormFits, formOf } from "./negotiation.js";
import { formJson, type ListMetaOut, listJson } from "./serialize.js";
import { tableJson } from "./table.js";

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
    // kube 1.37's etcd probe reports "ok" (older releases passed etcd's own {"health":"true"} on).
    { name: "etcd-0", healthy: true, message: "ok" },
  ];
}

function item(c: { name: string; healthy: boolean; message: string }) {
  return {
    metadata: { name: c.name },
    conditions: [{ type: "Healthy", status: c.healthy ? "True" : "False", message: c.message }],
  };
}

/** kube's list of component statuses has empty metadata: no resourceVersion. */
const NO_LIST_META = {} as ListMetaOut;

/** A component's status as stored objects are held, for the Table and metadata forms. */
function stored(c: { name: string; healthy: boolean; message: string }): StoredObject {
  const obj: Obj = { kind: "ComponentStatus", apiVersion: "v1", ...item(c) };
  return { obj, json: JSON.stringify(obj), rv: 0, key: c.name, namespace: "", name: c.name };
}

export function handleComponentStatus(r: ResourceRequest, method: string, watch: boolean): void {
  if ((method !== "GET" && method !== "HEAD") || watch) throw methodNotAllowed();
  const form = formOf(r, r.name ? "object" : "list");
  const metaApiVersion = metaApiVersionOf(r.res);
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
    checkFormFits(r.def, form, false);
    if (form === "Table") sendJson(r.res, 200, tableJson(r, [stored(c)], NO_LIST_META));
    else sendJson(r.res, 200, formJson(r.def, stored(c), form, metaApiVersion));
    return;
  }
  checkFormFits(r.def, form, true);
  const all = components().map(stored);
  if (form === "Table") {
    sendJson(r.res, 200, tableJson(r, all, NO_LIST_META));
    return;
  }
  if (form !== "object") {
    const items = all.map((o) => formJson(r.def, o, form, metaApiVersion));
    sendJson(r.res, 200, listJson(r.def, items, NO_LIST_META, form, metaApiVersion));
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
