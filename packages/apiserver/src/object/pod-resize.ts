// A write through a Pod's resize subresource (GA in 1.35): what kube's podResizeStrategy keeps
// of the request. Only the containers' resources and resize policies and the Pod-level resources
// change; everything else, status included, stays as stored.
import type { Obj } from "../storage/index.js";
import { cloneJson } from "./deep-json.js";

/**
 * The Pod a resize request leaves (dropNonResizeUpdates). Added, removed, reordered or renamed
 * containers are passed through as asked, so that validation refuses them as kube does.
 */
export function podResize(oldObj: Readonly<Obj>, obj: Obj): Obj {
  const next = cloneJson(oldObj) as Obj;
  const spec = (next.spec ?? {}) as Obj;
  const asked = (obj.spec ?? {}) as Obj;
  for (const list of ["containers", "initContainers"]) {
    const merged = mergeResources(asked[list], spec[list]);
    if (merged === undefined) delete spec[list];
    else spec[list] = merged;
  }
  if (asked.resources === undefined) delete spec.resources;
  else spec.resources = asked.resources;
  next.spec = spec;
  (next.metadata as Obj).resourceVersion = (obj.metadata as Obj | undefined)?.resourceVersion;
  return next;
}

/** The stored containers with the asked ones' resources and resizePolicy (kube matches by index). */
function mergeResources(asked: unknown, stored: unknown): unknown {
  if (!Array.isArray(asked) || asked.length === 0) return asked;
  if (!Array.isArray(stored) || stored.length !== asked.length) return asked;
  const out: Obj[] = [];
  for (let i = 0; i < asked.length; i++) {
    const a = asked[i] as Obj;
    const s = { ...(stored[i] as Obj) };
    if (a?.name !== s.name) return asked;
    for (const k of ["resources", "resizePolicy"]) {
      if (a[k] === undefined) delete s[k];
      else s[k] = a[k];
    }
    out.push(s);
  }
  return out;
}
