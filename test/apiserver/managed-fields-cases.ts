// The writes whose metadata.managedFields the embedded server must compute as kube-apiserver does,
// derived rather than written one by one: for the smallest valid object of every built-in kind
// (validation-cases.ts's fixtures) and for richer objects of the kinds operators write, a create,
// an update (PUT of the object as read with a label added, and a new image in the rich objects'
// pod templates), a JSON merge patch, a strategic-merge
// patch, a forced server-side apply of the fixture, an apply that creates, and where the kind
// has a status subresource a /status update with a condition that sets none of its times (then one
// that sets lastTransitionTime, which metav1.Condition requires). What
// kube answers to each step (code, managedFields without their times, the object as stored) is
// recorded by scripts/record-managed-fields.ts; managed-fields-writes.test.ts holds the embedded
// server to it.
import { eventually } from "controller-runtime/envtest";
import type { Api, Reply } from "./harness.js";
import { fixtures } from "./validation-cases.js";

type Json = Record<string, unknown>;

export interface WriteCase {
  /** The fixture's name (`Deployment`, `rich/Deployment`): the key of the recording. */
  id: string;
  /** The collection, with `{ns}` for the namespace. */
  path: string;
  body: Json;
}

/** What one step answered: its code, and on success the object and its managedFields. */
export interface StepOutcome {
  code: number;
  /** managedFields without `time`. */
  managedFields?: unknown[];
  /** The object as answered, less what varies from run to run (see `canonical`). */
  object?: Json;
  /** Set when managedFields were not in kube's order (never in a recording of kube's answers). */
  misordered?: true;
}

export type CaseOutcome = Record<string, StepOutcome>;

const MANAGER = "mf-test";
const WEBHOOK_URL = "https://webhook.example.com/check";
const APP_IMAGE = "example.com/app:1.0";

const container = {
  name: "app",
  image: APP_IMAGE,
  args: ["--port=8080"],
  env: [
    { name: "MODE", value: "prod" },
    { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
  ],
  ports: [
    { name: "http", containerPort: 8080 },
    { name: "metrics", containerPort: 9090, protocol: "TCP" },
  ],
  resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { memory: "128Mi" } },
  readinessProbe: { httpGet: { path: "/ready", port: "http" }, periodSeconds: 5 },
  livenessProbe: { tcpSocket: { port: 8080 } },
  volumeMounts: [{ name: "config", mountPath: "/etc/app", readOnly: true }],
  securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false },
};

const podSpec = {
  serviceAccountName: "default",
  initContainers: [{ name: "init", image: "busybox", command: ["true"] }],
  containers: [container],
  volumes: [
    { name: "config", configMap: { name: "app-config" } },
    { name: "scratch", emptyDir: {} },
  ],
  nodeSelector: { "kubernetes.io/os": "linux" },
  tolerations: [{ key: "dedicated", operator: "Equal", value: "app", effect: "NoSchedule" }],
  affinity: {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 100,
          podAffinityTerm: {
            labelSelector: { matchLabels: { app: "rich" } },
            topologyKey: "kubernetes.io/hostname",
          },
        },
      ],
    },
  },
  securityContext: { fsGroup: 2000 },
};

const template = {
  metadata: { labels: { app: "rich" }, annotations: { "example.com/rev": "1" } },
  spec: podSpec,
};

const obj = (apiVersion: string, kind: string, name: string, rest: Json): Json => ({
  apiVersion,
  kind,
  metadata: { name, labels: { app: "rich" } },
  ...rest,
});

const richWebhook = (name: string): Json => ({
  name,
  clientConfig: { service: { namespace: "{ns}", name: "hooks", path: "/check", port: 8443 } },
  rules: [
    {
      apiGroups: ["example.com"],
      apiVersions: ["v1"],
      operations: ["CREATE", "UPDATE"],
      resources: ["nothings"],
      scope: "Namespaced",
    },
  ],
  namespaceSelector: { matchExpressions: [{ key: "env", operator: "In", values: ["test"] }] },
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  failurePolicy: "Ignore",
});

