// The table of updates, derived as the table of bad objects is (validation-cases.ts): each kind's
// smallest valid object is created for real, then changed one field at a time by a dry-run JSON
// patch: each string to another value its rules take, each number one up, each bool flipped, a
// list item added, each field and list item removed; plus, per kind, the fields kube's defaulting
// or allocation sets (a Service's clusterIP, a Job's selector). What kube refuses on update is
// mostly immutability (ValidateXUpdate in pkg/apis/*/validation): the recording
// (scripts/record-validation.ts) keeps kube-apiserver's answers under `Kind/update:change`.
import type { Api } from "./harness.js";
import { fixtures, type Outcome, outcomeOf } from "./validation-cases.js";

type Json = Record<string, unknown>;

/** One JSON patch operation. */
interface Op {
  op: "add" | "remove" | "replace";
  path: string;
  value?: unknown;
}

export interface UpdateCase {
  /** `Kind/update:change`, stable across runs: the key of the recording. */
  id: string;
  /** The object's path, with its name. */
  path: string;
  /** The JSON patch; none for a PUT of the object as read. */
  patch?: Op[];
}

/** The objects the update table creates for real, in order, and its cases. */
export interface UpdateTable {
  objects: { collection: string; body: Json; path: string }[];
  cases: UpdateCase[];
}

/** Kinds whose objects the table does not create: their creation depends on more than the fixture. */
const NOT_UPDATED = new Set<string>([]);

/** Strings with a value of the same rule's to change to: enums, and values whose form is checked. */
const OTHER: Record<string, string> = {
  TCP: "UDP",
  UDP: "TCP",
  Always: "IfNotPresent",
  OnFailure: "Never",
  Never: "OnFailure",
  OrderedReady: "Parallel",
  RollingUpdate: "Recreate",
  ClusterIP: "NodePort",
  Opaque: "example.com/other",
  IPv4: "IPv6",
  Utilization: "AverageValue",
  Resource: "Pods",
  Container: "Pod",
  ReadWriteOnce: "ReadWriteMany",
  "client auth": "digital signature",
  cpu: "memory",
  ApplyConfiguration: "JSONPatch",
  CREATE: "UPDATE",
  NoSchedule: "NoExecute",
  get: "list",
  Role: "ClusterRole",
  ClusterRole: "Role",
  ServiceAccount: "User",
  Deployment: "StatefulSet",
  "*/5 * * * *": "*/10 * * * *",
  "apps/v1": "apps/v2",
  v1: "v2",
  "rbac.authorization.k8s.io": "example.com",
  None: "NoneOnDryRun",
  "kubernetes.io/kube-apiserver-client": "kubernetes.io/kube-apiserver-client-kubelet",
  "https://webhook.example.com/check": "https://webhook.example.com/other",
  "2026-01-01T00:00:00.000000Z": "2026-01-01T00:00:01.000000Z",
};

/** Another value for `v` that its field's rules take, or undefined to leave it (certificates, PEM). */
function another(v: string): string | undefined {
  if (v in OTHER) return OTHER[v];
  if (v.length > 100) return undefined;
  if (v === "") return "x";
  const quantity = /^(\d+)(m|Ki|Mi|Gi)?$/.exec(v);
  if (quantity) return `${Number(quantity[1]) + 1}${quantity[2] ?? ""}`;
  const ip = /^(\d+)\.(\d+)\.(\d+)\.(\d+)(\/\d+)?$/.exec(v);
  if (ip)
    return ip[5]
      ? `${ip[1]}.${ip[2]}.${Number(ip[3]) + 1}.${ip[4]}${ip[5]}`
      : `${ip[1]}.${ip[2]}.${ip[3]}.${Number(ip[4]) + 1}`;
  if (/^[A-Za-z0-9+/]+=*$/.test(v) && v.endsWith("="))
    return Buffer.from(`${Buffer.from(v, "base64")}x`).toString("base64");
  return `${v}x`;
}

