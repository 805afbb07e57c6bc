// Pods and pod templates: the defaults kube's API server fills that clients rely on, and the
// required fields it checks.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

function defaultContainer(c: Obj): void {
  c.terminationMessagePath ??= "/dev/termination-log";
  c.terminationMessagePolicy ??= "File";
  if (c.imagePullPolicy === undefined && typeof c.image === "string") {
    const tag = c.image.includes("@") ? "digest" : (c.image.split("/").pop()?.split(":")[1] ?? "latest");
    c.imagePullPolicy = tag === "latest" ? "Always" : "IfNotPresent";
  }
  c.resources ??= {};
  if (Array.isArray(c.ports)) for (const p of c.ports as Obj[]) p.protocol ??= "TCP";
}

/** Fills a PodSpec's defaults in place. */
export function defaultPodSpec(spec: Obj): void {
  for (const list of ["containers", "initContainers"]) {
    if (Array.isArray(spec[list]))
      for (const c of spec[list] as Obj[]) if (c && typeof c === "object") defaultContainer(c);
  }
  spec.restartPolicy ??= "Always";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
}

/** Required fields of a PodSpec, with kube's causes. */
export function validatePodSpec(spec: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!spec || typeof spec !== "object") return [cause.required(path)];
  const containers = (spec as Obj).containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push(cause.required(`${path}.containers`));
    return causes;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}.containers[${i}]`;
    const co = (c ?? {}) as Obj;
    if (typeof co.name !== "string" || co.name === "") causes.push(cause.required(`${p}.name`));
    else if (names.has(co.name)) causes.push(cause.duplicate(`${p}.name`, co.name));
    else names.add(co.name);
    if (typeof co.image !== "string" || co.image === "") causes.push(cause.required(`${p}.image`));
  });
  return causes;
}

export const podBehaviour: KindBehaviour = {
  defaults(obj, { old }) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    defaultPodSpec(spec);
    // kube's SetDefaults_Pod, not SetDefaults_PodSpec: templates do not get it.
    spec.enableServiceLinks ??= true;
    if (!old && obj.status === undefined) obj.status = { phase: "Pending", qosClass: "BestEffort" };
  },
  validate(obj) {
    return validatePodSpec(obj.spec, "spec");
  },
};
