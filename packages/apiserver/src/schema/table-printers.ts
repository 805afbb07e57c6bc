// kube's default `kubectl get` columns for the built-in kinds (pkg/printers/internalversion):
// per kind, the columns after Name and a function from object to their cells.
import type { TableColumnDefinition } from "./table-types.js";
import { age } from "./table-format.js";
import {
  ageCol,
  col,
  containers,
  count,
  created,
  endpoints,
  eventObject,
  externalIPs,
  extras,
  get,
  list,
  num,
  podRestarts,
  podStatus,
  selector,
  servicePorts,
  str,
  subjects,
  workloadExtras,
} from "./table-cells.js";

/** Columns after Name (Events have none first: see `nameFirst`) and their cells. */
export interface Printer {
  columns: TableColumnDefinition[];
  cells(obj: Record<string, unknown>, now: number): unknown[];
  /** false for Events, whose first column is Last Seen and whose Name comes last. */
  nameFirst?: boolean;
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
  "/ComponentStatus": {
    columns: [
      col("Status", "string", 0, "Status of the component conditions"),
      col("Message", "string", 0, "Message of the component conditions"),
      col("Error", "string", 0, "Error of the component conditions"),
    ],
    cells: (o) => {
      const healthy = list(get(o, "conditions")).find((c) => get(c, "type") === "Healthy");
      if (!healthy) return ["Unknown", "", ""];
      const status = get(healthy, "status") === "True" ? "Healthy" : "Unhealthy";
      return [status, str(get(healthy, "message")), str(get(healthy, "error"))];
    },
  },
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
