// What a ResourceQuota counts, as kube computes it (k8s.io/apiserver/pkg/quota/v1 and
// k8s.io/kubernetes/pkg/quota/v1/evaluator/core, v1.37): the usage of an object (object counts,
// the legacy names `pods`, `services`, ..., a Pod's compute requests and limits, a claim's
// storage), the quota scopes it falls in, and resource list arithmetic. One implementation for
// the embedded API server's quota admission and the simulated quota controller, so that what
// admission charges and what the controller recomputes agree.
import {
  addQuantities,
  compareQuantities,
  countQuantity,
  formatQuantity,
  parseQuantity,
  type Quantity,
  roundUpQuantity,
  subtractQuantities,
  zeroQuantity,
} from "./quantity.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const objects = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** A resource list (`spec.hard`, `status.used`) with parsed quantities. */
export type ResourceList = Map<string, Quantity>;

/** The quantities of a JSON resource list; entries that do not parse are left out. */
export function parseResourceList(v: unknown): ResourceList {
  const out: ResourceList = new Map();
  if (!isObj(v)) return out;
  for (const [k, text] of Object.entries(v)) {
    const q = parseQuantity(text);
    if (q) out.set(k, q);
  }
  return out;
}

/** A resource list as JSON, each quantity in kube's canonical text. */
export function resourceListJSON(list: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...list.keys()].sort()) out[k] = formatQuantity(list.get(k)!);
  return out;
}

/** quota.Add: every key of either, summed where both have it. */
export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, q] of b) out.set(k, out.has(k) ? addQuantities(out.get(k)!, q) : q);
  return out;
}

/** quota.SubtractWithNonNegativeResult: a − b per key of either, never below zero. */
export function subtractListsNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const zero = zeroQuantity();
  const out: ResourceList = new Map();
  for (const [k, q] of a) {
    const d = b.has(k) ? subtractQuantities(q, b.get(k)!) : q;
    out.set(k, compareQuantities(d, zero) > 0 ? d : zero);
  }
  for (const k of b.keys()) if (!out.has(k)) out.set(k, zero);
  return out;
}

/** quota.Mask: only the named entries. */
export function maskList(list: ResourceList, names: Iterable<string>): ResourceList {
  const keep = new Set(names);
  return new Map([...list].filter(([k]) => keep.has(k)));
}

/** quota.RemoveZeros. */
export function removeZeros(list: ResourceList): ResourceList {
  return new Map([...list].filter(([, q]) => q.n !== 0n));
}

/** quota.Equals: same keys, equal values. */
export function listsEqual(a: ResourceList, b: ResourceList): boolean {
  if (a.size !== b.size) return false;
  for (const [k, q] of a) {
    const other = b.get(k);
    if (!other || compareQuantities(q, other) !== 0) return false;
  }
  return true;
}

/** quota.LessThanOrEqual: the names of `limits` that `a` exceeds. */
export function exceededNames(a: ResourceList, limits: ResourceList): string[] {
  return [...limits].filter(([k, q]) => a.has(k) && compareQuantities(a.get(k)!, q) > 0).map(([k]) => k);
}

/** The admission plugin's prettyPrint: `name=value` sorted by name, comma separated. */
export function prettyPrintList(list: ResourceList): string {
  return [...list.keys()]
    .sort()
    .map((k) => `${k}=${formatQuantity(list.get(k)!)}`)
    .join(",");
}

/** A quota's scope requirement (`spec.scopes` entries become `Exists` requirements). */
export interface ScopeRequirement {
  scopeName: string;
  operator: string;
  values?: readonly string[];
}

/** getScopeSelectorsFromQuota: spec.scopes, then spec.scopeSelector.matchExpressions. */
export function scopeSelectorsOf(quota: Obj): ScopeRequirement[] {
  const spec = isObj(quota.spec) ? quota.spec : {};
  const out: ScopeRequirement[] = [];
  for (const s of Array.isArray(spec.scopes) ? spec.scopes : []) {
    out.push({ scopeName: String(s), operator: "Exists" });
  }
  const selector = isObj(spec.scopeSelector) ? spec.scopeSelector : {};
  for (const e of objects(selector.matchExpressions)) {
    out.push({
      scopeName: String(e.scopeName ?? ""),
      operator: String(e.operator ?? ""),
      values: Array.isArray(e.values) ? e.values.map(String) : undefined,
    });
  }
  return out;
}

export type QuotaOperation = "CREATE" | "UPDATE";