/** Objects of the kinds operators write, with the fields they set. */
function richObjects(): Record<string, { path: string; body: Json }> {
  return {
    Deployment: {
      path: "/apis/apps/v1/namespaces/{ns}/deployments",
      body: obj("apps/v1", "Deployment", "rich-d", {
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: "rich" } },
          template,
          strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
        },
      }),
    },
    StatefulSet: {
      path: "/apis/apps/v1/namespaces/{ns}/statefulsets",
      body: obj("apps/v1", "StatefulSet", "rich-ss", {
        spec: {
          replicas: 1,
          serviceName: "rich",
          selector: { matchLabels: { app: "rich" } },
          template,
          volumeClaimTemplates: [
            {
              metadata: { name: "data" },
              spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
            },
          ],
        },
      }),
    },
    DaemonSet: {
      path: "/apis/apps/v1/namespaces/{ns}/daemonsets",
      body: obj("apps/v1", "DaemonSet", "rich-ds", {
        spec: {
          selector: { matchLabels: { app: "rich" } },
          template,
          updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1 } },
        },
      }),
    },
    Job: {
      path: "/apis/batch/v1/namespaces/{ns}/jobs",
      body: obj("batch/v1", "Job", "rich-j", {
        spec: {
          backoffLimit: 3,
          ttlSecondsAfterFinished: 600,
          template: { metadata: template.metadata, spec: { ...podSpec, restartPolicy: "Never" } },
        },
      }),
    },
    CronJob: {
      path: "/apis/batch/v1/namespaces/{ns}/cronjobs",
      body: obj("batch/v1", "CronJob", "rich-cj", {
        spec: {
          schedule: "0 * * * *",
          concurrencyPolicy: "Forbid",
          jobTemplate: {
            metadata: { labels: { app: "rich" } },
            spec: { template: { spec: { ...podSpec, restartPolicy: "OnFailure" } } },
          },
        },
      }),
    },
    Pod: {
      path: "/api/v1/namespaces/{ns}/pods",
      body: obj("v1", "Pod", "rich-pod", { spec: podSpec }),
    },
    Service: {
      path: "/api/v1/namespaces/{ns}/services",
      body: obj("v1", "Service", "rich-svc", {
        spec: {
          selector: { app: "rich" },
          ports: [
            { name: "http", port: 80, targetPort: "http" },
            { name: "dns", port: 53, protocol: "UDP" },
          ],
          sessionAffinity: "ClientIP",
        },
      }),
    },
    PersistentVolumeClaim: {
      path: "/api/v1/namespaces/{ns}/persistentvolumeclaims",
      body: obj("v1", "PersistentVolumeClaim", "rich-pvc", {
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: "standard",
          volumeMode: "Filesystem",
          resources: { requests: { storage: "5Gi" } },
        },
      }),
    },
    Ingress: {
      path: "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses",
      body: obj("networking.k8s.io/v1", "Ingress", "rich-ing", {
        spec: {
          ingressClassName: "nginx",
          tls: [{ hosts: ["app.example.com"], secretName: "app-tls" }],
          rules: [
            {
              host: "app.example.com",
              http: {
                paths: [
                  {
                    path: "/",
                    pathType: "Prefix",
                    backend: { service: { name: "rich-svc", port: { name: "http" } } },
                  },
                ],
              },
            },
          ],
        },
      }),
    },
    HorizontalPodAutoscaler: {
      path: "/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers",
      body: obj("autoscaling/v2", "HorizontalPodAutoscaler", "rich-hpa", {
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "rich-d" },
          minReplicas: 2,
          maxReplicas: 10,
          metrics: [
            {
              type: "Resource",
              resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } },
            },
          ],
          behavior: {
            scaleDown: {
              stabilizationWindowSeconds: 60,
              policies: [{ type: "Pods", value: 1, periodSeconds: 60 }],
            },
          },
        },
      }),
    },
    PodDisruptionBudget: {
      path: "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
      body: obj("policy/v1", "PodDisruptionBudget", "rich-pdb", {
        spec: { minAvailable: 1, selector: { matchLabels: { app: "rich" } } },
      }),
    },
    ClusterRole: {
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: obj("rbac.authorization.k8s.io/v1", "ClusterRole", "rich-cr-{ns}", {
        rules: [
          {
            apiGroups: ["apps"],
            resources: ["deployments", "deployments/status"],
            verbs: ["get", "list", "watch"],
          },
          { nonResourceURLs: ["/metrics"], verbs: ["get"] },
        ],
      }),
    },
    RoleBinding: {
      path: "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
      body: obj("rbac.authorization.k8s.io/v1", "RoleBinding", "rich-rb", {
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "rich-cr-{ns}" },
        subjects: [
          { kind: "ServiceAccount", name: "default", namespace: "{ns}" },
          { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" },
        ],
      }),
    },
    MutatingWebhookConfiguration: {
      path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      body: obj("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "rich-mwc-{ns}", {
        webhooks: [{ ...richWebhook("m.example.com"), reinvocationPolicy: "IfNeeded" }],
      }),
    },
    ValidatingWebhookConfiguration: {
      path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      body: obj("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "rich-vwc-{ns}", {
        webhooks: [
          richWebhook("v.example.com"),
          { ...richWebhook("w.example.com"), clientConfig: { url: WEBHOOK_URL } },
        ],
      }),
    },
  };
}

