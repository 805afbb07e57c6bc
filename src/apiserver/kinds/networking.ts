// NetworkPolicies and EndpointSlices: the protocol and policy-type defaults kube fills.
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

function defaultPorts(ports: unknown): void {
  if (!Array.isArray(ports)) return;
  for (const p of ports as Obj[]) if (p && typeof p === "object") p.protocol ??= "TCP";
}

export const networkPolicyBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    for (const rule of [...((spec.ingress as Obj[]) ?? []), ...((spec.egress as Obj[]) ?? [])]) {
      if (rule && typeof rule === "object") defaultPorts(rule.ports);
    }
    if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
      // A policy that names no types is at least an Ingress policy.
      spec.policyTypes =
        Array.isArray(spec.egress) && spec.egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
    }
  },
};

export const endpointSliceBehaviour: KindBehaviour = {
  defaults(obj) {
    if (!Array.isArray(obj.ports)) return;
    for (const p of obj.ports as Obj[]) {
      if (!p || typeof p !== "object") continue;
      p.name ??= "";
      p.protocol ??= "TCP";
    }
  },
};
