// The status half of the derived table (validation-cases.ts, validation-updates.ts): writes to
// `/status`, what controllers do all day. Each kind with a status subresource is created from its
// fixture and given a valid status for real (STATUS below); then dry-run JSON patches through
// /status change that status one field at a time: each number to -1 and one past its value (the
// statuses hold their counts at their bounds, so one up crosses them), each string to another
// value its rules take and to one no rule takes, each bool flipped, each field and list item
// removed, a list item added; plus, per kind, the conditions, addresses and dates kube checks
// (ValidateXStatusUpdate in pkg/apis/*/validation), and one write that also changes spec and
// metadata: what a status write keeps of them is part of the answer (`dropped`).
// The recording (scripts/record-validation.ts) keeps kube-apiserver's answers under
// `Kind/status:change`.
import type { Api } from "./harness.js";
import { fixtures, type Outcome, outcomeOf } from "./validation-cases.js";

type Json = Record<string, unknown>;

interface Op {
  op: "add" | "remove" | "replace";
  path: string;
  value?: unknown;
}

export interface StatusCase {
  /** `Kind/status:change`, stable across runs: the key of the recording. */
  id: string;
  /** The object's /status path. */
  path: string;
  patch: Op[];
}

/** The objects the status table creates for real and gives a status, and its cases. */
export interface StatusTable {
  objects: { collection: string; body: Json; path: string; status: Json }[];
  cases: StatusCase[];
}

const T0 = "2026-01-01T00:00:00Z";
const T1 = "2026-01-01T00:00:01Z";

/** A metav1.Condition, as the newer kinds (Service, PDB, Namespace-less...) carry them. */
const metaCondition = (type: string, status = "True") => ({
  type,
  status,
  observedGeneration: 1,
  lastTransitionTime: T0,
  reason: "Reconciled",
  message: "reconciled",
});

/** The older per-kind condition shape: no observedGeneration, reason and message optional. */
const condition = (type: string, status = "True", extra: Json = {}) => ({
  type,
  status,
  lastTransitionTime: T0,
  reason: "Reconciled",
  message: "reconciled",
  ...extra,
});

/** Fixtures changed for their status to be valid: a load balancer's status needs a LoadBalancer. */
const STATUS_FIXTURE: Record<string, (body: Json) => void> = {
  Service: (body) => {
    (body.spec as Json).type = "LoadBalancer";
  },
  // A second Pod, one that never restarts: its terminated containers stay terminated.
  "Pod(Never)": (body) => {
    (body.metadata as Json).name = "pod-never";
    (body.spec as Json).restartPolicy = "Never";
  },
};

/**
 * A valid status per kind, counts at their bounds (ready = available = replicas): what the table
 * derives its changes from. Kinds whose status a server controller writes too (admission
 * policies, CRDs, APIServices) are left out: their status would change under the table.
 */
