// fieldValidation on built-in kinds at any depth, through their schemas: Strict rejects a nested
// unknown field with kube's message, Warn answers a Warning header per field, Ignore says
// nothing; in every case the unknown field is not stored (a Go decoder drops it).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

function deployment(name: string) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { junk: 1, containers: [{ name: "c", image: "nginx", bogus: true }] },
      },
    },
  };
}

describe("nested unknown fields of built-in kinds", () => {
  test("Strict: 400 naming every unknown field by its path", async () => {
    const ns = await api.namespace("fv");
    const r = await api.post(
      `/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Strict`,
      deployment("s"),
    );
    assert.equal(r.status, 400);
    assert.equal(r.body.reason, "BadRequest");
    assert.match(
      r.body.message,
      /^Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: /,
    );
    assert.match(r.body.message, /unknown field "spec\.template\.spec\.junk"/);
    assert.match(r.body.message, /unknown field "spec\.template\.spec\.containers\[0\]\.bogus"/);
  });

  test("Warn: one Warning per field, and the object is stored without them", async () => {
    const ns = await api.namespace("fv");
    const r = await api.post(
      `/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Warn`,
      deployment("w"),
    );
    assert.equal(r.status, 201);
    const warning = r.headers.get("warning") ?? "";
    assert.match(warning, /299 - "unknown field \\"spec\.template\.spec\.junk\\""/);
    assert.match(warning, /unknown field \\"spec\.template\.spec\.containers\[0\]\.bogus\\"/);
    assert.equal(r.body.spec.template.spec.junk, undefined);
    assert.equal(r.body.spec.template.spec.containers[0].bogus, undefined);
    assert.equal(r.body.spec.template.spec.containers[0].image, "nginx");
  });

  test("Ignore: no warning, unknown fields dropped; metadata's unknown fields too", async () => {
    const ns = await api.namespace("fv");
    const body = deployment("i") as ReturnType<typeof deployment> & { metadata: Record<string, unknown> };
    body.metadata.nonsense = "x";
    const r = await api.post(`/apis/apps/v1/namespaces/${ns}/deployments?fieldValidation=Ignore`, body);
    assert.equal(r.status, 201);
    assert.equal(r.headers.get("warning"), null);
    assert.equal(r.body.metadata.nonsense, undefined);
    assert.equal(r.body.spec.template.spec.junk, undefined);
  });

  test("known nested fields are kept: resources, probes, env, volumes", async () => {
    const ns = await api.namespace("fv");
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: {
        containers: [
          {
            name: "c",
            image: "nginx",
            env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }],
            resources: { limits: { cpu: "1", memory: "1Gi" } },
            readinessProbe: { httpGet: { path: "/", port: 80 } },
            volumeMounts: [{ name: "v", mountPath: "/v" }],
          },
        ],
        volumes: [{ name: "v", emptyDir: {} }],
      },
    };
    const r = await api.post(`/api/v1/namespaces/${ns}/pods?fieldValidation=Strict`, pod);
    assert.equal(r.status, 201, r.text);
    const c = r.body.spec.containers[0];
    assert.equal(c.env[0].valueFrom.fieldRef.fieldPath, "metadata.name");
    assert.equal(c.readinessProbe.httpGet.port, 80);
    assert.deepEqual(r.body.spec.volumes[0].emptyDir, {});
  });
});
