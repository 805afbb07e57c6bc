// What kube fills in that nobody wrote: SetDefaults_* of pod specs (probes, volume modes), the
// admission plugins (Priority, DefaultTolerationSeconds, TaintNodesByCondition), and the
// registry strategies (a Job's generated selector, a DaemonSet's template generation, a
// NodePort's allocation). Operators compare what they wrote with what they read back, so each
// of these decides whether a controller sees a change that is not there.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { unsetCreationTimestamp } from "../support/creation-timestamp.js";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
let minor: number;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("gen");
  minor = Number.parseInt((await api.get("/version")).body.minor, 10);
});
after(() => target.close());

const podSpec = (restartPolicy?: string) => ({
  containers: [
    {
      name: "c",
      image: "nginx:1.27",
      readinessProbe: { httpGet: { port: 80 } },
      lifecycle: { preStop: { httpGet: { port: 80 } } },
    },
  ],
  volumes: [
    { name: "host", hostPath: { path: "/tmp" } },
    { name: "secret", secret: { secretName: "s" } },
    { name: "config", configMap: { name: "c" } },
  ],
  ...(restartPolicy ? { restartPolicy } : {}),
});

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
async function create(path: string, body: object): Promise<any> {
  const r = await api.post(path, body);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

test("a Pod gets probe and volume defaults, a priority and kube's default tolerations", async () => {
  const pod = await create(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: podSpec(),
  });
  const c = pod.spec.containers[0];
  assert.deepEqual(c.readinessProbe, {
    httpGet: { path: "/", port: 80, scheme: "HTTP" },
    timeoutSeconds: 1,
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
  });
  assert.deepEqual(c.lifecycle.preStop.httpGet, { path: "/", port: 80, scheme: "HTTP" });
  assert.deepEqual(pod.spec.volumes, [
    { name: "host", hostPath: { path: "/tmp", type: "" } },
    { name: "secret", secret: { secretName: "s", defaultMode: 420 } },
    { name: "config", configMap: { name: "c", defaultMode: 420 } },
  ]);
  assert.equal(pod.spec.priority, 0);
  assert.equal(pod.spec.preemptionPolicy, "PreemptLowerPriority");
  assert.deepEqual(pod.spec.tolerations, [
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    {
      key: "node.kubernetes.io/unreachable",
      operator: "Exists",
      effect: "NoExecute",
      tolerationSeconds: 300,
    },
  ]);
  // Admission adds those after the field manager: the creator does not own them.
  const owned = JSON.stringify(pod.metadata.managedFields[0].fieldsV1);
  assert.equal(owned.includes("f:tolerations"), false);
  assert.equal(owned.includes("f:priority"), false);
});

test("a Pod's priority class is resolved, and an unknown one is refused", async () => {
  const pod = await create(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "critical" },
    spec: { ...podSpec(), priorityClassName: "system-cluster-critical" },
  });
  assert.equal(pod.spec.priority, 2000000000);
  const r = await api.post(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "unknown" },
    spec: { ...podSpec(), priorityClassName: "no-such-class" },
  });
  assert.equal(r.status, 403, r.text);
  assert.equal(
    r.body.message,
    'pods "unknown" is forbidden: no PriorityClass with name no-such-class was found',
  );
});

test("a new Node is tainted not-ready", async () => {
  const node = await create("/api/v1/nodes", {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: `node-${ns}` },
  });
  assert.deepEqual(node.spec.taints, [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
  await api.delete(`/api/v1/nodes/node-${ns}`);
});

test("a Job's selector and its pods' labels are generated from its uid", async () => {
  const job = await create(`/apis/batch/v1/namespaces/${ns}/jobs`, {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "j" },
    spec: { template: { spec: podSpec("Never") } },
  });
  const uid = job.metadata.uid;
  const labels = job.spec.template.metadata.labels;
  assert.equal(labels["controller-uid"], uid);
  assert.equal(labels["job-name"], "j");
  // 1.27 added batch.kubernetes.io/ names beside the legacy ones and selects by the new one.
  const selectorKey = minor >= 27 ? "batch.kubernetes.io/controller-uid" : "controller-uid";
  assert.deepEqual(job.spec.selector, { matchLabels: { [selectorKey]: uid } });
  if (minor >= 27) assert.equal(labels["batch.kubernetes.io/job-name"], "j");
  assert.deepEqual(job.metadata.labels, labels);
  // Generated after the field manager: nobody owns the selector.
  assert.equal(JSON.stringify(job.metadata.managedFields[0].fieldsV1).includes("f:selector"), false);
});

test("a DaemonSet's template generation goes up when its template changes, and only then", async () => {
  const path = `/apis/apps/v1/namespaces/${ns}/daemonsets`;
  const ds = await create(path, {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "ds" },
    spec: {
      selector: { matchLabels: { app: "ds" } },
      template: { metadata: { labels: { app: "ds" } }, spec: podSpec() },
    },
  });
  const generation = (o: { metadata: { annotations: Record<string, string> } }) =>
    o.metadata.annotations["deprecated.daemonset.template.generation"];
  assert.equal(generation(ds), "1");
  const labelled = await api.patch(`${path}/ds`, { metadata: { labels: { x: "y" } } });
  assert.equal(generation(labelled.body), "1");
  const changed = await api.patch(`${path}/ds`, { spec: { template: { metadata: { labels: { v: "2" } } } } });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(generation(changed.body), "2");
});

test("a NodePort Service gets a node port and the Cluster traffic policy; an update keeps the port", async () => {
  const path = `/api/v1/namespaces/${ns}/services`;
  const svc = await create(path, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "np" },
    spec: { type: "NodePort", ports: [{ port: 80 }], selector: { app: "x" } },
  });
  const nodePort = svc.spec.ports[0].nodePort;
  assert.ok(nodePort >= 30000 && nodePort <= 32767, String(nodePort));
  assert.equal(svc.spec.externalTrafficPolicy, "Cluster");
  assert.deepEqual(svc.metadata.managedFields[0].fieldsV1["f:spec"]["f:selector"], {}, "an atomic map");
  const updated = await api.put(`${path}/np`, {
    ...svc,
    spec: { ...svc.spec, ports: [{ port: 80, protocol: "TCP", targetPort: 80 }] },
  });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.body.spec.ports[0].nodePort, nodePort);
});

test("a StatefulSet's claim templates are PersistentVolumeClaims with their defaults", async () => {
  const ss = await create(`/apis/apps/v1/namespaces/${ns}/statefulsets`, {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "ss" },
    spec: {
      serviceName: "ss",
      selector: { matchLabels: { app: "ss" } },
      template: { metadata: { labels: { app: "ss" } }, spec: podSpec() },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
        },
      ],
    },
  });
  assert.deepEqual(ss.spec.volumeClaimTemplates, [
    {
      kind: "PersistentVolumeClaim",
      apiVersion: "v1",
      metadata: { name: "data", ...unsetCreationTimestamp() },
      spec: {
        accessModes: ["ReadWriteOnce"],
        resources: { requests: { storage: "1Gi" } },
        volumeMode: "Filesystem",
      },
      status: { phase: "Pending" },
    },
  ]);
  if (minor >= 27) {
    assert.deepEqual(ss.spec.persistentVolumeClaimRetentionPolicy, {
      whenDeleted: "Retain",
      whenScaled: "Retain",
    });
  }
});
