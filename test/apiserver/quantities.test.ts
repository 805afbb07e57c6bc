// A built-in object's quantities come back as kube-apiserver writes them: Go decodes them into
// resource.Quantity and encodes them from it, so "0.5" reads back "500m" and "1.5Gi" "1536Mi",
// while text Go finds canonical already ("+1", "1e0") is kept as sent.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("quantities");
});
after(() => target.close());

test("a Pod's quantities are stored and answered in Go's canonical text", async () => {
  const r = await api.post(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "q" },
    spec: {
      containers: [
        {
          name: "c",
          image: "x",
          resources: {
            limits: { cpu: "0.5", memory: "1.5Gi", "ephemeral-storage": "1000" },
            requests: { cpu: "+0.25", memory: "1024Mi", "ephemeral-storage": "1e0" },
          },
        },
      ],
      volumes: [{ name: "v", emptyDir: { sizeLimit: "2048Ki" } }],
    },
  });
  assert.equal(r.status, 201, r.text);
  const expected = {
    limits: { cpu: "500m", memory: "1536Mi", "ephemeral-storage": "1k" },
    requests: { cpu: "250m", memory: "1Gi", "ephemeral-storage": "1e0" },
  };
  assert.deepEqual(r.body.spec.containers[0].resources, expected);
  assert.equal(r.body.spec.volumes[0].emptyDir.sizeLimit, "2Mi");
  const read = (await api.get(`/api/v1/namespaces/${ns}/pods/q`)).body;
  assert.deepEqual(read.spec.containers[0].resources, expected);
});

test("a LimitRange's maps of quantities too; text that is no quantity is refused", async () => {
  const r = await api.post(`/api/v1/namespaces/${ns}/limitranges`, {
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: { name: "l" },
    spec: { limits: [{ type: "Container", max: { cpu: "2000m", memory: "0.5Gi" } }] },
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(r.body.spec.limits[0].max, { cpu: "2", memory: "512Mi" });
  const bad = await api.post(`/api/v1/namespaces/${ns}/limitranges`, {
    apiVersion: "v1",
    kind: "LimitRange",
    metadata: { name: "bad" },
    spec: { limits: [{ type: "Container", max: { cpu: "1x" } }] },
  });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.body.message, /quantities must match the regular expression/);
});