/** A JSON pointer to `path`. */
const pointer = (path: string[]) =>
  path.map((p) => `/${p.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");

/** Another list item like `item`: a copy with its name changed, so that names stay unique. */
function anotherItem(item: unknown): unknown {
  if (typeof item === "string") return another(item) ?? item;
  if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
  const copy = structuredClone(item) as Json;
  if (typeof copy.name === "string") copy.name = `${copy.name}2`;
  return copy;
}

/** The changes of one field at `path` holding `v`, and of what it holds. */
function changes(v: unknown, path: string[], out: [string, Op[]][]): void {
  const at = path.join(".");
  const p = pointer(path);
  if (Array.isArray(v)) {
    for (const [i, item] of v.entries()) changes(item, [...path, String(i)], out);
    if (v.length > 0)
      out.push([`${at}+item`, [{ op: "add", path: `${p}/-`, value: anotherItem(v[v.length - 1]) }]]);
  } else if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) changes(x, [...path, k], out);
  } else if (typeof v === "string") {
    const to = another(v);
    if (to !== undefined) out.push([`${at}=${to}`, [{ op: "replace", path: p, value: to }]]);
  } else if (typeof v === "number") {
    out.push([`${at}=${v + 1}`, [{ op: "replace", path: p, value: v + 1 }]]);
  } else if (typeof v === "boolean") {
    out.push([`${at}=${!v}`, [{ op: "replace", path: p, value: !v }]]);
  }
  out.push([`${at}-removed`, [{ op: "remove", path: p }]]);
}

/**
 * Per kind, changes of fields the fixture does not set but kube's defaulting, allocation or
 * registry does, and of fields an operator is likely to change.
 */
const EXTRA: Record<string, [string, Op[]][]> = (() => {
  const set = (path: string, value: unknown): [string, Op[]] => [
    `${path}=${JSON.stringify(value)}`,
    [{ op: "add", path: pointer(path.split(".")), value }],
  ];
  const drop = (path: string): [string, Op[]] => [
    `${path}-removed`,
    [{ op: "remove", path: pointer(path.split(".")) }],
  ];
  const claimTemplate = {
    metadata: { name: "data" },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  };
  return {
    Service: [
      set("spec.clusterIP", "10.0.0.77"),
      set("spec.clusterIPs", ["10.0.0.77"]),
      set("spec.clusterIP", "None"),
      set("spec.type", "ExternalName"),
      set("spec.sessionAffinity", "ClientIP"),
      set("spec.ipFamilyPolicy", "RequireDualStack"),
      set("spec.ipFamilies", ["IPv6"]),
      set("spec.internalTrafficPolicy", "Local"),
      set("spec.externalTrafficPolicy", "Local"),
      set("spec.publishNotReadyAddresses", true),
    ],
    Deployment: [
      set("spec.paused", true),
      set("spec.minReadySeconds", 700),
      set("spec.progressDeadlineSeconds", 5),
      set("spec.revisionHistoryLimit", -1),
      set("spec.strategy.rollingUpdate", { maxSurge: 0, maxUnavailable: 0 }),
      set("spec.strategy.rollingUpdate.maxUnavailable", "150%"),
    ],
    StatefulSet: [
      set("spec.volumeClaimTemplates", [claimTemplate]),
      set("spec.revisionHistoryLimit", 5),
      set("spec.minReadySeconds", 5),
      set("spec.ordinals", { start: 1 }),
      set("spec.updateStrategy.type", "OnDelete"),
      set("spec.updateStrategy", { type: "OnDelete" }),
      set("spec.persistentVolumeClaimRetentionPolicy.whenDeleted", "Delete"),
      set("spec.persistentVolumeClaimRetentionPolicy.whenScaled", "Sometimes"),
    ],
    DaemonSet: [
      set("spec.updateStrategy", { type: "OnDelete" }),
      set("spec.updateStrategy.type", "OnDelete"),
      set("spec.minReadySeconds", 5),
    ],
    ReplicaSet: [set("spec.minReadySeconds", 5)],
    Job: [
      set("spec.completions", 2),
      set("spec.parallelism", 3),
      set("spec.suspend", true),
      set("spec.completionMode", "Indexed"),
      set("spec.activeDeadlineSeconds", 60),
      set("spec.ttlSecondsAfterFinished", 60),
      set("spec.manualSelector", true),
      set("spec.podFailurePolicy", {
        rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [42] } }],
      }),
      set("spec.template.spec.nodeSelector", { disk: "ssd" }),
      set("spec.template.metadata.annotations", { a: "b" }),
    ],
    CronJob: [
      set("spec.suspend", true),
      set("spec.timeZone", "Etc/UTC"),
      set("spec.timeZone", "Mars/Olympus"),
      set("spec.concurrencyPolicy", "Forbid"),
      set("spec.startingDeadlineSeconds", 30),
    ],
    PersistentVolumeClaim: [
      set("spec.storageClassName", "fast"),
      set("spec.volumeName", "pv-1"),
      set("spec.volumeMode", "Block"),
      set("spec.volumeAttributesClassName", "gold"),
      set("spec.selector", { matchLabels: { a: "b" } }),
    ],
    PersistentVolume: [
      set("spec.persistentVolumeReclaimPolicy", "Delete"),
      set("spec.storageClassName", "fast"),
      set("spec.volumeMode", "Block"),
      set("spec.mountOptions", ["ro"]),
      set("spec.claimRef", { namespace: "default", name: "claim" }),
      set("spec.nodeAffinity", {
        required: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "a", operator: "In", values: ["b"] }] }],
        },
      }),
    ],
    StorageClass: [
      set("parameters", { type: "ssd" }),
      set("reclaimPolicy", "Retain"),
      set("volumeBindingMode", "WaitForFirstConsumer"),
      set("allowVolumeExpansion", true),
      set("mountOptions", ["ro"]),
    ],
    PriorityClass: [set("globalDefault", false), set("preemptionPolicy", "Never"), set("description", "d")],
    NetworkPolicy: [
      set("spec.policyTypes", ["Egress"]),
      set("spec.podSelector", { matchLabels: { a: "b" } }),
    ],
    PodDisruptionBudget: [
      set("spec.maxUnavailable", 1),
      set("spec.unhealthyPodEvictionPolicy", "AlwaysAllow"),
    ],
    Pod: [
      set("spec.activeDeadlineSeconds", 60),
      set("spec.tolerations", [{ key: "a", operator: "Exists", effect: "NoSchedule" }]),
      set("spec.schedulingGates", [{ name: "example.com/gate" }]),
      set("spec.nodeName", "node-1"),
      set("spec.priorityClassName", "system-node-critical"),
      drop("spec.enableServiceLinks"),
    ],
    ServiceAccount: [set("automountServiceAccountToken", false), set("secrets", [{ name: "s" }])],
    Namespace: [set("spec.finalizers", ["example.com/f"])],
    Secret: [set("type", "kubernetes.io/tls"), set("immutable", true)],
    ConfigMap: [set("immutable", true)],
    HorizontalPodAutoscaler: [
      set("spec.minReplicas", 5),
      set("spec.minReplicas", 0),
      set("spec.behavior", { scaleDown: { stabilizationWindowSeconds: 3601 } }),
      set("spec.behavior", { scaleUp: { selectPolicy: "Sideways" } }),
      set("spec.scaleTargetRef.kind", "StatefulSet"),
    ],
    ValidatingWebhookConfiguration: webhookChanges(set),
    MutatingWebhookConfiguration: [
      ...webhookChanges(set),
      set("webhooks.0.reinvocationPolicy", "IfNeeded"),
      set("webhooks.0.reinvocationPolicy", "Always"),
    ],
    Role: [set("rules.0.nonResourceURLs", ["/healthz"]), set("rules.0.resourceNames", ["a"])],
    ClusterRole: [
      set("rules.0.nonResourceURLs", ["/healthz"]),
      set("aggregationRule", { clusterRoleSelectors: [{ matchLabels: { a: "b" } }] }),
    ],
    RoleBinding: [set("subjects.0.kind", "Group"), set("subjects.0.apiGroup", "rbac.authorization.k8s.io")],
    Lease: [
      set("spec.acquireTime", "2026-01-01T00:00:00.000000Z"),
      set("spec.leaseTransitions", -1),
      set("spec.strategy", "OldestEmulationVersion"),
    ],
    Ingress: [
      set("spec.ingressClassName", "nginx"),
      set("spec.rules", [
        {
          host: "example.com",
          http: {
            paths: [
              { path: "/", pathType: "Prefix", backend: { service: { name: "s", port: { number: 80 } } } },
            ],
          },
        },
      ]),
      set("spec.rules", [{ host: "*.*.example.com" }]),
      set("spec.tls", [{ hosts: ["example.com"], secretName: "tls" }]),
    ],
  };
})();

/** Changes of a webhook configuration's first webhook: its policies and selectors. */
function webhookChanges(set: (path: string, value: unknown) => [string, Op[]]): [string, Op[]][] {
  return [
    set("webhooks.0.failurePolicy", "Ignore"),
    set("webhooks.0.failurePolicy", "Sometimes"),
    set("webhooks.0.matchPolicy", "Exact"),
    set("webhooks.0.namespaceSelector", { matchLabels: { "bad key": "x" } }),
    set("webhooks.0.objectSelector", { matchExpressions: [{ key: "a", operator: "In" }] }),
    set("webhooks.0.timeoutSeconds", 31),
    set("webhooks.0.matchConditions", [{ name: "c", expression: "true" }]),
    set("webhooks.0.matchConditions", [{ name: "c", expression: "1 +" }]),
    set("webhooks.0.clientConfig.service", { namespace: "default", name: "svc" }),
    set("webhooks.0.sideEffects", "Some"),
  ];
}

/** The update table, `{ns}` replaced by `namespace`. */
export async function updateTable(namespace: string): Promise<UpdateTable> {
  const table: UpdateTable = { objects: [], cases: [] };
  for (const [kind, f] of Object.entries(await fixtures())) {
    if (NOT_UPDATED.has(kind)) continue;
    // Changes are derived from the fixture as written, `{ns}` and all: their ids stay the same from run to run.
    const inNamespace = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll("{ns}", namespace)) as T;
    const body = inNamespace(f.body);
    const collection = f.path.replace("{ns}", namespace);
    const path = `${collection}/${(body.metadata as Json).name}`;
    table.objects.push({ collection, body, path });
    const found: [string, Op[]][] = [];
    const { metadata: _m, apiVersion: _a, kind: _k, ...fields } = f.body;
    for (const [k, v] of Object.entries(fields)) changes(v, [k], found);
    found.push(...(EXTRA[kind] ?? []));
    // The one field of metadata every kind guards the same way.
    found.push(["metadata.name=renamed", [{ op: "replace", path: "/metadata/name", value: "renamed" }]]);
    found.push([
      "metadata.uid=other",
      [{ op: "replace", path: "/metadata/uid", value: "00000000-0000-0000-0000-000000000001" }],
    ]);
    found.push([
      "metadata.resourceVersion=1",
      [{ op: "replace", path: "/metadata/resourceVersion", value: "1" }],
    ]);
    found.push(["metadata.generateName=g-", [{ op: "add", path: "/metadata/generateName", value: "g-" }]]);
    if (f.path.includes("{ns}"))
      found.push(["metadata.namespace=other", [{ op: "add", path: "/metadata/namespace", value: "other" }]]);
    // The object as read, put back: every kind takes its own stored form.
    table.cases.push({ id: `${kind}/update:unchanged`, path });
    for (const [change, patch] of found)
      table.cases.push({ id: `${kind}/update:${change}`, path, patch: inNamespace(patch) });
  }
  return table;
}

/** Creates the table's objects: each must be created, or the table says nothing. */
export async function createUpdated(api: Api, table: UpdateTable): Promise<void> {
  for (const o of table.objects) {
    const r = await api.post(o.collection, o.body);
    if (r.status !== 201) throw new Error(`update table: creating ${o.path}: ${r.status} ${r.text}`);
  }
}

/** Deletes the table's cluster-scoped objects (the namespaced go with their namespace). */
export async function deleteUpdated(api: Api, table: UpdateTable): Promise<void> {
  for (const o of table.objects) if (!o.collection.includes("/namespaces/")) await api.delete(o.path);
}

/** Runs the cases, `concurrency` at a time, as dry runs: each against the object as created. */
export async function runUpdates(
  api: Api,
  cases: UpdateCase[],
  concurrency = 8,
): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      const r = c.patch
        ? await api.patch(`${c.path}?dryRun=All`, c.patch, "application/json-patch+json")
        : await api.put(`${c.path}?dryRun=All`, (await api.get(c.path)).body);
      out.set(c.id, outcomeOf(r.status, r.body));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}
