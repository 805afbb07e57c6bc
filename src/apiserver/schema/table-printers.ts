// kube's default `kubectl get` columns for the built-in kinds (pkg/printers/internalversion):
// per kind, the columns after Name and a function from object to their cells.
import type { TableColumnDefinition } from "./table-types.js";
import { age } from "./table-format.js";

/** Columns after Name (Events have none first: see `nameFirst`) and their cells. */
export interface Printer {
  columns: TableColumnDefinition[];
  cells(obj: Record<string, unknown>, now: number): unknown[];
  /** false for Events, whose first column is Last Seen and whose Name comes last. */
  nameFirst?: boolean;
}

const get = (o: unknown, ...path: string[]): unknown => {
  let v = o;
  for (const p of path)
    v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[p] : undefined;
  return v;
};
const num = (v: unknown) => (typeof v === "number" ? v : 0);
const str = (v: unknown) => (typeof v === "string" ? v : "");
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const count = (v: unknown) => (v !== null && typeof v === "object" ? Object.keys(v).length : 0);
const col = (name: string, type = "string", priority = 0, description = ""): TableColumnDefinition => ({
  name,
  type,
  format: "",
  description,
  priority,
});
const ageCol = col(
  "Age",
  "string",
  0,
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
);
const created = (o: unknown, now: number) => age(get(o, "metadata", "creationTimestamp"), now);
const containers = (template: unknown) => list(get(template, "spec", "containers"));
const names = (cs: unknown[]) => cs.map((c) => str(get(c, "name"))).join(",");
const images = (cs: unknown[]) => cs.map((c) => str(get(c, "image"))).join(",");
const selector = (sel: unknown): string => {
  const labels = Object.entries((get(sel, "matchLabels") as Record<string, string>) ?? {}).map(
    ([k, v]) => `${k}=${v}`,
  );
  const exprs = list(get(sel, "matchExpressions")).map((e) => {
    const op = str(get(e, "operator"));
    const key = str(get(e, "key"));
    const values = list(get(e, "values")).join(",");
    if (op === "Exists") return key;
    if (op === "DoesNotExist") return `!${key}`;
    return `${key} ${op.toLowerCase()} (${values})`;
  });
  const all = [...labels, ...exprs];
  return all.length > 0 ? all.join(",") : "<none>";
};
const workloadExtras = [
  col("Containers", "string", 1),
  col("Images", "string", 1),
  col("Selector", "string", 1),
];
const extras = (o: unknown) => {
  const cs = containers(get(o, "spec", "template"));
  return [names(cs), images(cs), selector(get(o, "spec", "selector"))];
};
const subjects = (o: unknown, kind: string) =>
  list(get(o, "subjects"))
    .filter((s) => get(s, "kind") === kind)
    .map((s) =>
      kind === "ServiceAccount" ? `${str(get(s, "namespace"))}/${str(get(s, "name"))}` : str(get(s, "name")),
    )
    .join(", ");

function podStatus(pod: unknown): string {
  let reason = str(get(pod, "status", "reason")) || str(get(pod, "status", "phase"));
  for (const cs of list(get(pod, "status", "containerStatuses"))
    .slice()
    .reverse()) {
    const waiting = str(get(cs, "state", "waiting", "reason"));
    const terminated = get(cs, "state", "terminated");
    if (waiting) reason = waiting;
    else if (terminated)
      reason = str(get(terminated, "reason")) || `ExitCode:${num(get(terminated, "exitCode"))}`;
  }
  if (get(pod, "metadata", "deletionTimestamp"))
    reason = str(get(pod, "status", "reason")) === "NodeLost" ? "Unknown" : "Terminating";
  return reason;
}

function podRestarts(pod: unknown, now: number): string {
  let restarts = 0;
  let last = "";
  for (const cs of list(get(pod, "status", "containerStatuses"))) {
    restarts += num(get(cs, "restartCount"));
    const finished = str(get(cs, "lastState", "terminated", "finishedAt"));
    if (finished > last) last = finished;
  }
  return last ? `${restarts} (${age(last, now)} ago)` : String(restarts);
}

