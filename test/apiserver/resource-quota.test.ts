// kube-apiserver's ResourceQuota admission: a create in a namespace with a quota is charged to the
// quota's status.used, and refused with 403 Forbidden ("exceeded quota: ...") when it would pass
// status.hard. Here nothing runs the quota controller, so each test writes the quota's status
// itself, as kube-controller-manager would; kube-apiserver's admission reads quotas through an
// informer, so each test first waits until a dry run is refused (admission has seen the status).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

const pod = (name: string, resources: object, extra: object = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "x", resources }], ...extra },
});

/** A quota with `hard` and the status a quota controller would give it. */
async function quotaWithStatus(
  ns: string,
  name: string,
  hard: Record<string, string>,
  used: Record<string, string>,
  spec: object = {},
) {
  const path = `/api/v1/namespaces/${ns}/resourcequotas`;
  const created = await api.post(path, {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name },
    spec: { hard, ...spec },
  });
  assert.equal(created.status, 201, created.text);
  const withStatus = await api.put(`${path}/${name}/status`, { ...created.body, status: { hard, used } });
  assert.equal(withStatus.status, 200, withStatus.text);
}

/** Waits until admission refuses `body` (a dry run), i.e. sees the quota's status. */
async function untilRefused(path: string, body: object) {
  return eventually(
    "quota admission sees the quota's status",
    async () => {
      const r = await api.post(`${path}?dryRun=All`, body);
      return r.status === 403 ? r : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

async function used(ns: string, name: string) {
  const r = await api.get(`/api/v1/namespaces/${ns}/resourcequotas/${name}`);
  assert.equal(r.status, 200, r.text);
  return r.body.status.used;
}

test("a Pod is charged to the quota; one that would pass status.hard is refused with kube's message", async () => {
  const ns = await api.namespace("quota");
  const pods = `/api/v1/namespaces/${ns}/pods`;
  await quotaWithStatus(
    ns,
    "compute",
    { pods: "2", "requests.cpu": "1", "requests.memory": "1Gi", "limits.memory": "2Gi" },
    { pods: "0", "requests.cpu": "0", "requests.memory": "0", "limits.memory": "0" },
  );
  const big = pod("big", { requests: { cpu: "2", memory: "100Mi" }, limits: { memory: "100Mi" } });
  const refused = await untilRefused(pods, big);
  assert.equal(refused.body.reason, "Forbidden");
  assert.equal(
    refused.body.message,
    'pods "big" is forbidden: exceeded quota: compute, requested: requests.cpu=2, used: requests.cpu=0, limited: requests.cpu=1',
  );
  assert.deepEqual(refused.body.details, { name: "big", kind: "pods" });
  assert.equal((await used(ns, "compute")).pods, "0", "a refused dry run charges nothing");

  const first = await api.post(
    pods,
    pod("first", { requests: { cpu: "500m", memory: "512Mi" }, limits: { memory: "1Gi" } }),
  );
  assert.equal(first.status, 201, first.text);
  assert.deepEqual(await used(ns, "compute"), {
    "limits.memory": "1Gi",
    pods: "1",
    "requests.cpu": "500m",
    "requests.memory": "512Mi",
  });

  const second = await api.post(
    pods,
    pod("second", { requests: { cpu: "600m", memory: "600Mi" }, limits: { memory: "1536Mi" } }),
  );
  assert.equal(second.status, 403, second.text);
  assert.equal(
    second.body.message,
    'pods "second" is forbidden: exceeded quota: compute, requested: limits.memory=1536Mi,requests.cpu=600m,requests.memory=600Mi, used: limits.memory=1Gi,requests.cpu=500m,requests.memory=512Mi, limited: limits.memory=2Gi,requests.cpu=1,requests.memory=1Gi',
  );

  // A container that names no cpu request cannot be charged to a quota limiting requests.cpu.
  const unnamed = await api.post(pods, pod("unnamed", { limits: { memory: "10Mi" } }));
  assert.equal(unnamed.status, 403, unnamed.text);
  assert.equal(
    unnamed.body.message,
    'pods "unnamed" is forbidden: failed quota: compute: must specify requests.cpu for: c',
  );
  assert.equal((await used(ns, "compute")).pods, "1");
});

test("object counts: a Secret over `count/secrets`, a ConfigMap over `configmaps` are refused; a dry run is checked, not charged", async () => {
  const ns = await api.namespace("quota-count");
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  // What else is in the namespace (kube-root-ca.crt, when a controller manager publishes it).
  const existing = (await api.get(cms)).body.items.length;
  await quotaWithStatus(
    ns,
    "counts",
    { configmaps: String(existing + 1), "count/secrets": "0" },
    { configmaps: String(existing), "count/secrets": "0" },
  );
  const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } };
  const refused = await untilRefused(`/api/v1/namespaces/${ns}/secrets`, secret);
  assert.equal(
    refused.body.message,
    'secrets "s" is forbidden: exceeded quota: counts, requested: count/secrets=1, used: count/secrets=0, limited: count/secrets=0',
  );
  const dry = await api.post(`${cms}?dryRun=All`, configMap("dry"));
  assert.equal(dry.status, 201, dry.text);
  assert.equal((await used(ns, "counts")).configmaps, String(existing), "a dry run charges nothing");
  assert.equal((await api.post(cms, configMap("one"))).status, 201);
  assert.equal((await used(ns, "counts")).configmaps, String(existing + 1));
  const two = await api.post(cms, configMap("two"));
  assert.equal(two.status, 403, two.text);
  assert.equal(
    two.body.message,
    `configmaps "two" is forbidden: exceeded quota: counts, requested: configmaps=1, used: configmaps=${existing + 1}, limited: configmaps=${existing + 1}`,
  );
});

test("a quota whose usage is not known yet refuses what it limits; one without status limits nothing", async () => {
  const ns = await api.namespace("quota-unknown");
  const services = `/api/v1/namespaces/${ns}/services`;
  const service = (name: string) => ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name },
    spec: { ports: [{ port: 80 }] },
  });
  // No status yet (no controller computed it): nothing is limited, nothing charged.
  const bare = await api.post(`/api/v1/namespaces/${ns}/resourcequotas`, {
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name: "bare" },
    spec: { hard: { services: "0" } },
  });
  assert.equal(bare.status, 201, bare.text);
  assert.equal((await api.post(services, service("free"))).status, 201);
  assert.equal((await api.get(`/api/v1/namespaces/${ns}/resourcequotas/bare`)).body.status.used, undefined);

  await quotaWithStatus(ns, "unknown", { services: "5", "services.nodeports": "1" }, { services: "1" });
  const refused = await untilRefused(services, service("s"));
  assert.equal(
    refused.body.message,
    'services "s" is forbidden: status unknown for quota: unknown, resources: services,services.nodeports',
  );
});

