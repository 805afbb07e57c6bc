// A table of bad objects for every built-in kind an operator writes, derived rather than written
// one by one: the smallest valid object of each kind, and from it every object with one change
// kube's validation may refuse: a bad name, label or annotation, each string field set to a value
// no enum or name rule takes, each number set below and above any range, each field and list
// item removed. What kube-apiserver answers to each is recorded (scripts/record-validation.ts)
// and the embedded server must answer the same (validation-table.test.ts).
import { servedKinds } from "./served-kinds.js";

export interface ValidationCase {
  /** `Kind/change`, stable across runs: the key of the recording. */
  id: string;
  /** The collection, with `{ns}` for the namespace. */
  path: string;
  body: Record<string, unknown>;
}

/** What the server answered: the code, the reason and the causes (`reason:field`, sorted, once each). */
export interface Outcome {
  code: number;
  reason?: string;
  causes: string[];
}

type Json = Record<string, unknown>;

const object = (apiVersion: string, kind: string, name: string, rest: Json): Json => ({
  apiVersion,
  kind,
  metadata: { name },
  ...rest,
});

const template = {
  metadata: { labels: { app: "a" } },
  spec: {
    containers: [
      {
        name: "c",
        image: "nginx",
        ports: [{ containerPort: 80, protocol: "TCP" }],
        resources: { limits: { cpu: "1" } },
      },
    ],
  },
};

/** The smallest valid object of each kind, by kind. */
async function fixtures(): Promise<Record<string, { path: string; body: Json }>> {
  return {
    ...(await servedKinds()),
    ConfigMap: {
      path: "/api/v1/namespaces/{ns}/configmaps",
      body: object("v1", "ConfigMap", "cm", { data: { a: "b" } }),
    },
    Secret: {
      path: "/api/v1/namespaces/{ns}/secrets",
      body: object("v1", "Secret", "s", { type: "Opaque", data: { a: "Yg==" } }),
    },
    ServiceAccount: {
      path: "/api/v1/namespaces/{ns}/serviceaccounts",
      body: object("v1", "ServiceAccount", "sa", {}),
    },
    Service: {
      path: "/api/v1/namespaces/{ns}/services",
      body: object("v1", "Service", "svc", {
        spec: {
          type: "ClusterIP",
          selector: { app: "a" },
          ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }],
        },
      }),
    },
    Pod: {
      path: "/api/v1/namespaces/{ns}/pods",
      body: object("v1", "Pod", "pod", {
        spec: {
          restartPolicy: "Always",
          containers: [
            {
              name: "c",
              image: "nginx",
              imagePullPolicy: "Always",
              ports: [{ containerPort: 80, protocol: "TCP" }],
              resources: { limits: { cpu: "1", memory: "1Gi" } },
            },
          ],
        },
      }),
    },
    Endpoints: {
      path: "/api/v1/namespaces/{ns}/endpoints",
      body: object("v1", "Endpoints", "ep", {
        subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80, protocol: "TCP" }] }],
      }),
    },
    Deployment: {
      path: "/apis/apps/v1/namespaces/{ns}/deployments",
      body: object("apps/v1", "Deployment", "d", {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "a" } },
          template,
          strategy: { type: "RollingUpdate" },
        },
      }),
    },
    StatefulSet: {
      path: "/apis/apps/v1/namespaces/{ns}/statefulsets",
      body: object("apps/v1", "StatefulSet", "ss", {
        spec: {
          replicas: 1,
          serviceName: "svc",
          selector: { matchLabels: { app: "a" } },
          template,
          podManagementPolicy: "OrderedReady",
        },
      }),
    },
    DaemonSet: {
      path: "/apis/apps/v1/namespaces/{ns}/daemonsets",
      body: object("apps/v1", "DaemonSet", "ds", {
        spec: { selector: { matchLabels: { app: "a" } }, template },
      }),
    },
    ReplicaSet: {
      path: "/apis/apps/v1/namespaces/{ns}/replicasets",
      body: object("apps/v1", "ReplicaSet", "rs", {
        spec: { replicas: 1, selector: { matchLabels: { app: "a" } }, template },
      }),
    },
    Job: {
      path: "/apis/batch/v1/namespaces/{ns}/jobs",
      body: object("batch/v1", "Job", "j", {
        spec: {
          backoffLimit: 2,
          template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
        },
      }),
    },
    Lease: {
      path: "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases",
      body: object("coordination.k8s.io/v1", "Lease", "l", {
        spec: { holderIdentity: "me", leaseDurationSeconds: 15 },
      }),
    },
    Role: {
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
      body: object("rbac.authorization.k8s.io/v1", "Role", "r", {
        rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
      }),
    },
    RoleBinding: {
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
      body: object("rbac.authorization.k8s.io/v1", "RoleBinding", "rb", {
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
        subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "{ns}" }],
      }),
    },
    Namespace: { path: "/api/v1/namespaces", body: object("v1", "Namespace", "ns-{ns}", {}) },
  };
}

