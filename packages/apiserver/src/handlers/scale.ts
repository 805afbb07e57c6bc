// The /scale subresource: an autoscaling/v1 Scale view of a replicas field.
import { applyJSONPatch, applyMergePatch, PatchError } from "controller-runtime/patch";
import { labelSelectorFromObject, labelSelectorFromSet } from "controller-runtime/api";
import { mediaType, readBody, sendJson } from "../http-io.js";
import { parseJsonBounded, parseYamlBounded } from "../nesting.js";
import { ApiError, badRequest, conflict, staleObjectMessage, unsupportedMediaType } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { refOf, type ResourceRequest } from "./context.js";
import { mustGet } from "./get.js";
import { commitUpdate, decodeProtobufBody } from "./write.js";
import { PROTOBUF } from "../protobuf/media-type.js";

function getPath(obj: Readonly<Obj>, path: string): unknown {
  let cur: unknown = obj;
  for (const p of path.replace(/^\./, "").split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

function setPath(obj: Obj, path: string, value: unknown): void {
  const parts = path.replace(/^\./, "").split(".");
  let cur = obj;
  for (const p of parts.slice(0, -1)) {
    if (cur[p] === null || typeof cur[p] !== "object") cur[p] = {};
    cur = cur[p] as Obj;
  }
  cur[parts[parts.length - 1]] = value;
}

function scaleOf(r: ResourceRequest, stored: StoredObject): Obj {
  const scale = r.def.scale!;
  const meta = stored.obj.metadata as Obj;
  let selector = "";
  if (scale.labelSelectorPath) {
    const sel = getPath(stored.obj, scale.labelSelectorPath);
    if (typeof sel === "string") selector = sel;
    else if (r.def.kind === "ReplicationController" && !r.def.crdName && sel && typeof sel === "object") {
      // An RC's selector is a plain map of labels, as kube's SelectorFromSet reads it.
      selector = labelSelectorFromSet(sel as Record<string, string>).toString();
    } else if (sel && typeof sel === "object") selector = labelSelectorFromObject(sel as Obj).toString();
  }
  const status: Obj = {
    replicas: (getPath(stored.obj, scale.statusReplicasPath) as number | undefined) ?? 0,
  };
  if (selector) status.selector = selector;
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: meta.name,
      namespace: meta.namespace,
      uid: meta.uid,
      resourceVersion: meta.resourceVersion,
      creationTimestamp: meta.creationTimestamp,
    },
    spec: { replicas: (getPath(stored.obj, scale.specReplicasPath) as number | undefined) ?? 0 },
    status,
  };
}

export async function handleScale(r: ResourceRequest, method: string): Promise<void> {
  const current = mustGet(r);
  if (method === "GET") {
    sendJson(r.res, 200, JSON.stringify(scaleOf(r, current)));
    return;
  }
  const bytes = await readBody(r.req, r.server.limits.maxBodyBytes);
  const body = bytes.toString("utf8");
  const ct = mediaType(r.req.headers["content-type"]);
  let scale: Obj;
  try {
    if (method === "PUT" && ct === PROTOBUF) scale = decodeProtobufBody(bytes, "autoscaling/v1", "Scale");
    else if (method === "PUT") {
      if (ct !== "" && ct !== "application/json" && ct !== "application/yaml") {
        throw unsupportedMediaType(["application/json", "application/yaml", PROTOBUF]);
      }
      scale = (ct === "application/yaml" ? parseYamlBounded(body) : parseJsonBounded(body)) as Obj;
    } else if (ct === "application/json-patch+json")
      scale = applyJSONPatch(scaleOf(r, current), parseJsonBounded(body));
    else if (ct === "application/merge-patch+json" || ct === "application/strategic-merge-patch+json") {
      scale = applyMergePatch(scaleOf(r, current), parseJsonBounded(body)) as Obj;
    } else throw unsupportedMediaType(["application/json-patch+json", "application/merge-patch+json"]);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof PatchError) throw new ApiError(e.code, e.reason, e.statusMessage);
    throw badRequest(`the object provided is unrecognized (must be of type Scale): ${(e as Error).message}`);
  }
  const rv = (scale?.metadata as Obj | undefined)?.resourceVersion;
  if (rv && rv !== String(current.rv)) throw conflict(refOf(r.def), r.name, staleObjectMessage);
  const replicas = (scale?.spec as Obj | undefined)?.replicas;
  const next = JSON.parse(current.json) as Obj;
  setPath(next, r.def.scale!.specReplicasPath, typeof replicas === "number" ? replicas : 0);
  const result = commitUpdate({ ...r, subresource: "" }, current, next, []);
  sendJson(r.res, 200, JSON.stringify(scaleOf(r, result.stored ?? current)));
}