/** The cases: every fixture, then the rich objects under `rich/`. */
export async function writeCases(): Promise<WriteCase[]> {
  const out: WriteCase[] = [];
  for (const [id, f] of Object.entries(await fixtures())) out.push({ id, ...f });
  for (const [id, f] of Object.entries(richObjects())) out.push({ id: `rich/${id}`, ...f });
  return out;
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const inNamespace = <T>(v: T, ns: string): T => JSON.parse(JSON.stringify(v).replaceAll("{ns}", ns)) as T;

/** Whether each collection (`/apis/apps/v1/namespaces/x/deployments`) has a status subresource. */
export class StatusSubresources {
  private readonly lists = new Map<string, Promise<Set<string>>>();
  constructor(private readonly api: Api) {}

  async has(collection: string): Promise<boolean> {
    const m = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)(?:\/namespaces\/[^/]+)?\/([^/]+)$/.exec(collection);
    if (!m) return false;
    let list = this.lists.get(m[1]);
    if (!list) {
      list = this.api.get(m[1]).then((r) => {
        const names = new Set<string>();
        for (const res of (r.body?.resources ?? []) as { name: string }[]) names.add(res.name);
        return names;
      });
      this.lists.set(m[1], list);
    }
    return (await list).has(`${m[2]}/status`);
  }
}

const entryKey = (e: Json) => `${e.operation === "Apply" ? 0 : 1} ${e.manager} ${e.subresource ?? ""}`;

/** The managers of the steps, and the one kube names for what an object had before its first apply. */
const OURS = new RegExp(`^(${MANAGER}-|before-first-apply$)`);

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * The answer less what varies from run to run: the namespace (as `{ns}`), the object's uid (as
 * `{uid}`), resourceVersion, times (as `{time}`), managedFields' times, a Service's allocated
 * addresses, and the strings of `substitutions` (values a fixture generates anew each run).
 */
export function canonical(reply: Reply, ns: string, substitutions: Map<string, string>): StepOutcome {
  if (reply.status >= 300 || !reply.body?.metadata) return { code: reply.status };
  const uid = String(reply.body.metadata.uid ?? "");
  const text = JSON.stringify(reply.body, (_k, v) => {
    if (typeof v !== "string") return v;
    if (RFC3339.test(v)) return "{time}";
    // A CSR's requester: the client certificate's hash, new with each server's certificates.
    if (v.startsWith("X509SHA256=")) return "{credential}";
    if (uid && v.includes(uid)) v = v.replaceAll(uid, "{uid}");
    return substitutions.get(v) ?? v;
  }).replaceAll(ns, "{ns}");
  const o = JSON.parse(text) as Json;
  const meta = o.metadata as Json;
  // Both servers' admission-policy controllers write its status when they get to it.
  if (o.kind === "ValidatingAdmissionPolicy") delete o.status;
  // kube orders entries Apply first, then by time to the second, then by manager: without the
  // times, by operation and manager (and subresource), which steps within one second also give.
  // The order as answered is checked against the times answered.
  const raw = (reply.body.metadata.managedFields ?? []) as Json[];
  const inOrder = raw.every((e, i) => i === 0 || kubeOrder(raw[i - 1], e) <= 0);
  const managedFields = ((meta.managedFields ?? []) as Json[])
    .filter((e) => OURS.test(String(e.manager)))
    .map(({ time: _t, ...rest }) => rest)
    .sort((a, b) => entryKey(a).localeCompare(entryKey(b)));
  delete meta.managedFields;
  delete meta.resourceVersion;
  const spec = o.spec as Json | undefined;
  if (o.kind === "Service" && spec) {
    for (const k of ["clusterIP", "clusterIPs"]) if (k in spec) spec[k] = "{allocated}";
    for (const p of (spec.ports ?? []) as Json[]) if ("nodePort" in p) p.nodePort = "{allocated}";
  }
  return inOrder
    ? { code: reply.status, managedFields, object: o }
    : { code: reply.status, managedFields, object: o, misordered: true };
}

