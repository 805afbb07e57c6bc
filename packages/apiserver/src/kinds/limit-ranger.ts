// kube's LimitRanger admission for a Pod being created: the LimitRanges of its namespace give its
// containers their default limits and requests (Container items' default and defaultRequest),
// then bound them (min, max, maxLimitRequestRatio per Container, and per Pod the sums); a Pod out
// of bounds is refused with every reason.
import { addAmounts, compareAmounts, parseQuantity } from "../object/quantity.js";
import type { ServerContext } from "../handlers/context.js";
import { forbidden } from "../status.js";
import { canonicalQuantityText } from "controller-runtime/api";
import type { Obj } from "../storage/index.js";

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
type Amount = { n: bigint; scale: number };
/** A quantity's value, and its text as kube prints it (as sent; a sum in canonical form). */
type Q = { a: Amount; text: string };

function amount(q: unknown): Amount | undefined {
  try {
    return typeof q === "string" || typeof q === "number" ? parseQuantity(String(q)) : undefined;
  } catch {
    return undefined;
  }
}

const cmp = compareAmounts;
const sum = addAmounts;

function containersOf(spec: Obj): Obj[] {
  return ["containers", "initContainers"].flatMap((k) =>
    Array.isArray(spec[k]) ? (spec[k] as unknown[]).filter(isObj) : [],
  );
}

function resourcesOf(c: Obj): { requests: Obj; limits: Obj } {
  const r = isObj(c.resources) ? c.resources : {};
  c.resources = r;
  return { requests: isObj(r.requests) ? r.requests : {}, limits: isObj(r.limits) ? r.limits : {} };
}

export function admitLimitRanges(server: ServerContext, namespace: string, spec: Obj, pod: string): void {
  const items = server.storage.list("/limitranges", namespace).flatMap((s) => {
    const lrSpec = (s.obj as Obj).spec;
    return isObj(lrSpec) && Array.isArray(lrSpec.limits) ? (lrSpec.limits as unknown[]).filter(isObj) : [];
  });
  if (items.length === 0) return;
  // Defaults first (kube's PodMutateLimitFunc): what a container does not set.
  for (const item of items.filter((i) => i.type === "Container")) {
    for (const c of containersOf(spec)) {
      const { requests, limits } = resourcesOf(c);
      for (const [k, v] of Object.entries(isObj(item.default) ? item.default : {}))
        if (!(k in limits)) limits[k] = v;
      for (const [k, v] of Object.entries(isObj(item.defaultRequest) ? item.defaultRequest : {})) {
        if (!(k in requests)) requests[k] = v;
      }
      const r = c.resources as Obj;
      if (Object.keys(limits).length > 0) r.limits = limits;
      if (Object.keys(requests).length > 0) r.requests = requests;
    }
  }
  // Then the bounds (kube's PodValidateLimitFunc).
  const problems: string[] = [];
  const check = (type: string, requests: Map<string, Q>, limits: Map<string, Q>, item: Obj) => {
    for (const [k, v] of Object.entries(isObj(item.min) ? item.min : {})) {
      const min = amount(v);
      const req = requests.get(k);
      const lim = limits.get(k);
      if (!min) continue;
      if (!req) problems.push(`minimum ${k} usage per ${type} is ${v}.  No request is specified`);
      else if (cmp(req.a, min) < 0)
        problems.push(`minimum ${k} usage per ${type} is ${v}, but request is ${req.text}`);
      if (lim && cmp(lim.a, min) < 0)
        problems.push(`minimum ${k} usage per ${type} is ${v}, but limit is ${lim.text}`);
    }
    for (const [k, v] of Object.entries(isObj(item.max) ? item.max : {})) {
      const max = amount(v);
      const req = requests.get(k);
      const lim = limits.get(k);
      if (!max) continue;
      if (!lim) problems.push(`maximum ${k} usage per ${type} is ${v}.  No limit is specified`);
      else if (cmp(lim.a, max) > 0)
        problems.push(`maximum ${k} usage per ${type} is ${v}, but limit is ${lim.text}`);
      if (req && cmp(req.a, max) > 0)
        problems.push(`maximum ${k} usage per ${type} is ${v}, but request is ${req.text}`);
    }
    for (const [k, v] of Object.entries(isObj(item.maxLimitRequestRatio) ? item.maxLimitRequestRatio : {})) {
      const ratio = amount(v);
      const req = requests.get(k);
      const lim = limits.get(k);
      if (!ratio || !req || !lim || req.a.n === 0n) continue;
      // limit / request > ratio  ⇔  limit > ratio × request
      if (cmp(lim.a, { n: ratio.n * req.a.n, scale: ratio.scale + req.a.scale }) > 0)
        problems.push(`${k} max limit to request ratio per ${type} is ${v}`);
    }
  };
  const amounts = (o: Obj) => {
    const out = new Map<string, Q>();
    for (const [k, v] of Object.entries(o)) {
      const a = amount(v);
      if (a) out.set(k, { a, text: String(v) });
    }
    return out;
  };
  const add = (into: Map<string, Q>, k: string, q: Q) => {
    const prev = into.get(k);
    if (prev === undefined) return void into.set(k, q);
    let a: Amount;
    try {
      a = sum(prev.a, q.a);
    } catch {
      // Hostile exponents too far apart to add: the larger stands for the sum.
      if (cmp(q.a, prev.a) > 0) into.set(k, q);
      return;
    }
    const text = show(a);
    into.set(k, { a, text: canonicalQuantityText(text) ?? text });
  };
  for (const item of items) {
    if (item.type === "Container") {
      for (const c of containersOf(spec)) {
        const { requests, limits } = resourcesOf(c);
        check("Container", amounts(requests), amounts(limits), item);
      }
    } else if (item.type === "Pod") {
      const requests = new Map<string, Q>();
      const limits = new Map<string, Q>();
      for (const c of containersOf(spec)) {
        const { requests: rq, limits: lm } = resourcesOf(c);
        for (const [k, q] of amounts(rq)) add(requests, k, q);
        for (const [k, q] of amounts(lm)) add(limits, k, q);
      }
      check("Pod", requests, limits, item);
    }
  }
  if (problems.length > 0) {
    const message = problems.length === 1 ? problems[0] : `[${problems.join(", ")}]`;
    throw forbidden({ group: "", resource: "pods", kind: "Pod" }, pod, message);
  }
}

/** A quantity as a plain decimal. */
function show(a: Amount): string {
  // Hostile exponents (to ±2^31) are shown as exponents rather than built out.
  if (Math.abs(a.scale) > 4096) return `${a.n}e${a.scale}`;
  if (a.scale >= 0) return String(a.n * 10n ** BigInt(a.scale));
  const s = a.n.toString().padStart(-a.scale + 1, "0");
  return `${s.slice(0, a.scale)}.${s.slice(a.scale)}`;
}
