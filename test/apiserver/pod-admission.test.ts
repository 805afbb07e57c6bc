// What kube-apiserver does to a Pod it creates: its QoS class (qos.GetPodQOS) from its containers'
// cpu and memory requests and limits, limits also counting as requests when the requests do not
// name them (SetDefaults_Pod); the RuntimeClass it names checked and applied (RuntimeClass
// admission); the namespace's LimitRanges' defaults and bounds (LimitRanger admission).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("qos");
});
after(() => target.close());

const pod = (name: string, spec: object) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "x" }], ...spec },
});

async function created(name: string, resources: object) {
  const r = await api.post(
    `/api/v1/namespaces/${ns}/pods`,
    pod(name, { containers: [{ name: "c", image: "x", resources }] }),
  );
  assert.equal(r.status, 201, r.text);
  return r.body;
}

test("a Pod's QoS class: BestEffort, Guaranteed (limits alone count as requests), Burstable", async () => {
  assert.equal((await created("none", {})).status.qosClass, "BestEffort");
  const limited = await created("limits", { limits: { cpu: "100m", memory: "200Mi" } });
  assert.equal(limited.status.qosClass, "Guaranteed");
  assert.deepEqual(limited.spec.containers[0].resources.requests, { cpu: "100m", memory: "200Mi" });
  const equal = await created("equal", {
    requests: { cpu: "0.1", memory: "200Mi" },
    limits: { cpu: "100m", memory: "200Mi" },
  });
  assert.equal(equal.status.qosClass, "Guaranteed");
  const less = await created("less", { requests: { cpu: "50m" }, limits: { cpu: "100m", memory: "200Mi" } });
  assert.equal(less.status.qosClass, "Burstable");
  assert.equal((await created("cpu-only", { limits: { cpu: "1" } })).status.qosClass, "Burstable");
});

test("a Pod naming a RuntimeClass: refused when there is none; given its overhead and scheduling", async () => {
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const rcName = `rc-${Date.now().toString(36)}`;
  const missing = await api.post(pods, pod("no-class", { runtimeClassName: rcName }));
  assert.equal(missing.status, 403, missing.text);
  assert.equal(missing.body.reason, "Forbidden");
  assert.equal(
    missing.body.message,
    `pods "no-class" is forbidden: pod rejected: RuntimeClass "${rcName}" not found`,
  );
  const rc = await api.post("/apis/node.k8s.io/v1/runtimeclasses", {
    apiVersion: "node.k8s.io/v1",
    kind: "RuntimeClass",
    metadata: { name: rcName },
    handler: "runc",
    overhead: { podFixed: { cpu: "10m", memory: "1Mi" } },
    scheduling: {
      nodeSelector: { sandbox: "yes" },
      tolerations: [{ key: "sandbox", operator: "Exists", effect: "NoSchedule" }],
    },
  });
  assert.equal(rc.status, 201, rc.text);
  try {
    const placed = await api.post(pods, pod("with-class", { runtimeClassName: rcName }));
    assert.equal(placed.status, 201, placed.text);
    assert.deepEqual(placed.body.spec.overhead, { cpu: "10m", memory: "1Mi" });
    assert.deepEqual(placed.body.spec.nodeSelector, { sandbox: "yes" });
    assert.ok(
      placed.body.spec.tolerations.some((t: { key?: string }) => t.key === "sandbox"),
      JSON.stringify(placed.body.spec.tolerations),
    );
  } finally {
    await api.delete(`/apis/node.k8s.io/v1/runtimeclasses/${rcName}`);
  }
});

test("a namespace's LimitRange: its defaults fill what containers leave out (and count for the QoS class); its bounds refuse a Pod", async () => {
  const lrNs = await api.namespace("lr");
  const pods = `/api/v1/namespaces/${lrNs}/pods`;
  const lr = await api.post(`/api/v1/namespaces/${lrNs}/limitranges`, {
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: { name: "bounds" },
    spec: {
      limits: [
        {
          type: "Container",
          min: { cpu: "50m", memory: "50Mi" },
          max: { cpu: "500m", memory: "500Mi" },
          default: { cpu: "300m", memory: "300Mi" },
          defaultRequest: { cpu: "100m", memory: "100Mi" },
        },
      ],
    },
  });
  assert.equal(lr.status, 201, lr.text);
  const plain = await api.post(pods, pod("plain", {}));
  assert.equal(plain.status, 201, plain.text);
  assert.deepEqual(plain.body.spec.containers[0].resources, {
    limits: { cpu: "300m", memory: "300Mi" },
    requests: { cpu: "100m", memory: "100Mi" },
  });
  assert.equal(plain.body.status.qosClass, "Burstable");
  const partial = await api.post(
    pods,
    pod("partial", { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "200m" } } }] }),
  );
  assert.equal(partial.status, 201, partial.text);
  assert.deepEqual(partial.body.spec.containers[0].resources.requests, { cpu: "200m", memory: "100Mi" });
  const small = await api.post(
    pods,
    pod("small", { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "10m" } } }] }),
  );
  assert.equal(small.status, 403, small.text);
  assert.equal(small.body.reason, "Forbidden");
  assert.match(
    small.body.message,
    /^pods "small" is forbidden: minimum cpu usage per Container is 50m, but request is 10m/,
  );
  const big = await api.post(
    pods,
    pod("big", { containers: [{ name: "c", image: "x", resources: { limits: { cpu: "2" } } }] }),
  );
  assert.equal(big.status, 403, big.text);
  assert.match(big.body.message, /maximum cpu usage per Container is 500m, but limit is 2/);
});