type Path = string[];

/** Every value in `o` (objects too, but not `o` itself) with its path. */
function values(o: unknown, path: Path = [], out: [Path, unknown][] = []): [Path, unknown][] {
  if (Array.isArray(o)) {
    for (let i = 0; i < o.length; i++) values(o[i], [...path, String(i)], out);
  } else if (o !== null && typeof o === "object") {
    for (const [k, v] of Object.entries(o)) values(v, [...path, k], out);
    if (path.length > 0) out.push([path, o]);
  } else out.push([path, o]);
  return out;
}

/** Sets (or with `undefined`, removes) the value at `path`. */
function setAt(o: Json, path: Path, v: unknown): void {
  let c = o as Record<string, unknown> | unknown[];
  for (const p of path.slice(0, -1)) c = (c as Record<string, unknown>)[p] as Record<string, unknown>;
  const last = path[path.length - 1];
  if (v !== undefined) (c as Record<string, unknown>)[last] = v;
  else if (Array.isArray(c)) c.splice(Number(last), 1);
  else delete c[last];
}

/** The bad objects, `{ns}` replaced by `namespace`. */
export async function validationCases(namespace: string): Promise<ValidationCase[]> {
  const out: ValidationCase[] = [];
  for (const [kind, f] of Object.entries(await fixtures())) {
    const base = JSON.parse(JSON.stringify(f.body).replaceAll("{ns}", namespace)) as Json;
    const path = f.path.replace("{ns}", namespace);
    const changes: [string, (o: Json) => void][] = [
      ["name", (o) => setAt(o, ["metadata", "name"], "Bad_Name")],
      ["label-key", (o) => setAt(o, ["metadata", "labels"], { "a b": "x" })],
      ["label-value", (o) => setAt(o, ["metadata", "labels"], { k: "-bad-" })],
      ["annotation-key", (o) => setAt(o, ["metadata", "annotations"], { "Bad Key": "x" })],
    ];
    const { metadata: _m, apiVersion: _a, kind: _k, ...fields } = base;
    for (const [p, v] of values(fields)) {
      const at = p.join(".");
      if (typeof v === "string") changes.push([`${at}=bad`, (o) => setAt(o, p, "Bad Value!")]);
      if (typeof v === "number") {
        changes.push([`${at}=-1`, (o) => setAt(o, p, -1)]);
        changes.push([`${at}=100000`, (o) => setAt(o, p, 100000)]);
      }
      changes.push([`${at}-removed`, (o) => setAt(o, p, undefined)]);
    }
    for (const [change, apply] of changes) {
      const body = structuredClone(base);
      apply(body);
      out.push({ id: `${kind}/${change}`, path, body });
    }
  }
  return out;
}

/** The outcome of an answer, as recorded and compared. */
export function outcomeOf(
  status: number,
  body: { reason?: string; details?: { causes?: { reason?: string; field?: string }[] } } | undefined,
): Outcome {
  const causes = [...new Set((body?.details?.causes ?? []).map((c) => `${c.reason}:${c.field}`))].sort();
  return status < 300 ? { code: status, causes: [] } : { code: status, reason: body?.reason, causes };
}