/** kube's sortEncodedManagedFields: operation, time to the second, manager, apiVersion, subresource. */
function kubeOrder(a: Json, b: Json): number {
  const seconds = (e: Json) => (typeof e.time === "string" ? Math.floor(Date.parse(e.time) / 1000) : 0);
  const text = (v: unknown) => String(v ?? "");
  const keys: [unknown, unknown][] = [
    [a.operation, b.operation],
    [seconds(a), seconds(b)],
    [a.manager, b.manager],
    [a.apiVersion, b.apiVersion],
    [a.subresource, b.subresource],
  ];
  for (const [x, y] of keys) {
    if (typeof x === "number" && typeof y === "number") {
      if (x !== y) return x - y;
    } else if (text(x) !== text(y)) return text(x) < text(y) ? -1 : 1;
  }
  return 0;
}

const withLabel = (body: Json, key: string, value: string): Json => {
  const o = clone(body);
  const meta = (o.metadata ?? {}) as Json;
  meta.labels = { ...((meta.labels ?? {}) as Json), [key]: value };
  o.metadata = meta;
  return o;
};

/**
 * The rich objects' pod templates with the app's next image: the update takes a field the
 * creator set (a Job's template is immutable: kube refuses that update).
 */
const withNewImage = (o: Json): Json =>
  JSON.parse(
    JSON.stringify(o).replaceAll(`"${APP_IMAGE}"`, `"${APP_IMAGE.replace(":1.0", ":2.0")}"`),
  ) as Json;

/** A condition that sets neither lastTransitionTime, lastProbeTime nor lastUpdateTime. */
const CONDITION = { type: "Ready", status: "True", reason: "Checked", message: "checked" };
const CONDITION_TIME = "2026-01-01T00:00:00Z";

/**
 * Runs one case's steps in order, in namespace `ns`; answers each step's outcome by name, and
 * the paths of the cluster-scoped objects it created (for the caller to delete).
 */
export async function runCase(
  api: Api,
  c: WriteCase,
  ns: string,
  statuses: StatusSubresources,
  substitutions: Map<string, string>,
): Promise<{ outcome: CaseOutcome; created: string[] }> {
  const outcome: CaseOutcome = {};
  const created: string[] = [];
  const collection = c.path.replace("{ns}", ns);
  const body = inNamespace(c.body, ns);
  const name = (body.metadata as Json).name as string;
  const path = `${collection}/${name}`;
  const q = (m: string) => `?fieldManager=${m}`;
  const record = (step: string, r: Reply) => {
    outcome[step] = canonical(r, ns, substitutions);
    return r;
  };
  const cr = record("create", await api.post(`${collection}${q(`${MANAGER}-create`)}`, body));
  if (cr.status !== 201) return { outcome, created };
  if (!collection.includes("/namespaces/")) created.push(path);
  // kube's CRD controllers write a new CRD's status on their own time: the writes after the
  // create meet it established on both servers, as recorded.
  if (c.id === "CustomResourceDefinition") {
    await eventually(
      "the CRD to be established",
      async () => {
        const status = ((await api.get(path)).body as Json).status as Json | undefined;
        const conditions = (status?.conditions ?? []) as Json[];
        return conditions.some((x) => x.type === "Established" && x.status === "True");
      },
      { timeoutMs: 30_000 },
    );
  }
  /** A PUT of `change(object)`, read again after a conflict (a server's controller wrote it). */
  const putChanged = async (target: string, first: Json, change: (o: Json) => Json): Promise<Reply> => {
    let r = await api.put(target, change(first));
    for (let i = 0; i < 5 && r.status === 409; i++)
      r = await api.put(target, change((await api.get(path)).body as Json));
    return r;
  };
  const put = record(
    "update",
    await putChanged(`${path}${q(`${MANAGER}-update`)}`, cr.body, (o) =>
      withNewImage(withLabel(o, "updated", "yes")),
    ),
  );
  record(
    "merge-patch",
    await api.call(
      "PATCH",
      `${path}${q(`${MANAGER}-merge`)}`,
      { metadata: { annotations: { merged: "yes" } } },
      {
        contentType: "application/merge-patch+json",
      },
    ),
  );
  record(
    "strategic-merge-patch",
    await api.call(
      "PATCH",
      `${path}${q(`${MANAGER}-smp`)}`,
      { metadata: { labels: { smp: "yes" } } },
      {
        contentType: "application/strategic-merge-patch+json",
      },
    ),
  );
  const applied = record(
    "apply",
    await api.call("PATCH", `${path}${q(`${MANAGER}-apply`)}&force=true`, withLabel(body, "applied", "yes"), {
      contentType: "application/apply-patch+yaml",
    }),
  );
  if (await statuses.has(collection)) {
    const current = applied.status === 200 ? applied.body : put.status === 200 ? put.body : cr.body;
    const withCondition = (condition: Json) => (o: Json) => {
      const next = clone(o);
      next.status = { ...((next.status ?? {}) as Json), conditions: [condition] };
      return next;
    };
    const statusPath = `${path}/status${q(`${MANAGER}-status`)}`;
    record("status", await putChanged(statusPath, current, withCondition(CONDITION)));
    // metav1.Condition requires its time (kube refuses the write above): the same write with it.
    const timed = { ...CONDITION, lastTransitionTime: CONDITION_TIME };
    record("status-timed", await putChanged(statusPath, current, withCondition(timed)));
  }
  // An apply that creates: the same object under another name.
  const other = clone(body);
  (other.metadata as Json).name = `${name}-applied`;
  const ac = record(
    "apply-create",
    await api.call("PATCH", `${collection}/${name}-applied${q(`${MANAGER}-apply`)}`, other, {
      contentType: "application/apply-patch+yaml",
    }),
  );
  if (ac.status === 201 && !collection.includes("/namespaces/"))
    created.push(`${collection}/${name}-applied`);
  return { outcome, created };
}