const STATUS: Record<string, Json> = {
  Deployment: {
    observedGeneration: 1,
    replicas: 2,
    updatedReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
    unavailableReplicas: 0,
    collisionCount: 1,
    conditions: [condition("Available", "True", { lastUpdateTime: T0 })],
  },
  StatefulSet: {
    observedGeneration: 1,
    replicas: 2,
    readyReplicas: 2,
    currentReplicas: 2,
    updatedReplicas: 2,
    availableReplicas: 2,
    currentRevision: "ss-1",
    updateRevision: "ss-1",
    collisionCount: 1,
    conditions: [condition("Healthy")],
  },
  DaemonSet: {
    currentNumberScheduled: 2,
    numberMisscheduled: 0,
    desiredNumberScheduled: 2,
    numberReady: 2,
    observedGeneration: 1,
    updatedNumberScheduled: 2,
    numberAvailable: 2,
    numberUnavailable: 0,
    collisionCount: 1,
    conditions: [condition("Healthy")],
  },
  ReplicaSet: {
    replicas: 2,
    fullyLabeledReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
    observedGeneration: 1,
    conditions: [condition("ReplicaFailure", "False")],
  },
  ReplicationController: {
    replicas: 2,
    fullyLabeledReplicas: 2,
    readyReplicas: 2,
    availableReplicas: 2,
    observedGeneration: 1,
    conditions: [condition("ReplicaFailure", "False")],
  },
  Job: {
    startTime: T0,
    active: 1,
    ready: 1,
    terminating: 0,
    succeeded: 0,
    failed: 0,
    uncountedTerminatedPods: {},
  },
  CronJob: {
    active: [{ apiVersion: "batch/v1", kind: "Job", name: "j1", namespace: "{ns}" }],
    lastScheduleTime: T0,
    lastSuccessfulTime: T0,
  },
  Pod: {
    phase: "Running",
    observedGeneration: 1,
    conditions: [
      { type: "Ready", status: "True", lastTransitionTime: T0 },
      { type: "example.com/ready", status: "True", lastTransitionTime: T0, reason: "Ok", message: "ok" },
    ],
    message: "running",
    reason: "Running",
    hostIP: "10.0.0.1",
    hostIPs: [{ ip: "10.0.0.1" }],
    podIP: "10.1.0.1",
    podIPs: [{ ip: "10.1.0.1" }],
    startTime: T0,
    containerStatuses: [
      {
        name: "c",
        ready: true,
        started: true,
        restartCount: 0,
        image: "nginx",
        imageID:
          "docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
        containerID: "containerd://0123456789abcdef",
        state: { running: { startedAt: T0 } },
      },
    ],
  },
  "Pod(Never)": {
    phase: "Succeeded",
    containerStatuses: [
      {
        name: "c",
        ready: false,
        started: false,
        restartCount: 0,
        image: "nginx",
        imageID:
          "docker.io/library/nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000",
        containerID: "containerd://0123456789abcdef",
        state: { terminated: { exitCode: 0, reason: "Completed", startedAt: T0, finishedAt: T1 } },
      },
    ],
  },
  Service: {
    loadBalancer: {
      ingress: [{ ip: "192.0.2.1", ipMode: "VIP", ports: [{ port: 80, protocol: "TCP" }] }],
    },
    conditions: [metaCondition("Ready")],
  },
  PersistentVolumeClaim: {
    phase: "Bound",
    accessModes: ["ReadWriteOnce"],
    capacity: { storage: "1Gi" },
    allocatedResources: { storage: "1Gi" },
    allocatedResourceStatuses: { storage: "ControllerResizeInProgress" },
    conditions: [{ type: "Resizing", status: "True", lastTransitionTime: T0, reason: "r", message: "m" }],
  },
  PersistentVolume: {
    phase: "Available",
    message: "available",
    reason: "Ready",
    lastPhaseTransitionTime: T0,
  },
  Namespace: {
    phase: "Active",
    conditions: [
      {
        type: "NamespaceDeletionDiscoveryFailure",
        status: "False",
        lastTransitionTime: T0,
        reason: "r",
        message: "m",
      },
    ],
  },
  HorizontalPodAutoscaler: {
    observedGeneration: 1,
    lastScaleTime: T0,
    currentReplicas: 1,
    desiredReplicas: 1,
    currentMetrics: [
      {
        type: "Resource",
        resource: { name: "cpu", current: { averageUtilization: 10, averageValue: "100m" } },
      },
    ],
    conditions: [condition("AbleToScale")],
  },
  PodDisruptionBudget: {
    observedGeneration: 1,
    disruptedPods: { p1: T0 },
    disruptionsAllowed: 0,
    currentHealthy: 1,
    desiredHealthy: 1,
    expectedPods: 1,
    conditions: [metaCondition("DisruptionAllowed", "False")],
  },
  Ingress: {
    loadBalancer: { ingress: [{ ip: "192.0.2.1", ports: [{ port: 80, protocol: "TCP" }] }] },
  },
  ResourceQuota: { hard: { pods: "10" }, used: { pods: "1" } },
  VolumeAttachment: {
    attached: true,
    attachmentMetadata: { device: "/dev/sdb" },
    attachError: { time: T0, message: "failed once" },
  },
  ServiceCIDR: { conditions: [metaCondition("Ready")] },
  // As the server's own controllers write them (names accepted, established; the Dangling
  // condition of a schema whose level exists): equivalent, they leave them be.
  CustomResourceDefinition: {
    conditions: [
      {
        type: "NamesAccepted",
        status: "True",
        lastTransitionTime: T0,
        reason: "NoConflicts",
        message: "no conflicts found",
      },
      {
        type: "Established",
        status: "True",
        lastTransitionTime: T0,
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
    ],
    acceptedNames: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    storedVersions: ["v1"],
  },
  FlowSchema: {
    conditions: [
      {
        type: "Dangling",
        status: "False",
        lastTransitionTime: T0,
        reason: "Found",
        message:
          'This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists',
      },
    ],
  },
  PriorityLevelConfiguration: { conditions: [condition("Example")] },
  // A signer's failure: Approved and Denied are the approval subresource's.
  CertificateSigningRequest: {
    conditions: [condition("Failed", "True", { lastUpdateTime: T0 })],
  },
  StorageVersionMigration: { conditions: [metaCondition("Running")], resourceVersion: "1" },
  // A driver's allocation of the claim's one request, the Pod it is reserved for, the device's state.
  ResourceClaim: {
    allocation: {
      devices: { results: [{ request: "gpu", driver: "gpu.example.com", pool: "pool", device: "gpu-0" }] },
    },
    reservedFor: [{ resource: "pods", name: "p", uid: "00000000-0000-0000-0000-000000000001" }],
    devices: [
      { driver: "gpu.example.com", pool: "pool", device: "gpu-0", conditions: [metaCondition("Ready")] },
    ],
  },
  DeviceTaintRule: { conditions: [metaCondition("EvictionInProgress", "False")] },
  Node: {
    capacity: { cpu: "4", memory: "8Gi", pods: "110" },
    allocatable: { cpu: "4", memory: "8Gi", pods: "110" },
    phase: "Running",
    conditions: [
      {
        type: "Ready",
        status: "True",
        lastHeartbeatTime: T0,
        lastTransitionTime: T0,
        reason: "KubeletReady",
        message: "ready",
      },
    ],
    addresses: [
      { type: "InternalIP", address: "10.0.0.9" },
      { type: "Hostname", address: "node-a" },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: "m",
      systemUUID: "s",
      bootID: "b",
      kernelVersion: "6.1.0",
      osImage: "Linux",
      containerRuntimeVersion: "containerd://2.0.0",
      kubeletVersion: "v1.37.2",
      kubeProxyVersion: "",
      operatingSystem: "linux",
      architecture: "amd64",
    },
    images: [{ names: ["nginx"], sizeBytes: 1000 }],
    volumesInUse: ["kubernetes.io/csi/disk^vol-1"],
  },
};

/** Strings with a value of the same rule's to change to. */
const OTHER: Record<string, string> = {
  True: "False",
  False: "Unknown",
  Running: "Succeeded",
  Bound: "Lost",
  Active: "Terminating",
  Available: "Released",
  TCP: "UDP",
  VIP: "Proxy",
  Resource: "Pods",
  ReadWriteOnce: "ReadWriteMany",
  ControllerResizeInProgress: "NodeResizePending",
  InternalIP: "ExternalIP",
  Hostname: "InternalDNS",
  linux: "windows",
  amd64: "arm64",
  [T0]: T1,
};

/** Another value for `v` that its field's rules take. */
function another(v: string): string {
  if (v in OTHER) return OTHER[v];
  if (v === "") return "x";
  const quantity = /^(\d+)(m|Ki|Mi|Gi)?$/.exec(v);
  if (quantity) return `${Number(quantity[1]) + 1}${quantity[2] ?? ""}`;
  const ip = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(v);
  if (ip) return `${ip[1]}.${ip[2]}.${ip[3]}.${Number(ip[4]) + 1}`;
  return `${v}x`;
}

const pointer = (path: string[]) =>
  path.map((p) => `/${p.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");

/** Another list item like `item`: names and types changed, so that keys stay unique. */
function anotherItem(item: unknown): unknown {
  if (typeof item === "string") return another(item);
  if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
  const copy = structuredClone(item) as Json;
  for (const k of ["name", "type", "ip"])
    if (typeof copy[k] === "string") copy[k] = another(copy[k] as string);
  return copy;
}

/** The changes of the status field at `path` holding `v`, and of what it holds. */
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
    out.push([`${at}=${another(v)}`, [{ op: "replace", path: p, value: another(v) }]]);
    out.push([`${at}=bad`, [{ op: "replace", path: p, value: "Bad Value!" }]]);
  } else if (typeof v === "number") {
    out.push([`${at}=-1`, [{ op: "replace", path: p, value: -1 }]]);
    out.push([`${at}=${v + 1}`, [{ op: "replace", path: p, value: v + 1 }]]);
  } else if (typeof v === "boolean") {
    out.push([`${at}=${!v}`, [{ op: "replace", path: p, value: !v }]]);
  }
  out.push([`${at}-removed`, [{ op: "remove", path: p }]]);
}

const set = (path: string, value: unknown): [string, Op[]] => [
  `${path}=${JSON.stringify(value)}`,
  [{ op: "add", path: pointer(path.split(".")), value }],
];

/** Conditions added with a good and bad type, status, reason, message and time. */
function conditionChanges(at: string, base: Json): [string, Op[]][] {
  const add = (what: string, c: Json): [string, Op[]] => [
    `${at}+${what}`,
    [{ op: "add", path: `${pointer(at.split("."))}/-`, value: c }],
  ];
  const { type: _t, ...rest } = base;
  return [
    add("condition", { ...base, type: "example.com/Synced" }),
    add("condition-type-bad", { ...rest, type: "Bad Type!" }),
    add("condition-type-empty", { ...rest, type: "" }),
    add("condition-type-long", { ...rest, type: `example.com/${"a".repeat(64)}` }),
    add("condition-status-bad", { ...base, type: "Synced", status: "Maybe" }),
    add("condition-status-empty", { ...base, type: "Synced", status: "" }),
    add("condition-reason-bad", { ...base, type: "Synced", reason: "bad reason!" }),
    add("condition-reason-empty", { ...base, type: "Synced", reason: "" }),
    add("condition-message-long", { ...base, type: "Synced", message: "m".repeat(32769) }),
    add("condition-time-missing", { ...rest, type: "Synced", lastTransitionTime: undefined }),
    add("condition-duplicate", { ...base }),
  ];
}

/** Per kind, changes beyond the derived ones: what kube checks and the base status leaves unset. */
const EXTRA: Record<string, [string, Op[]][]> = {
  Deployment: [
    set("status.terminatingReplicas", -1),
    set("status.terminatingReplicas", 1),
    ...conditionChanges("status.conditions", condition("Progressing", "True", { lastUpdateTime: T0 })),
  ],
  StatefulSet: [...conditionChanges("status.conditions", condition("Healthy"))],
  ReplicaSet: [set("status.terminatingReplicas", -1), set("status.terminatingReplicas", 1)],
  Job: [
    set("status.completionTime", T0),
    set("status.completionTime", "2025-12-31T23:59:59Z"),
    set("status.completedIndexes", "0-1"),
    set("status.failedIndexes", "0"),
    set("status.uncountedTerminatedPods", { succeeded: ["uid-1"], failed: ["uid-1"] }),
    set("status.uncountedTerminatedPods", { succeeded: [""] }),
    set("status.conditions", [condition("Complete")]),
    set("status.conditions", [condition("Failed")]),
    set("status.conditions", [condition("FailureTarget")]),
    set("status.conditions", [condition("Suspended")]),
    set("status.conditions", [condition("Example", "Maybe")]),
    [
      "status.complete",
      [
        {
          op: "add",
          path: "/status/conditions",
          value: [condition("SuccessCriteriaMet"), condition("Complete")],
        },
        { op: "add", path: "/status/completionTime", value: T1 },
        { op: "replace", path: "/status/active", value: 0 },
        { op: "replace", path: "/status/ready", value: 0 },
        { op: "replace", path: "/status/succeeded", value: 1 },
      ],
    ],
    [
      "status.failed",
      [
        { op: "add", path: "/status/conditions", value: [condition("FailureTarget"), condition("Failed")] },
        { op: "replace", path: "/status/active", value: 0 },
        { op: "replace", path: "/status/ready", value: 0 },
        { op: "replace", path: "/status/failed", value: 3 },
      ],
    ],
  ],
  Pod: [
    set("status.phase", "Sideways"),
    set("status.nominatedNodeName", "node-1"),
    set("status.nominatedNodeName", "Bad_Node"),
    set("status.qosClass", "BestEffort"),
    set("status.podIP", "10.1.0.300"),
    set("status.podIPs", [{ ip: "10.1.0.1" }, { ip: "10.1.0.2" }]),
    set("status.podIPs", [{ ip: "10.1.0.1" }, { ip: "fd00::1" }]),
    set("status.podIPs", [{ ip: "10.1.0.2" }]),
    set("status.hostIPs", [{ ip: "10.0.0.1" }, { ip: "fd00::9" }]),
    set("status.hostIPs", [{ ip: "10.0.0.2" }]),
    set("status.conditions", [{ type: "Bad Type!", status: "True" }]),
    set("status.conditions", [{ type: "Ready", status: "Maybe" }]),
    set("status.conditions", [{ type: "Ready", status: "True", observedGeneration: -1 }]),
    set("status.containerStatuses.0.state", { terminated: { exitCode: 0, startedAt: T0, finishedAt: T1 } }),
    set("status.containerStatuses.0.user", { linux: { uid: -1, gid: 0 } }),
    set("status.resourceClaimStatuses", [{ name: "claim" }]),
    set("status.resize", "Proposed"),
  ],
  "Pod(Never)": [
    set("status.containerStatuses.0.state", { running: { startedAt: T1 } }),
    set("status.containerStatuses.0.state", { waiting: { reason: "ContainerCreating" } }),
    set("status.containerStatuses.0.state", { terminated: { exitCode: 1, startedAt: T0, finishedAt: T1 } }),
  ],
  Service: [
    set("status.loadBalancer.ingress", [{ hostname: "lb.example.com" }]),
    set("status.loadBalancer.ingress", [{ hostname: "10.0.0.1" }]),
    set("status.loadBalancer.ingress", [{ hostname: "Bad Host" }]),
    set("status.loadBalancer.ingress", [{ ip: "192.0.2.1", ipMode: "Sideways" }]),
    set("status.loadBalancer.ingress", [{ ip: "192.0.2.1", ports: [{ port: 80, protocol: "HTTP" }] }]),
    set("status.loadBalancer.ingress", [{ ip: "192.0.2.1", ports: [{ port: 80 }] }]),
    set("status.loadBalancer.ingress", [
      { ip: "192.0.2.1", ports: [{ port: 80, protocol: "TCP", error: "Bad Error" }] },
    ]),
    set("status.loadBalancer.ingress", [
      { ip: "192.0.2.1", ports: [{ port: 80, protocol: "TCP", error: "example.com/Failed" }] },
    ]),
    ...conditionChanges("status.conditions", metaCondition("Ready")),
  ],
  PersistentVolumeClaim: [
    set("status.allocatedResources", { storage: "-1Gi" }),
    set("status.allocatedResources", { cpu: "1" }),
    set("status.allocatedResources", { "example.com/foo": "1" }),
    set("status.allocatedResourceStatuses", { storage: "Sideways" }),
    set("status.allocatedResourceStatuses", { cpu: "ControllerResizeInProgress" }),
    set("status.capacity", { storage: "-1Gi" }),
    set("status.currentVolumeAttributesClassName", "gold"),
    set("status.modifyVolumeStatus", { status: "Pending", targetVolumeAttributesClassName: "gold" }),
    set("status.modifyVolumeStatus", { status: "Sideways" }),
    set("status.phase", "Sideways"),
  ],
  PersistentVolume: [set("status.phase", "Sideways"), set("status.phase", "Bound")],
  Namespace: [set("status.phase", "Sideways"), set("status.phase", "Terminating")],
  HorizontalPodAutoscaler: [
    set("status.conditions", [condition("ScalingActive", "Maybe")]),
    set("status.conditions", [condition("Bad Type!")]),
    set("status.currentMetrics", [
      { type: "Pods", pods: { metric: { name: "m" }, current: { averageValue: "1" } } },
    ]),
    set("status.currentMetrics", [{ type: "Sideways" }]),
  ],
  PodDisruptionBudget: [
    set("status.disruptedPods", { "Bad Name!": T0 }),
    set("status.disruptedPods", { p1: T0, p2: T1 }),
    ...conditionChanges("status.conditions", metaCondition("DisruptionAllowed", "False")),
  ],
  Ingress: [
    set("status.loadBalancer.ingress", [{ hostname: "lb.example.com" }]),
    set("status.loadBalancer.ingress", [{ hostname: "10.0.0.1" }]),
    set("status.loadBalancer.ingress", [{ hostname: "Bad Host" }]),
    set("status.loadBalancer.ingress", [{ ip: "192.0.2.1", ports: [{ port: 80, protocol: "HTTP" }] }]),
    set("status.loadBalancer.ingress", [
      { ip: "192.0.2.1", ports: [{ port: 80, protocol: "TCP", error: "Bad Error" }] },
    ]),
  ],
  ResourceQuota: [set("status.used", { pods: "-1" }), set("status.hard", { "Bad Name": "1" })],
  ServiceCIDR: [...conditionChanges("status.conditions", metaCondition("Ready"))],
  CustomResourceDefinition: [
    set("status.acceptedNames.plural", "Bad_Plural"),
    set("status.acceptedNames.kind", "Bad Kind"),
    set("status.acceptedNames.listKind", "Widget"),
    set("status.acceptedNames.shortNames", ["w", "Bad!"]),
    set("status.acceptedNames.categories", ["all", "Bad!"]),
    set("status.storedVersions", ["v1", "v2"]),
    set("status.storedVersions", []),
    set("status.conditions", [{ type: "Established", status: "Maybe" }]),
  ],
  FlowSchema: [
    set("status.conditions", [{ type: "", status: "True" }]),
    set("status.conditions", [
      { type: "Dangling", status: "True" },
      { type: "Dangling", status: "False" },
    ]),
  ],
  PriorityLevelConfiguration: [
    set("status.conditions", [{ type: "", status: "True" }]),
    set("status.conditions", [
      { type: "A", status: "True" },
      { type: "A", status: "False" },
    ]),
  ],
  CertificateSigningRequest: [
    set("status.conditions", [condition("Approved", "True", { lastUpdateTime: T0 })]),
    set("status.conditions", [condition("Denied", "True", { lastUpdateTime: T0 })]),
    set("status.conditions", [condition("Failed", "False", { lastUpdateTime: T0 })]),
    set("status.conditions", [condition("Failed", "Maybe", { lastUpdateTime: T0 })]),
    set("status.conditions", [condition("", "True", { lastUpdateTime: T0 })]),
    set("status.conditions", [
      condition("example.com/Signed", "True"),
      condition("example.com/Signed", "True"),
    ]),
    set("status.certificate", "bm90IGEgY2VydGlmaWNhdGU="),
  ],
  StorageVersionMigration: [...conditionChanges("status.conditions", metaCondition("Succeeded"))],
  ResourceClaim: [
    set("status.reservedFor", [{ resource: "pods", name: "p" }]),
    set("status.reservedFor", [
      { resource: "pods", name: "p", uid: "00000000-0000-0000-0000-000000000001" },
      { resource: "pods", name: "q", uid: "00000000-0000-0000-0000-000000000001" },
    ]),
    set("status.devices", [{ driver: "gpu.example.com", pool: "pool", device: "gpu-9" }]),
    set("status.devices", [
      { driver: "gpu.example.com", pool: "pool", device: "gpu-0" },
      { driver: "gpu.example.com", pool: "pool", device: "gpu-0" },
    ]),
    set("status.devices", [{ driver: "Bad Driver", pool: "pool", device: "gpu-0" }]),
    ...conditionChanges("status.devices.0.conditions", metaCondition("Ready")),
  ],
  DeviceTaintRule: [...conditionChanges("status.conditions", metaCondition("EvictionInProgress", "False"))],
  Node: [
    set("status.addresses", [{ type: "Sideways", address: "10.0.0.9" }]),
    set("status.capacity", { cpu: "-1" }),
    set("status.capacity", { "Bad Name!": "1" }),
    set("status.allocatable", { "example.com/dongle": "1.5" }),
    set("status.conditions", [{ type: "Ready", status: "Maybe" }]),
    set("status.config", {
      active: { configMap: { namespace: "kube-system", name: "c", kubeletConfigKey: "k" } },
    }),
    set("status.runtimeHandlers", [{ name: "runc", features: { recursiveReadOnlyMounts: true } }]),
    set("status.runtimeHandlers", [{ name: "Bad Name!" }]),
  ],
};

/** Kinds whose EXTRA above adds no conditions of its own: the same condition changes, on their conditions. */
const CONDITIONS_OF: Record<string, Json> = {
  DaemonSet: condition("Healthy"),
  ReplicaSet: condition("ReplicaFailure", "False"),
  ReplicationController: condition("ReplicaFailure", "False"),
  Pod: { type: "example.com/ready", status: "True", lastTransitionTime: T0, reason: "Ok", message: "ok" },
  PersistentVolumeClaim: {
    type: "Resizing",
    status: "True",
    lastTransitionTime: T0,
    reason: "r",
    message: "m",
  },
  Namespace: {
    type: "NamespaceContentRemaining",
    status: "False",
    lastTransitionTime: T0,
    reason: "r",
    message: "m",
  },
  HorizontalPodAutoscaler: condition("ScalingLimited", "False"),
  Node: {
    type: "MemoryPressure",
    status: "False",
    lastHeartbeatTime: T0,
    lastTransitionTime: T0,
    reason: "r",
    message: "m",
  },
  CustomResourceDefinition: condition("Terminating", "False"),
  CertificateSigningRequest: condition("example.com/Signed", "True", { lastUpdateTime: T0 }),
  FlowSchema: condition("example.com/Checked"),
  PriorityLevelConfiguration: condition("example.com/Checked"),
};
for (const [kind, c] of Object.entries(CONDITIONS_OF))
  EXTRA[kind] = [...(EXTRA[kind] ?? []), ...conditionChanges("status.conditions", c)];

/**
 * A status write that also changes spec and metadata: kube keeps the status, labels,
 * annotations, finalizers and owner references a kind's status strategy lets through, and drops
 * the rest (`dropped` in the outcome).
 */
function alsoSpecAndMetadata(f: Json, status: Json): Op[] {
  const ops: Op[] = [
    { op: "add", path: "/metadata/labels", value: { "status-write": "yes" } },
    { op: "add", path: "/metadata/annotations", value: { "status-write": "yes" } },
    { op: "add", path: "/metadata/finalizers", value: ["example.com/status-write"] },
    {
      op: "add",
      path: "/metadata/ownerReferences",
      value: [
        { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "00000000-0000-0000-0000-0000000000aa" },
      ],
    },
  ];
  const spec = f.spec as Json | undefined;
  if (spec) {
    const leaf = firstLeaf(spec, ["spec"]);
    if (leaf) {
      const [path, v] = leaf;
      const to = typeof v === "number" ? v + 1 : typeof v === "string" ? another(v) : !v;
      ops.push({ op: "replace", path: pointer(path), value: to });
    } else ops.push({ op: "add", path: "/spec/unknownField", value: "x" });
  }
  const statusLeaf = firstLeaf(status, ["status"]);
  if (statusLeaf) {
    const [path, v] = statusLeaf;
    ops.push({ op: "replace", path: pointer(path), value: typeof v === "string" ? another(v) : v });
  }
  return ops;
}

function firstLeaf(o: unknown, path: string[]): [string[], unknown] | undefined {
  if (Array.isArray(o)) return o.length > 0 ? firstLeaf(o[0], [...path, "0"]) : undefined;
  if (o !== null && typeof o === "object") {
    for (const [k, v] of Object.entries(o)) {
      const found = firstLeaf(v, [...path, k]);
      if (found) return found;
    }
    return undefined;
  }
  return typeof o === "string" || typeof o === "number" || typeof o === "boolean" ? [path, o] : undefined;
}

/** The status table, `{ns}` replaced by `namespace`. */
export async function statusTable(namespace: string): Promise<StatusTable> {
  const table: StatusTable = { objects: [], cases: [] };
  const all = await fixtures();
  for (const [kind, status] of Object.entries(STATUS)) {
    // `Kind(variant)`: a second object of the kind, its fixture changed by STATUS_FIXTURE.
    const f = all[kind.replace(/\(.*\)$/, "")];
    if (!f) throw new Error(`status table: no fixture for ${kind}`);
    const inNamespace = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll("{ns}", namespace)) as T;
    const body = inNamespace(f.body);
    STATUS_FIXTURE[kind]?.(body);
    const collection = f.path.replace("{ns}", namespace);
    const path = `${collection}/${(body.metadata as Json).name}/status`;
    table.objects.push({ collection, body, path, status: inNamespace(status) });
    const found: [string, Op[]][] = [];
    changes(status, ["status"], found);
    found.push(...(EXTRA[kind] ?? []));
    found.push(["spec-and-metadata", alsoSpecAndMetadata(f.body, status)]);
    table.cases.push({ id: `${kind}/status:unchanged`, path, patch: [] });
    for (const [change, patch] of found)
      table.cases.push({ id: `${kind}/status:${change}`, path, patch: inNamespace(patch) });
  }
  const ids = new Set(table.cases.map((c) => c.id));
  if (ids.size !== table.cases.length) throw new Error("status table: two cases of the same id");
  return table;
}

/** Creates the table's objects and writes each one's status: each must be taken, or the table says nothing. */
export async function createStatused(api: Api, table: StatusTable): Promise<void> {
  const failed: string[] = [];
  for (const o of table.objects) {
    const r = await api.post(o.collection, o.body);
    if (r.status !== 201) failed.push(`creating ${o.path}: ${r.status} ${r.text}`);
    const s = await api.patch(o.path, { status: o.status });
    if (s.status !== 200) failed.push(`writing ${o.path}: ${s.status} ${s.text}`);
  }
  if (failed.length > 0) throw new Error(`status table:\n${failed.join("\n")}`);
}

/** Deletes the table's cluster-scoped objects (the namespaced go with their namespace). */
export async function deleteStatused(api: Api, table: StatusTable): Promise<void> {
  for (const o of table.objects)
    if (!o.collection.includes("/namespaces/")) await api.delete(o.path.replace(/\/status$/, ""));
}

function valueAt(o: unknown, pointerPath: string): unknown {
  let c = o;
  for (const raw of pointerPath.split("/").slice(1)) {
    const k = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (c === null || typeof c !== "object") return undefined;
    c = Array.isArray(c) ? c[k === "-" ? c.length - 1 : Number(k)] : (c as Json)[k];
  }
  return c;
}

/** JSON with keys sorted: a value compared regardless of the order its encoder wrote it in. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/** The patch's paths whose value the answer does not hold: what the write dropped. */
function droppedBy(patch: Op[], answer: unknown): string[] {
  const out: string[] = [];
  for (const op of patch) {
    if (op.path.endsWith("/-")) continue;
    const got = valueAt(answer, op.path);
    const taken = op.op === "remove" ? got === undefined : canonical(got) === canonical(op.value);
    if (!taken) out.push(op.path);
  }
  return out;
}

/** Runs the cases, `concurrency` at a time, as dry runs through /status. */
export async function runStatus(
  api: Api,
  cases: StatusCase[],
  concurrency = 8,
): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++];
      const r = await api.patch(`${c.path}?dryRun=All`, c.patch, "application/json-patch+json");
      const o = outcomeOf(r.status, r.body);
      if (r.status < 300) {
        const dropped = droppedBy(c.patch, r.body);
        if (dropped.length > 0) o.dropped = dropped;
      }
      out.set(c.id, o);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}