/** kube's quota.Evaluator for one group and resource. */
export interface QuotaEvaluator {
  readonly group: string;
  readonly resource: string;
  /** Whether admission charges this write. */
  handles(op: QuotaOperation, subresource: string, obj: Obj, old: Obj | undefined): boolean;
  /** The names among `names` this evaluator computes. */
  matchingResources(names: Iterable<string>): string[];
  /** Whether the object falls in the scope (false for scopes the resource has none of). */
  matchesScope(scope: ScopeRequirement, obj: Obj): boolean;
  /** The object's usage; `now` (ms) decides whether a Pod being deleted still counts. */
  usage(obj: Obj, now: number): ResourceList;
  /** Why the object cannot be admitted under a quota limiting `required`, or undefined. */
  constraints(required: readonly string[], obj: Obj): string | undefined;
}

/** `count/<resource>` for the core group, `count/<resource>.<group>` otherwise. */
export function objectCountName(group: string, resource: string): string {
  return group === "" ? `count/${resource}` : `count/${resource}.${group}`;
}

/** The group and resource a `count/...` name counts, or undefined for other names. */
export function parseObjectCountName(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith("count/")) return undefined;
  const rest = name.slice("count/".length);
  const dot = rest.indexOf(".");
  return dot < 0
    ? { group: "", resource: rest }
    : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}

/** Resources the quota system never counts (kube's DefaultIgnoredResources). */
const IGNORED = new Set([
  "/bindings",
  "/componentstatuses",
  "authentication.k8s.io/tokenreviews",
  "authentication.k8s.io/selfsubjectreviews",
  "authorization.k8s.io/subjectaccessreviews",
  "authorization.k8s.io/selfsubjectaccessreviews",
  "authorization.k8s.io/localsubjectaccessreviews",
  "authorization.k8s.io/selfsubjectrulesreviews",
  "/events",
  "events.k8s.io/events",
]);

export function isQuotaIgnored(group: string, resource: string): boolean {
  return IGNORED.has(`${group}/${resource}`);
}

const intersect = (names: Iterable<string>, known: readonly string[]) =>
  [...names].filter((n) => known.includes(n));

/** generic.NewObjectCountEvaluator: one per created object, under its count name and alias. */
function countEvaluator(group: string, resource: string, alias?: string): QuotaEvaluator {
  const names = alias ? [objectCountName(group, resource), alias] : [objectCountName(group, resource)];
  return {
    group,
    resource,
    handles: (op, subresource) => subresource === "" && op === "CREATE",
    matchingResources: (input) => intersect(input, names),
    matchesScope: () => false,
    usage: () => new Map(names.map((n) => [n, countQuantity(1)])),
    constraints: () => undefined,
  };
}

// ---- Pods (evaluator/core/pods.go) ----

const POD_RESOURCES = [
  "count/pods",
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
];
const CONSTRAINED = new Set([
  "cpu",
  "memory",
  "requests.cpu",
  "requests.memory",
  "limits.cpu",
  "limits.memory",
]);
/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
const isNative = (name: string) => !name.includes("/") || name.includes("kubernetes.io/");
const DEVICE_CLASS_PREFIX = "deviceclass.resource.kubernetes.io/";
const isExtendedForQuota = (name: string) =>
  name.startsWith("requests.") && (!isNative(name) || name.startsWith(`requests.${DEVICE_CLASS_PREFIX}`));
/** schedutil.IsDRAExtendedResourceName: an extended resource, or one a device class provides. */
const isDRAExtended = (name: string) =>
  (!isNative(name) && !name.startsWith("requests.")) || name.startsWith(DEVICE_CLASS_PREFIX);

function resourcesOf(c: Obj): { requests: ResourceList; limits: ResourceList } {
  const r = isObj(c.resources) ? c.resources : {};
  return { requests: parseResourceList(r.requests), limits: parseResourceList(r.limits) };
}

/** podComputeUsageHelper: what requests and limits charge. */
function computeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([["pods", countQuantity(1)]]);
  const set = (names: string[], q: Quantity | undefined) => {
    if (q) for (const n of names) out.set(n, q);
  };
  set(["cpu", "requests.cpu"], requests.get("cpu"));
  set(["limits.cpu"], limits.get("cpu"));
  set(["memory", "requests.memory"], requests.get("memory"));
  set(["limits.memory"], limits.get("memory"));
  set(["ephemeral-storage", "requests.ephemeral-storage"], requests.get("ephemeral-storage"));
  set(["limits.ephemeral-storage"], limits.get("ephemeral-storage"));
  for (const [name, q] of requests) {
    if (name.startsWith("hugepages-")) set([name, `requests.${name}`], q);
    // Extended resources (example.com/dongle) are charged as requests.<name>.
    if (isDRAExtended(name)) out.set(`requests.${name}`, q);
  }
  return out;
}

