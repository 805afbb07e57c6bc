// A Pod's QoS class, as kube-apiserver sets it when the Pod is created (qos.GetPodQOS), from its
// containers' cpu and memory requests and limits, limits also counting as requests when the
// requests do not name them (SetDefaults_Pod).
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

async function created(name: string, resources: object) {
  const r = await api.post(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: { containers: [{ name: "c", image: "x", resources }] },
  });
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
