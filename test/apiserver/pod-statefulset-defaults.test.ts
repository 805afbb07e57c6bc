// Two of kube-apiserver 1.37.2's rules the validation table's fixtures do not reach: a Pod's
// activeDeadlineSeconds is between 1 and 2147483647 (validatePodSpec), and a StatefulSet's
// RollingUpdate strategy is defaulted to partition 0 and, with MaxUnavailableStatefulSet (on in
// 1.37), maxUnavailable 1 (SetDefaults_StatefulSet), however much of the strategy was sent.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pod-sts");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const pod = (activeDeadlineSeconds: number) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p" },
  spec: { activeDeadlineSeconds, containers: [{ name: "c", image: "i" }] },
});

const statefulSet = (updateStrategy?: Record<string, unknown>) => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "s" },
  spec: {
    serviceName: "s",
    selector: { matchLabels: { a: "b" } },
    template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } },
    ...(updateStrategy ? { updateStrategy } : {}),
  },
});

describe("edges of Pods and StatefulSets", () => {
  test("a Pod's activeDeadlineSeconds is between 1 and 2147483647", async () => {
    for (const ok of [1, 2147483647]) {
      const r = await api.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, pod(ok));
      assert.equal(r.status, 201, r.text);
    }
    for (const bad of [0, -1, 2147483648]) {
      const r = await api.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, pod(bad));
      assert.equal(r.status, 422, r.text);
      assert.equal(
        (r.body as { message: string }).message,
        `Pod "p" is invalid: spec.activeDeadlineSeconds: Invalid value: ${bad}: must be between 1 and 2147483647, inclusive`,
      );
    }
  });

  test("a StatefulSet's rolling update is defaulted to partition 0 and maxUnavailable 1", async () => {
    const cases: [Record<string, unknown> | undefined, unknown][] = [
      [undefined, { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } }],
      [{}, { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } }],
      [{ type: "RollingUpdate" }, { type: "RollingUpdate" }],
      [
        { rollingUpdate: { partition: 2 } },
        { type: "RollingUpdate", rollingUpdate: { partition: 2, maxUnavailable: 1 } },
      ],
      [{ type: "OnDelete" }, { type: "OnDelete" }],
    ];
    for (const [sent, stored] of cases) {
      const r = await api.post(`/apis/apps/v1/namespaces/${ns}/statefulsets?dryRun=All`, statefulSet(sent));
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(
        (r.body as { spec: { updateStrategy: unknown } }).spec.updateStrategy,
        stored,
        JSON.stringify(sent),
      );
    }
  });
});
