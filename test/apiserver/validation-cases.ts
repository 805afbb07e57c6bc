// A table of bad objects for every built-in kind an operator writes, derived rather than written
// one by one: the smallest valid object of each kind, and from it every object with one change
// kube's validation may refuse: a bad name, label or annotation, each string field set to a value
// no enum or name rule takes, each number set below and above any range, each field and list
// item removed. What kube-apiserver answers to each is recorded (scripts/record-validation.ts)
// and the embedded server must answer the same (validation-table.test.ts).
// Beside them, scenarios: what kube refuses because of what is stored (an address or node port
// another Service holds, an immutable ConfigMap or Secret, deletecollection's preconditions),
// each a request made after the writes it depends on. The same fixtures are updated
// (validation-updates.ts) and written through /status (validation-status.ts).
import type { Api } from "./harness.js";
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
  /** Of a status write taken (validation-status.ts): the patched paths whose value the answer does not hold. */
  dropped?: string[];
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

const webhook = (name: string): Json => ({
  name,
  clientConfig: { url: "https://webhook.example.com/check" },
  rules: [
    { apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["nothings"] },
  ],
  sideEffects: "None",
  admissionReviewVersions: ["v1"],
  timeoutSeconds: 5,
});

/** The smallest valid object of each kind, by kind. */
export async function fixtures(): Promise<Record<string, { path: string; body: Json }>> {
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
    PersistentVolumeClaim: {
      path: "/api/v1/namespaces/{ns}/persistentvolumeclaims",
      body: object("v1", "PersistentVolumeClaim", "pvc", {
        spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      }),
    },
    ClusterRole: {
      path: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      body: object("rbac.authorization.k8s.io/v1", "ClusterRole", "cr-{ns}", {
        rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }],
      }),
    },
    ClusterRoleBinding: {
      path: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      body: object("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", "crb-{ns}", {
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cr-{ns}" },
        subjects: [{ kind: "ServiceAccount", name: "sa", namespace: "{ns}" }],
      }),
    },
    // Webhooks on a resource no server serves: created for real by the update table, they must
    // never be called.
    ValidatingWebhookConfiguration: {
      path: "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      body: object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "vwc-{ns}", {
        webhooks: [webhook("v.example.com")],
      }),
    },
    Event: {
      path: "/api/v1/namespaces/{ns}/events",
      body: object("v1", "Event", "ev", {
        involvedObject: { kind: "Pod", name: "p", namespace: "{ns}" },
        reason: "Started",
        message: "started",
        type: "Normal",
        source: { component: "operator" },
      }),
    },
    "events.k8s.io/Event": {
      path: "/apis/events.k8s.io/v1/namespaces/{ns}/events",
      body: object("events.k8s.io/v1", "Event", "ev2", {
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "example.com/operator",
        reportingInstance: "operator-0",
        action: "Reconcile",
        reason: "Started",
        regarding: { kind: "Pod", name: "p", namespace: "{ns}" },
        type: "Normal",
      }),
    },
    ValidatingAdmissionPolicy: {
      path: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
      body: object("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", "vap-{ns}", {
        spec: {
          failurePolicy: "Fail",
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: ["example.com"],
                apiVersions: ["v1"],
                operations: ["CREATE"],
                resources: ["nothings"],
              },
            ],
          },
          validations: [{ expression: "object.metadata.name != ''", message: "named" }],
        },
      }),
    },
    ValidatingAdmissionPolicyBinding: {
      path: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
      body: object("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding", "vapb-{ns}", {
        spec: { policyName: "vap-{ns}", validationActions: ["Deny"] },
      }),
    },
    MutatingWebhookConfiguration: {
      path: "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
      body: object("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", "mwc-{ns}", {
        webhooks: [webhook("m.example.com")],
      }),
    },
    Node: {
      path: "/api/v1/nodes",
      body: object("v1", "Node", "node-{ns}", {
        spec: { podCIDR: "10.244.0.0/24", podCIDRs: ["10.244.0.0/24"] },
      }),
    },
    PriorityLevelConfiguration: {
      path: "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations",
      body: object("flowcontrol.apiserver.k8s.io/v1", "PriorityLevelConfiguration", "plc-{ns}", {
        spec: {
          type: "Limited",
          limited: { nominalConcurrencyShares: 5, limitResponse: { type: "Reject" } },
        },
      }),
    },
    // It names a level every kube-apiserver keeps: the server's own controller finds it.
    FlowSchema: {
      path: "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas",
      body: object("flowcontrol.apiserver.k8s.io/v1", "FlowSchema", "fs-{ns}", {
        spec: {
          priorityLevelConfiguration: { name: "global-default" },
          matchingPrecedence: 5000,
          distinguisherMethod: { type: "ByUser" },
          rules: [
            {
              subjects: [{ kind: "User", user: { name: "alice" } }],
              resourceRules: [
                { verbs: ["get"], apiGroups: ["example.com"], resources: ["widgets"], namespaces: ["*"] },
              ],
            },
          ],
        },
      }),
    },
    CustomResourceDefinition: {
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      body: object("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.{ns}.example.com", {
        spec: {
          group: "{ns}.example.com",
          names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
          scope: "Namespaced",
          versions: [
            {
              name: "v1",
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: "object",
                  properties: {
                    spec: { type: "object", properties: { size: { type: "integer", minimum: 0 } } },
                  },
                },
              },
              subresources: { status: {} },
            },
          ],
        },
      }),
    },
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