test("a NodePort Service is charged its ports to services.nodeports", async () => {
  const ns = await api.namespace("quota-svc");
  const services = `/api/v1/namespaces/${ns}/services`;
  await quotaWithStatus(
    ns,
    "svc",
    { services: "5", "services.nodeports": "1", "services.loadbalancers": "0" },
    { services: "0", "services.nodeports": "0", "services.loadbalancers": "0" },
  );
  const twoPorts = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "two" },
    spec: {
      type: "NodePort",
      ports: [
        { name: "a", port: 80 },
        { name: "b", port: 81 },
      ],
    },
  };
  const refused = await untilRefused(services, twoPorts);
  assert.equal(
    refused.body.message,
    'services "two" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1',
  );
  const plain = await api.post(services, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "plain" },
    spec: { ports: [{ port: 80 }] },
  });
  assert.equal(plain.status, 201, plain.text);
  assert.deepEqual(await used(ns, "svc"), {
    services: "1",
    "services.loadbalancers": "0",
    "services.nodeports": "0",
  });
});

test("scopes: a BestEffort quota charges only BestEffort Pods", async () => {
  const ns = await api.namespace("quota-scope");
  const pods = `/api/v1/namespaces/${ns}/pods`;
  await quotaWithStatus(ns, "besteffort", { pods: "1" }, { pods: "0" }, { scopes: ["BestEffort"] });
  await quotaWithStatus(ns, "terminating", { pods: "0" }, { pods: "0" }, { scopes: ["Terminating"] });
  const refused = await untilRefused(pods, pod("deadline", {}, { activeDeadlineSeconds: 60 }));
  assert.match(
    refused.body.message,
    /exceeded quota: terminating, requested: pods=1, used: pods=0, limited: pods=0/,
  );
  const burstable = await api.post(pods, pod("burstable", { requests: { cpu: "100m" } }));
  assert.equal(burstable.status, 201, burstable.text);
  assert.equal((await used(ns, "besteffort")).pods, "0");
  const bestEffort = await api.post(pods, pod("best", {}));
  assert.equal(bestEffort.status, 201, bestEffort.text);
  assert.equal((await used(ns, "besteffort")).pods, "1");
  const another = await api.post(pods, pod("another", {}));
  assert.equal(another.status, 403, another.text);
  assert.match(
    another.body.message,
    /exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1$/,
  );
});