function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = new Map(a);
  for (const [k, q] of b) if (!out.has(k) || compareQuantities(out.get(k)!, q) < 0) out.set(k, q);
  return out;
}

/** resourcehelper.PodRequests / PodLimits: containers and sidecars summed, init containers' peak. */
function podTotals(spec: Obj, which: "requests" | "limits"): ResourceList {
  let sum: ResourceList = new Map();
  for (const c of objects(spec.containers)) sum = addLists(sum, resourcesOf(c)[which]);
  let sidecars: ResourceList = new Map();
  let initPeak: ResourceList = new Map();
  for (const c of objects(spec.initContainers)) {
    const own = resourcesOf(c)[which];
    if (c.restartPolicy === "Always") {
      sum = addLists(sum, own);
      sidecars = addLists(sidecars, own);
      initPeak = maxLists(initPeak, sidecars);
    } else initPeak = maxLists(initPeak, addLists(own, sidecars));
  }
  let total = maxLists(sum, initPeak);
  // Pod-level resources (spec.resources) replace the containers' cpu and memory.
  const podLevel = isObj(spec.resources)
    ? parseResourceList(spec.resources[which])
    : new Map<string, Quantity>();
  for (const name of ["cpu", "memory"]) {
    const q = podLevel.get(name);
    if (q) total.set(name, q);
  }
  const overhead = parseResourceList(spec.overhead);
  if (which === "requests") total = addLists(total, overhead);
  else for (const [k, q] of overhead) if (total.has(k)) total.set(k, addQuantities(total.get(k)!, q));
  return total;
}

function isTerminating(pod: Obj): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  return typeof spec.activeDeadlineSeconds === "number" && spec.activeDeadlineSeconds >= 0;
}

/** qos.GetPodQOS() === BestEffort: no container asks for or limits cpu or memory. */
function isBestEffort(pod: Obj): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const lists = [...objects(spec.containers), ...objects(spec.initContainers)].flatMap((c) => {
    const { requests, limits } = resourcesOf(c);
    return [requests, limits];
  });
  if (isObj(spec.resources))
    lists.push(parseResourceList(spec.resources.requests), parseResourceList(spec.resources.limits));
  return !lists.some((l) => ["cpu", "memory"].some((n) => (l.get(n)?.n ?? 0n) > 0n));
}

/** quota.v1 QuotaV1Pod: whether a Pod still counts (not finished, not past its deletion grace). */
function podCounts(pod: Obj, now: number): boolean {
  const status = isObj(pod.status) ? pod.status : {};
  if (status.phase === "Failed" || status.phase === "Succeeded") return false;
  const meta = isObj(pod.metadata) ? pod.metadata : {};
  if (typeof meta.deletionTimestamp === "string" && typeof meta.deletionGracePeriodSeconds === "number") {
    if (now > Date.parse(meta.deletionTimestamp) + meta.deletionGracePeriodSeconds * 1000) return false;
  }
  return true;
}

/** A label-selector requirement over one key (ScopedResourceSelectorRequirementsAsSelector). */
function selectorMatches(scope: ScopeRequirement, value: string | undefined): boolean {
  const values = scope.values ?? [];
  switch (scope.operator) {
    case "In":
      return value !== undefined && values.includes(value);
    case "NotIn":
      return value === undefined || !values.includes(value);
    case "Exists":
      return value !== undefined;
    case "DoesNotExist":
      return value === undefined;
    default:
      return false;
  }
}

function usesCrossNamespaceAffinity(pod: Obj): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const affinity = isObj(spec.affinity) ? spec.affinity : {};
  const crossNamespace = (t: Obj) =>
    (Array.isArray(t.namespaces) && t.namespaces.length > 0) || isObj(t.namespaceSelector);
  return [affinity.podAffinity, affinity.podAntiAffinity].some((a) => {
    if (!isObj(a)) return false;
    return (
      objects(a.requiredDuringSchedulingIgnoredDuringExecution).some(crossNamespace) ||
      objects(a.preferredDuringSchedulingIgnoredDuringExecution).some((w) =>
        crossNamespace(isObj(w.podAffinityTerm) ? w.podAffinityTerm : {}),
      )
    );
  });
}