function servicePorts(svc: unknown): string {
  const ports = list(get(svc, "spec", "ports")).map((p) => {
    const node = get(p, "nodePort");
    return `${num(get(p, "port"))}${node ? `:${node}` : ""}/${str(get(p, "protocol")) || "TCP"}`;
  });
  return ports.length > 0 ? ports.join(",") : "<none>";
}

function externalIPs(svc: unknown): string {
  const type = str(get(svc, "spec", "type")) || "ClusterIP";
  const ingress = list(get(svc, "status", "loadBalancer", "ingress")).map(
    (i) => str(get(i, "ip")) || str(get(i, "hostname")),
  );
  const ips = list(get(svc, "spec", "externalIPs")).map(str);
  if (type === "ExternalName") return str(get(svc, "spec", "externalName"));
  if (type === "LoadBalancer") return [...ingress, ...ips].join(",") || "<pending>";
  return ips.length > 0 ? ips.join(",") : "<none>";
}

function endpoints(ep: unknown): string {
  const out: string[] = [];
  for (const subset of list(get(ep, "subsets"))) {
    const ports = list(get(subset, "ports"));
    for (const addr of list(get(subset, "addresses"))) {
      const ip = str(get(addr, "ip"));
      if (ports.length === 0) out.push(ip);
      for (const p of ports) out.push(`${ip}:${num(get(p, "port"))}`);
    }
  }
  if (out.length === 0) return "<none>";
  return out.length > 3 ? `${out.slice(0, 3).join(",")} + ${out.length - 3} more...` : out.join(",");
}

function eventObject(e: unknown): string {
  const ref = get(e, "involvedObject") ?? get(e, "regarding");
  return `${str(get(ref, "kind")).toLowerCase()}/${str(get(ref, "name"))}`;
}

const eventPrinter: Printer = {
  nameFirst: false,
  columns: [
    col("Last Seen"),
    col("Type"),
    col("Reason"),
    col("Object"),
    col("Subobject", "string", 1),
    col("Source", "string", 1),
    col("Message"),
    col("First Seen", "string", 1),
    col("Count", "string", 1),
    col("Name", "string", 1),
  ],
  cells: (e, now) => {
    const last =
      get(e, "lastTimestamp") ??
      get(e, "deprecatedLastTimestamp") ??
      get(e, "eventTime") ??
      get(e, "metadata", "creationTimestamp");
    const first = get(e, "firstTimestamp") ?? get(e, "deprecatedFirstTimestamp") ?? get(e, "eventTime");
    const source = get(e, "source") ?? get(e, "deprecatedSource");
    const component =
      str(get(source, "component")) ||
      str(get(e, "reportingComponent")) ||
      str(get(e, "reportingController"));
    return [
      age(last, now),
      str(get(e, "type")),
      str(get(e, "reason")),
      eventObject(e),
      str(get(e, "involvedObject", "fieldPath") ?? get(e, "regarding", "fieldPath")),
      [component, str(get(source, "host"))].filter(Boolean).join(", "),
      str(get(e, "message") ?? get(e, "note")).trim(),
      age(first, now),
      num(get(e, "count") ?? get(e, "deprecatedCount")),
      str(get(e, "metadata", "name")),
    ];
  },
};

const createdAt: Printer = {
  columns: [col("Created At", "date")],
  cells: (o) => [str(get(o, "metadata", "creationTimestamp"))],
};

const binding: Printer = {
  columns: [
    col("Role"),
    ageCol,
    col("Users", "string", 1),
    col("Groups", "string", 1),
    col("ServiceAccounts", "string", 1),
  ],
  cells: (o, now) => [
    `${str(get(o, "roleRef", "kind"))}/${str(get(o, "roleRef", "name"))}`,
    created(o, now),
    subjects(o, "User"),
    subjects(o, "Group"),
    subjects(o, "ServiceAccount"),
  ],
};

const webhooks: Printer = {
  columns: [col("Webhooks", "integer"), ageCol],
  cells: (o, now) => [list(get(o, "webhooks")).length, created(o, now)],
};