const INT32_MAX = 2147483647;
/**
 * The cases kube's decoder refuses (400) before validation and the embedded server's Go decoding
 * (schema/go-types.ts) does not yet: numbers past int32, a MicroTime that is no time.
 */
export function refusedByGoDecoding(id: string): boolean {
  return id.endsWith(`=${INT32_MAX + 1}`) || id === "events.k8s.io/Event/eventTime=bad";
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
        // The edges: zero, and int32's last value (a value past it is refused by Go's decoder: refusedByGoDecoding).
        changes.push([`${at}=0`, (o) => setAt(o, p, 0)]);
        changes.push([`${at}=${INT32_MAX}`, (o) => setAt(o, p, INT32_MAX)]);
        changes.push([`${at}=${INT32_MAX + 1}`, (o) => setAt(o, p, INT32_MAX + 1)]);
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

/** One request of a scenario. */
export interface Step {
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
}

/** A request answered according to what `setup` stored first; its outcome is recorded. */
export interface ScenarioCase {
  /** `Kind/what`, stable across runs: the key of the recording. */
  id: string;
  setup: Step[];
  request: Step;
}

const MERGE = "application/merge-patch+json";

/** Services whose addresses and node ports are taken, out of range, or only checked by a dry run. */
function serviceScenarios(ns: string): ScenarioCase[] {
  const path = `/api/v1/namespaces/${ns}/services`;
  const svc = (name: string, spec: Json): Json =>
    object("v1", "Service", name, { spec: { ports: [{ port: 80 }], ...spec } });
  const create = (name: string, spec: Json): Step => ({ method: "POST", path, body: svc(name, spec) });
  const dry = (name: string, spec: Json): Step => ({
    method: "POST",
    path: `${path}?dryRun=All`,
    body: svc(name, spec),
  });
  const nodePort = (port: number) => ({ type: "NodePort", ports: [{ port: 80, nodePort: port }] });
  return [
    {
      id: "Service/clusterIP-taken",
      setup: [create("ip-holder", { clusterIP: "10.0.0.55" })],
      request: create("ip-taker", { clusterIP: "10.0.0.55" }),
    },
    {
      id: "Service/clusterIP-taken-dryRun",
      setup: [],
      request: dry("ip-taker-dry", { clusterIP: "10.0.0.55" }),
    },
    {
      id: "Service/clusterIP-held-by-IPAddress",
      setup: [
        {
          method: "POST",
          path: "/apis/networking.k8s.io/v1/ipaddresses",
          body: object("networking.k8s.io/v1", "IPAddress", "10.0.0.56", {
            spec: { parentRef: { resource: "services", namespace: ns, name: "elsewhere" } },
          }),
        },
      ],
      request: create("ip-blocked", { clusterIP: "10.0.0.56" }),
    },
    {
      id: "Service/clusterIP-outside-range",
      setup: [],
      request: create("ip-outside", { clusterIP: "10.0.1.5" }),
    },
    {
      id: "Service/clusterIP-outside-range-dryRun",
      setup: [],
      request: dry("ip-outside-dry", { clusterIP: "10.0.1.5" }),
    },
    {
      id: "Service/clusterIP-network-address",
      setup: [],
      request: create("ip-network", { clusterIP: "10.0.0.0" }),
    },
    {
      id: "Service/clusterIP-broadcast-address",
      setup: [],
      request: create("ip-broadcast", { clusterIP: "10.0.0.255" }),
    },
    {
      id: "Service/clusterIP-not-an-address",
      setup: [],
      request: create("ip-junk", { clusterIP: "10.0.0.x" }),
    },
    {
      id: "Service/nodePort-taken",
      setup: [create("port-holder", nodePort(30555))],
      request: create("port-taker", nodePort(30555)),
    },
    { id: "Service/nodePort-taken-dryRun", setup: [], request: dry("port-taker-dry", nodePort(30555)) },
    { id: "Service/nodePort-out-of-range", setup: [], request: create("port-outside", nodePort(80)) },
    { id: "Service/nodePort-out-of-range-dryRun", setup: [], request: dry("port-outside-dry", nodePort(80)) },
    { id: "Service/nodePort-above-range", setup: [], request: create("port-above", nodePort(32768)) },
    {
      id: "Service/nodePort-taken-by-update",
      setup: [create("port-holder-2", nodePort(30556)), create("port-mover", { type: "NodePort" })],
      request: {
        method: "PATCH",
        path: `${path}/port-mover`,
        body: { spec: { ports: [{ port: 80, nodePort: 30556 }] } },
        contentType: MERGE,
      },
    },
    {
      id: "Service/nodePort-two-ports-one-number",
      setup: [],
      request: create("port-twice", {
        type: "NodePort",
        ports: [
          { name: "a", port: 80, nodePort: 30557 },
          { name: "b", port: 81, nodePort: 30557 },
        ],
      }),
    },
  ];
}

/** Immutable ConfigMaps and Secrets: what may still change, and what may not. */
function immutableScenarios(ns: string): ScenarioCase[] {
  const out: ScenarioCase[] = [];
  for (const [kind, resource, data] of [
    ["ConfigMap", "configmaps", { data: { a: "1" } }],
    ["Secret", "secrets", { type: "Opaque", data: { a: "MQ==" } }],
  ] as const) {
    const path = `/api/v1/namespaces/${ns}/${resource}`;
    const changes: [string, Json, string?][] = [
      ["data-changed", { data: { a: kind === "Secret" ? "Mg==" : "2" } }],
      ["data-added", { data: { b: kind === "Secret" ? "Mg==" : "2" } }],
      ["data-removed", { data: null }],
      ["made-mutable", { immutable: false }],
      ["immutable-removed", { immutable: null }],
      ["labels-changed", { metadata: { labels: { a: "b" } } }],
      ...(kind === "ConfigMap"
        ? ([["binaryData-added", { binaryData: { b: "Yg==" } }]] as [string, Json][])
        : ([
            ["stringData-added", { stringData: { c: "3" } }],
            ["type-changed", { type: "kubernetes.io/basic-auth" }],
          ] as [string, Json][])),
    ];
    for (const [what, patch] of changes) {
      const name = `imm-${what.toLowerCase()}`;
      out.push({
        id: `${kind}/immutable-${what}`,
        setup: [{ method: "POST", path, body: object("v1", kind, name, { immutable: true, ...data }) }],
        request: { method: "PATCH", path: `${path}/${name}`, body: patch, contentType: MERGE },
      });
    }
    const name = "imm-put";
    out.push({
      id: `${kind}/immutable-data-changed-by-PUT`,
      setup: [{ method: "POST", path, body: object("v1", kind, name, { immutable: true, ...data }) }],
      request: {
        method: "PUT",
        path: `${path}/${name}`,
        body: object("v1", kind, name, {
          immutable: true,
          ...data,
          data: { a: kind === "Secret" ? "Mg==" : "2" },
        }),
      },
    });
  }
  return out;
}

/** deletecollection with preconditions and list options, each in a namespace of its own holding two ConfigMaps. */
function deleteCollectionScenarios(ns: string): ScenarioCase[] {
  const cases: [string, string, unknown?][] = [
    ["resourceVersion=0", "?resourceVersion=0"],
    ["uid-in-query", "?uid=00000000-0000-0000-0000-000000000000"],
    [
      "precondition-resourceVersion",
      "",
      { kind: "DeleteOptions", apiVersion: "v1", preconditions: { resourceVersion: "1" } },
    ],
    [
      "precondition-uid",
      "",
      {
        kind: "DeleteOptions",
        apiVersion: "v1",
        preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
      },
    ],
    ["resourceVersionMatch-without-resourceVersion", "?resourceVersionMatch=Exact"],
    ["bad-labelSelector", "?labelSelector=a%20in%20("],
    ["negative-gracePeriodSeconds", "?gracePeriodSeconds=-1"],
    ["bad-propagationPolicy", "?propagationPolicy=Sideways"],
    ["no-precondition", ""],
  ];
  return cases.map(([what, query, body], i) => {
    const space = `${ns}-dc${i}`;
    const path = `/api/v1/namespaces/${space}/configmaps`;
    return {
      id: `deletecollection/${what}`,
      setup: [
        { method: "POST", path: "/api/v1/namespaces", body: object("v1", "Namespace", space, {}) },
        { method: "POST", path, body: object("v1", "ConfigMap", "a", { data: { a: "1" } }) },
        { method: "POST", path, body: object("v1", "ConfigMap", "b", { data: { b: "1" } }) },
      ],
      request: { method: "DELETE", path: `${path}${query}`, body },
    };
  });
}

/** The scenarios, in namespace `namespace` (deletecollection's in namespaces named after it). */
export function scenarioCases(namespace: string): ScenarioCase[] {
  return [
    ...serviceScenarios(namespace),
    ...immutableScenarios(namespace),
    ...deleteCollectionScenarios(namespace),
  ];
}

/** Runs a scenario: its setup must succeed; the request's outcome is answered. */
export async function runScenario(api: Api, c: ScenarioCase): Promise<Outcome> {
  for (const step of c.setup) {
    const r = await api.call(step.method, step.path, step.body, { contentType: step.contentType });
    if (r.status >= 300) throw new Error(`${c.id}: setup ${step.method} ${step.path}: ${r.status} ${r.text}`);
  }
  const q = c.request;
  const r = await api.call(q.method, q.path, q.body, { contentType: q.contentType });
  return outcomeOf(r.status, r.body);
}

/** The namespaces a run of the scenarios made besides `namespace`, for cleanup. */
export function scenarioNamespaces(namespace: string): string[] {
  return deleteCollectionScenarios(namespace)
    .map((c) => c.setup[0].body as Json)
    .map((b) => (b.metadata as Json).name as string);
}