function podMatchesScope(scope: ScopeRequirement, pod: Obj): boolean {
  switch (scope.scopeName) {
    case "Terminating":
      return isTerminating(pod);
    case "NotTerminating":
      return !isTerminating(pod);
    case "BestEffort":
      return isBestEffort(pod);
    case "NotBestEffort":
      return !isBestEffort(pod);
    case "PriorityClass": {
      const spec = isObj(pod.spec) ? pod.spec : {};
      const name =
        typeof spec.priorityClassName === "string" && spec.priorityClassName
          ? spec.priorityClassName
          : undefined;
      return selectorMatches(scope, name);
    }
    case "CrossNamespacePodAffinity":
      return usesCrossNamespaceAffinity(pod);
    default:
      return false;
  }
}

const podEvaluator: QuotaEvaluator = {
  group: "",
  resource: "pods",
  handles(op, subresource, obj, old) {
    if (subresource === "resize") return op === "UPDATE";
    if (subresource !== "") return false;
    if (op === "UPDATE" && old && isTerminating(old) !== isTerminating(obj)) return true;
    return op === "CREATE";
  },
  matchingResources(input) {
    return [...input].filter(
      (n) =>
        POD_RESOURCES.includes(n) ||
        n.startsWith("hugepages-") ||
        n.startsWith("requests.hugepages-") ||
        isExtendedForQuota(n),
    );
  },
  matchesScope: podMatchesScope,
  usage(pod, now) {
    const out: ResourceList = new Map([["count/pods", countQuantity(1)]]);
    if (!podCounts(pod, now)) return out;
    const spec = isObj(pod.spec) ? pod.spec : {};
    return addLists(out, computeUsage(podTotals(spec, "requests"), podTotals(spec, "limits")));
  },
  constraints(required, pod) {
    const spec = isObj(pod.spec) ? pod.spec : {};
    const podLevel = isObj(spec.resources) ? spec.resources : {};
    if ([podLevel.requests, podLevel.limits].some((l) => isObj(l) && ("cpu" in l || "memory" in l)))
      return undefined;
    const requiredSet = required.filter((n) => CONSTRAINED.has(n));
    const missing = new Map<string, Set<string>>();
    for (const c of [...objects(spec.containers), ...objects(spec.initContainers)]) {
      const { requests, limits } = resourcesOf(c);
      const has = computeUsage(requests, limits);
      for (const n of requiredSet) {
        if (has.has(n)) continue;
        if (!missing.has(n)) missing.set(n, new Set());
        missing.get(n)!.add(String(c.name ?? ""));
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((n) => `${n} for: ${[...missing.get(n)!].sort().join(",")}`);
    return `must specify ${parts.join("; ")}`;
  },
};

// ---- Services (evaluator/core/services.go) ----

const SERVICE_RESOURCES = ["count/services", "services", "services.nodeports", "services.loadbalancers"];

const serviceEvaluator: QuotaEvaluator = {
  group: "",
  resource: "services",
  handles: (op, subresource) => subresource === "" && (op === "CREATE" || op === "UPDATE"),
  matchingResources: (input) => intersect(input, SERVICE_RESOURCES),
  matchesScope: () => false,
  usage(svc) {
    const spec = isObj(svc.spec) ? svc.spec : {};
    const ports = objects(spec.ports);
    let nodePorts = 0;
    let loadBalancers = 0;
    if (spec.type === "NodePort") nodePorts = ports.length;
    else if (spec.type === "LoadBalancer") {
      nodePorts =
        spec.allocateLoadBalancerNodePorts === false
          ? ports.filter((p) => typeof p.nodePort === "number" && p.nodePort !== 0).length
          : ports.length;
      loadBalancers = 1;
    }
    return new Map([
      ["count/services", countQuantity(1)],
      ["services", countQuantity(1)],
      ["services.loadbalancers", countQuantity(loadBalancers)],
      ["services.nodeports", countQuantity(nodePorts)],
    ]);
  },
  constraints: () => undefined,
};

// ---- PersistentVolumeClaims (evaluator/core/persistent_volume_claims.go) ----

const STORAGE_CLASS_SUFFIX = ".storageclass.storage.k8s.io/";
const PVC_RESOURCES = ["persistentvolumeclaims", "requests.storage"];

function claimClass(pvc: Obj): string {
  const meta = isObj(pvc.metadata) ? pvc.metadata : {};
  const annotations = isObj(meta.annotations) ? meta.annotations : {};
  const beta = annotations["volume.beta.kubernetes.io/storage-class"];
  if (typeof beta === "string") return beta;
  const spec = isObj(pvc.spec) ? pvc.spec : {};
  return typeof spec.storageClassName === "string" ? spec.storageClassName : "";
}

const pvcEvaluator: QuotaEvaluator = {
  group: "",
  resource: "persistentvolumeclaims",
  handles: (op, subresource) => subresource === "" && (op === "CREATE" || op === "UPDATE"),
  matchingResources(input) {
    return [...input].filter(
      (n) =>
        n === "count/persistentvolumeclaims" ||
        PVC_RESOURCES.includes(n) ||
        PVC_RESOURCES.some((r) => n.endsWith(STORAGE_CLASS_SUFFIX + r)),
    );
  },
  matchesScope: () => false,
  usage(pvc) {
    const out: ResourceList = new Map([
      ["persistentvolumeclaims", countQuantity(1)],
      ["count/persistentvolumeclaims", countQuantity(1)],
    ]);
    const cls = claimClass(pvc);
    if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, countQuantity(1));
    const spec = isObj(pvc.spec) ? pvc.spec : {};
    const resources = isObj(spec.resources) ? spec.resources : {};
    let storage = parseResourceList(resources.requests).get("storage");
    if (storage) {
      storage = roundUpQuantity(storage);
      // A claim whose expansion is under way counts what was allocated, when more.
      const status = isObj(pvc.status) ? pvc.status : {};
      const allocated = parseResourceList(status.allocatedResources).get("storage");
      if (allocated && compareQuantities(allocated, storage) > 0) storage = roundUpQuantity(allocated);
      out.set("requests.storage", storage);
      if (cls) out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
    }
    return out;
  },
  constraints: () => undefined,
};

const LEGACY_ALIASES: Record<string, string> = {
  configmaps: "configmaps",
  resourcequotas: "resourcequotas",
  replicationcontrollers: "replicationcontrollers",
  secrets: "secrets",
};

/** The evaluator of a group and resource: a specific one, or an object count (as admission adds). */
export function quotaEvaluatorFor(group: string, resource: string): QuotaEvaluator {
  if (group === "") {
    if (resource === "pods") return podEvaluator;
    if (resource === "services") return serviceEvaluator;
    if (resource === "persistentvolumeclaims") return pvcEvaluator;
    const alias = LEGACY_ALIASES[resource];
    if (alias) return countEvaluator(group, resource, alias);
  }
  return countEvaluator(group, resource);
}

/** The evaluators that compute every name a quota of `hard` limits: the core ones, then counts. */
export function evaluatorsForNames(names: Iterable<string>): QuotaEvaluator[] {
  const all = [...names];
  const out: QuotaEvaluator[] = [];
  const seen = new Set<string>();
  const consider = (e: QuotaEvaluator) => {
    const key = `${e.group}/${e.resource}`;
    if (seen.has(key) || e.matchingResources(all).length === 0) return;
    seen.add(key);
    out.push(e);
  };
  for (const e of [podEvaluator, serviceEvaluator, pvcEvaluator]) consider(e);
  for (const resource of Object.keys(LEGACY_ALIASES)) consider(quotaEvaluatorFor("", resource));
  for (const n of all) {
    const gr = parseObjectCountName(n);
    if (gr && !isQuotaIgnored(gr.group, gr.resource)) consider(quotaEvaluatorFor(gr.group, gr.resource));
  }
  return out;
}

/** generic.Matches: the quota limits something the evaluator computes, and the object is in every scope. */
export function quotaMatches(quota: Obj, evaluator: QuotaEvaluator, obj: Obj): boolean {
  const status = isObj(quota.status) ? quota.status : {};
  const hard = isObj(status.hard) ? Object.keys(status.hard) : [];
  if (evaluator.matchingResources(hard).length === 0) return false;
  return scopeSelectorsOf(quota).every((s) => evaluator.matchesScope(s, obj));
}

/**
 * generic.CalculateUsageStats: what `items` use of `names`, counting only those in every scope
 * of the quota (every name present, zero when nothing uses it).
 */
export function usageOf(
  quota: Obj,
  evaluator: QuotaEvaluator,
  names: readonly string[],
  items: readonly Obj[],
  now: number,
): ResourceList {
  let used: ResourceList = new Map(names.map((n) => [n, zeroQuantity()]));
  const scopes = scopeSelectorsOf(quota);
  for (const item of items) {
    if (scopes.every((s) => evaluator.matchesScope(s, item)))
      used = addLists(used, evaluator.usage(item, now));
  }
  return maskList(used, names);
}