/** Printers by `group/Kind` (`/Pod` for core). */
export const PRINTERS: Readonly<Record<string, Printer>> = {
  "/ConfigMap": {
    columns: [
      col(
        "Data",
        "string",
        0,
        "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
      ),
      ageCol,
    ],
    cells: (o, now) => [count(get(o, "data")) + count(get(o, "binaryData")), created(o, now)],
  },
  "/Secret": {
    columns: [col("Type"), col("Data", "string"), ageCol],
    cells: (o, now) => [str(get(o, "type")), count(get(o, "data")), created(o, now)],
  },
  "/Pod": {
    columns: [
      col("Ready"),
      col("Status"),
      col("Restarts"),
      ageCol,
      col("IP", "string", 1),
      col("Node", "string", 1),
      col("Nominated Node", "string", 1),
      col("Readiness Gates", "string", 1),
    ],
    cells: (o, now) => {
      const statuses = list(get(o, "status", "containerStatuses"));
      const ready = statuses.filter((c) => get(c, "ready") === true).length;
      const gates = list(get(o, "spec", "readinessGates"));
      return [
        `${ready}/${containers(o).length}`,
        podStatus(o),
        podRestarts(o, now),
        created(o, now),
        str(get(o, "status", "podIP")) || "<none>",
        str(get(o, "spec", "nodeName")) || "<none>",
        str(get(o, "status", "nominatedNodeName")) || "<none>",
        gates.length > 0 ? `0/${gates.length}` : "<none>",
      ];
    },
  },
  "/Namespace": {
    columns: [col("Status"), ageCol],
    cells: (o, now) => [str(get(o, "status", "phase")), created(o, now)],
  },
  "/Service": {
    columns: [
      col("Type"),
      col("Cluster-IP"),
      col("External-IP"),
      col("Port(s)"),
      ageCol,
      col("Selector", "string", 1),
    ],
    cells: (o, now) => [
      str(get(o, "spec", "type")) || "ClusterIP",
      str(get(o, "spec", "clusterIP")) || "<none>",
      externalIPs(o),
      servicePorts(o),
      created(o, now),
      selector({ matchLabels: get(o, "spec", "selector") }),
    ],
  },
  "/ServiceAccount": {
    columns: [col("Secrets", "string"), ageCol],
    cells: (o, now) => [list(get(o, "secrets")).length, created(o, now)],
  },
  "/Node": {
    columns: [
      col("Status"),
      col("Roles"),
      ageCol,
      col("Version"),
      col("Internal-IP", "string", 1),
      col("External-IP", "string", 1),
    ],
    cells: (o, now) => {
      const ready = list(get(o, "status", "conditions")).find((c) => get(c, "type") === "Ready");
      const roles = Object.keys((get(o, "metadata", "labels") as Record<string, string>) ?? {})
        .filter((k) => k.startsWith("node-role.kubernetes.io/"))
        .map((k) => k.slice("node-role.kubernetes.io/".length));
      const addr = (t: string) =>
        str(
          get(
            list(get(o, "status", "addresses")).find((a) => get(a, "type") === t),
            "address",
          ),
        ) || "<none>";
      return [
        get(ready, "status") === "True" ? "Ready" : get(ready, "status") ? "NotReady" : "Unknown",
        roles.join(",") || "<none>",
        created(o, now),
        str(get(o, "status", "nodeInfo", "kubeletVersion")),
        addr("InternalIP"),
        addr("ExternalIP"),
      ];
    },
  },
  "/Endpoints": {
    columns: [col("Endpoints"), ageCol],
    cells: (o, now) => [endpoints(o), created(o, now)],
  },
  "/PersistentVolumeClaim": {
    columns: [
      col("Status"),
      col("Volume"),
      col("Capacity"),
      col("Access Modes"),
      col("StorageClass"),
      ageCol,
    ],
    cells: (o, now) => [
      str(get(o, "status", "phase")),
      str(get(o, "spec", "volumeName")),
      str(get(o, "status", "capacity", "storage")),
      list(get(o, "status", "accessModes")).join(","),
      str(get(o, "spec", "storageClassName")),
      created(o, now),
    ],
  },
  "/Event": eventPrinter,
  "events.k8s.io/Event": eventPrinter,
  "apps/Deployment": {
    columns: [
      col("Ready"),
      col("Up-to-date", "integer"),
      col("Available", "integer"),
      ageCol,
      ...workloadExtras,
    ],
    cells: (o, now) => [
      `${num(get(o, "status", "readyReplicas"))}/${num(get(o, "spec", "replicas"))}`,
      num(get(o, "status", "updatedReplicas")),
      num(get(o, "status", "availableReplicas")),
      created(o, now),
      ...extras(o),
    ],
  },
  "apps/ReplicaSet": {
    columns: [
      col("Desired", "integer"),
      col("Current", "integer"),
      col("Ready", "integer"),
      ageCol,
      ...workloadExtras,
    ],
    cells: (o, now) => [
      num(get(o, "spec", "replicas")),
      num(get(o, "status", "replicas")),
      num(get(o, "status", "readyReplicas")),
      created(o, now),
      ...extras(o),
    ],
  },
  "apps/StatefulSet": {
    columns: [col("Ready"), ageCol, col("Containers", "string", 1), col("Images", "string", 1)],
    cells: (o, now) => [
      `${num(get(o, "status", "readyReplicas"))}/${num(get(o, "spec", "replicas"))}`,
      created(o, now),
      ...extras(o).slice(0, 2),
    ],
  },
  "apps/DaemonSet": {
    columns: [
      col("Desired", "integer"),
      col("Current", "integer"),
      col("Ready", "integer"),
      col("Up-to-date", "integer"),
      col("Available", "integer"),
      col("Node Selector"),
      ageCol,
      ...workloadExtras,
    ],
    cells: (o, now) => [
      num(get(o, "status", "desiredNumberScheduled")),
      num(get(o, "status", "currentNumberScheduled")),
      num(get(o, "status", "numberReady")),
      num(get(o, "status", "updatedNumberScheduled")),
      num(get(o, "status", "numberAvailable")),
      selector({ matchLabels: get(o, "spec", "template", "spec", "nodeSelector") }),
      created(o, now),
      ...extras(o),
    ],
  },
  "batch/Job": {
    columns: [col("Completions"), col("Duration"), ageCol, ...workloadExtras],
    cells: (o, now) => {
      const start = Date.parse(str(get(o, "status", "startTime")));
      const end = Date.parse(str(get(o, "status", "completionTime")));
      const duration = Number.isNaN(start)
        ? ""
        : age(new Date(start).toISOString(), Number.isNaN(end) ? now : end);
      const completions = get(o, "spec", "completions");
      const done = num(get(o, "status", "succeeded"));
      return [
        typeof completions === "number"
          ? `${done}/${completions}`
          : `${done}/1 of ${num(get(o, "spec", "parallelism")) || 1}`,
        duration,
        created(o, now),
        ...extras(o),
      ];
    },
  },
  "batch/CronJob": {
    columns: [
      col("Schedule"),
      col("Suspend", "boolean"),
      col("Active", "integer"),
      col("Last Schedule"),
      ageCol,
    ],
    cells: (o, now) => [
      str(get(o, "spec", "schedule")),
      get(o, "spec", "suspend") === true,
      list(get(o, "status", "active")).length,
      get(o, "status", "lastScheduleTime") ? age(get(o, "status", "lastScheduleTime"), now) : "<none>",
      created(o, now),
    ],
  },
  "coordination.k8s.io/Lease": {
    columns: [col("Holder"), ageCol],
    cells: (o, now) => [str(get(o, "spec", "holderIdentity")), created(o, now)],
  },
  "apiextensions.k8s.io/CustomResourceDefinition": createdAt,
  "rbac.authorization.k8s.io/Role": createdAt,
  "rbac.authorization.k8s.io/ClusterRole": createdAt,
  "rbac.authorization.k8s.io/RoleBinding": binding,
  "rbac.authorization.k8s.io/ClusterRoleBinding": binding,
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": webhooks,
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": webhooks,
};

/** The printer of kinds kube has none for: Name then Created At. */
export const DEFAULT_PRINTER: Printer = createdAt;
export { ageCol as AGE_COLUMN };