/** Every string leaf of `v` by its path. */
function leaves(v: unknown, path = "", out = new Map<string, string>()): Map<string, string> {
  if (typeof v === "string") out.set(path, v);
  else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) leaves(x, `${path}/${k}`, out);
  return out;
}

/**
 * The strings to write as recorded: where a body's string differs from the recorded body's at
 * the same path (a certificate request, an address generated per run), this run's value maps
 * to the recorded one.
 */
export function substitutionsFor(now: WriteCase[], recorded: Record<string, Json>): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of now) {
    const was = recorded[c.id];
    if (!was) continue;
    const before = leaves(was);
    for (const [p, v] of leaves(c.body)) {
      const w = before.get(p);
      if (w !== undefined && w !== v) out.set(v, w);
    }
  }
  return out;
}

/**
 * Runs `cases` `concurrency` at a time, each in a namespace `<prefix>-<index>`; answers outcomes
 * by id and what to delete afterwards (cluster-scoped objects, then the namespaces).
 */
export async function runCases(
  api: Api,
  cases: WriteCase[],
  prefix: string,
  substitutions: Map<string, string>,
  concurrency = 8,
): Promise<{ outcomes: Record<string, CaseOutcome>; created: string[] }> {
  const statuses = new StatusSubresources(api);
  const outcomes: Record<string, CaseOutcome> = {};
  const created: string[] = [];
  const namespaces: string[] = [];
  const run = async (batch: WriteCase[], workers: number) => {
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const c = batch[next++];
        // A namespace per case: a LimitRange's defaults or a quota reach no other case's objects.
        const own = `${prefix}-${cases.indexOf(c)}`;
        if (c.path.includes("{ns}")) {
          const r = await api.post("/api/v1/namespaces", {
            apiVersion: "v1",
            kind: "Namespace",
            metadata: { name: own },
          });
          if (r.status !== 201) throw new Error(`creating namespace ${own}: ${r.status} ${r.text}`);
          namespaces.push(`/api/v1/namespaces/${own}`);
        }
        const r = await runCase(api, c, own, statuses, substitutions);
        outcomes[c.id] = r.outcome;
        created.push(...r.created);
      }
    };
    await Promise.all(Array.from({ length: workers }, worker));
  };
  // The mutating policy's binding makes its policy label every ConfigMap created: bound last,
  // when no other case writes.
  const last = (c: WriteCase) => c.id === "MutatingAdmissionPolicyBinding";
  await run(
    cases.filter((c) => !last(c)),
    concurrency,
  );
  await run(cases.filter(last), 1);
  return { outcomes, created: [...created, ...namespaces] };
}
