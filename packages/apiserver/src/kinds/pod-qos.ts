// A Pod's quality of service class (kube's qos.GetPodQOS), set in its status when it is created,
// and the requests a container gets from its limits (SetDefaults_Pod), which the class reads.
import { addAmounts, compareAmounts, parseQuantity } from "../object/quantity.js";
import type { Obj } from "../storage/index.js";

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function containersOf(spec: Obj): Obj[] {
  return ["containers", "initContainers"].flatMap((k) =>
    Array.isArray(spec[k]) ? (spec[k] as unknown[]).filter(isObj) : [],
  );
}

/** A container's limits requested too, when its requests do not name them (kube's SetDefaults_Pod). */
export function defaultRequestsFromLimits(spec: Obj): void {
  for (const c of containersOf(spec)) {
    const resources = c.resources;
    if (!isObj(resources) || !isObj(resources.limits)) continue;
    const requests = isObj(resources.requests) ? resources.requests : {};
    for (const [name, value] of Object.entries(resources.limits))
      if (!(name in requests)) requests[name] = value;
    resources.requests = requests;
  }
}

/** Exact value of a quantity as a fraction-free pair, or undefined when it does not parse. */
function amount(q: unknown): { n: bigint; scale: number } | undefined {
  try {
    return typeof q === "string" || typeof q === "number" ? parseQuantity(String(q)) : undefined;
  } catch {
    return undefined;
  }
}

function same(a: { n: bigint; scale: number }, b: { n: bigint; scale: number }): boolean {
  return compareAmounts(a, b) === 0;
}

/** kube's GetPodQOS from the containers' cpu and memory requests and limits. */
export function podQOS(spec: Obj): "Guaranteed" | "Burstable" | "BestEffort" {
  const QOS_RESOURCES = ["cpu", "memory"];
  const requests = new Map<string, { n: bigint; scale: number }>();
  const limits = new Map<string, { n: bigint; scale: number }>();
  const add = (into: typeof requests, name: string, a: { n: bigint; scale: number }) => {
    const prev = into.get(name);
    if (!prev) into.set(name, a);
    else {
      // Amounts too far apart in scale to add (hostile exponents) leave the class Burstable.
      try {
        into.set(name, addAmounts(prev, a));
      } catch {
        into.set(name, { n: -1n, scale: 0 });
      }
    }
  };
  let guaranteed = true;
  for (const c of containersOf(spec)) {
    const r = isObj(c.resources) ? c.resources : {};
    const req = isObj(r.requests) ? r.requests : {};
    const lim = isObj(r.limits) ? r.limits : {};
    for (const name of QOS_RESOURCES) {
      const a = amount(req[name]);
      if (a && a.n > 0n) add(requests, name, a);
    }
    let limitsFound = 0;
    for (const name of QOS_RESOURCES) {
      const a = amount(lim[name]);
      if (a && a.n > 0n) {
        limitsFound++;
        add(limits, name, a);
      }
    }
    if (limitsFound !== QOS_RESOURCES.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (!lim || !same(lim, req)) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
