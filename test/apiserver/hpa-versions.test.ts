// HorizontalPodAutoscalers through autoscaling/v1 and autoscaling/v2, one storage: each version
// reads what the other wrote, converted as kube converts it (v1 keeps one CPU target; the other
// metrics, the current metrics, the conditions and the behavior travel in annotations).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { versionDifference } from "../support/environment.js";
import { Api, collect, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let v1: string;
let v2: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const ns = await api.namespace("hpa");
  v1 = `/apis/autoscaling/v1/namespaces/${ns}/horizontalpodautoscalers`;
  v2 = `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`;
});
after(() => target.close());

const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

describe("HorizontalPodAutoscalers in autoscaling/v1 and v2", () => {
  test("a v1 CPU target is a v2 Resource metric; without one, v2's default of 80%", async () => {
    const created = await api.post(v1, {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "cpu" },
      spec: { scaleTargetRef: ref, maxReplicas: 5, targetCPUUtilizationPercentage: 50 },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.spec, {
      scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
      minReplicas: 1,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 50,
    });
    assert.deepEqual(created.body.status, { currentReplicas: 0, desiredReplicas: 0 });
    const asV2 = (await api.get(`${v2}/cpu`)).body;
    assert.deepEqual(asV2.spec.metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 50 } },
      },
    ]);
    assert.deepEqual(asV2.status, { desiredReplicas: 0, currentMetrics: null });

    const bare = await api.post(v1, {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "bare" },
      spec: { scaleTargetRef: ref, maxReplicas: 3 },
    });
    assert.equal(bare.body.spec.targetCPUUtilizationPercentage, 80);
  });

  test("v2's other metrics, behavior, current metrics and conditions reach v1 as kube's annotations", async () => {
    const metrics = [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
      },
      {
        type: "Resource",
        resource: { name: "memory", target: { type: "AverageValue", averageValue: "100Mi" } },
      },
      {
        type: "Pods",
        pods: {
          metric: { name: "qps", selector: { matchLabels: { a: "b" } } },
          target: { type: "AverageValue", averageValue: "10" },
        },
      },
      {
        type: "Object",
        object: {
          describedObject: { kind: "Service", name: "s", apiVersion: "v1" },
          target: { type: "Value", value: "5" },
          metric: { name: "hits" },
        },
      },
      {
        type: "External",
        external: { metric: { name: "queue" }, target: { type: "AverageValue", averageValue: "3" } },
      },
    ];
    const created = await api.post(v2, {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "many", annotations: { keep: "me" } },
      spec: {
        scaleTargetRef: ref,
        minReplicas: 2,
        maxReplicas: 5,
        metrics,
        behavior: {
          scaleDown: {
            stabilizationWindowSeconds: 60,
            policies: [{ type: "Pods", value: 1, periodSeconds: 30 }],
          },
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const current = created.body;
    current.status = {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentMetrics: [
        {
          type: "Resource",
          resource: { name: "cpu", current: { averageUtilization: 40, averageValue: "200m" } },
        },
      ],
      conditions: [
        {
          type: "AbleToScale",
          status: "True",
          reason: "R",
          message: "m",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    };
    assert.equal((await api.put(`${v2}/many/status`, current)).status, 200);

    const asV1 = (await api.get(`${v1}/many`)).body;
    assert.deepEqual(asV1.spec, {
      scaleTargetRef: { kind: "Deployment", name: "web", apiVersion: "apps/v1" },
      minReplicas: 2,
      maxReplicas: 5,
      targetCPUUtilizationPercentage: 60,
    });
    assert.deepEqual(asV1.status, {
      currentReplicas: 2,
      desiredReplicas: 3,
      currentCPUUtilizationPercentage: 40,
    });
    const a = asV1.metadata.annotations;
    assert.equal(a.keep, "me");
    assert.equal(
      a["autoscaling.alpha.kubernetes.io/metrics"],
      '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}},{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10","selector":{"matchLabels":{"a":"b"}}}},{"type":"Object","object":{"target":{"kind":"Service","name":"s","apiVersion":"v1"},"metricName":"hits","targetValue":"5"}},{"type":"External","external":{"metricName":"queue","targetAverageValue":"3"}}]',
    );
    // The internal HPAScalingRules gained a Tolerance (*Quantity, no JSON tag) in kube 1.33.
    const tolerance = versionDifference("kube <1.33: the behavior annotation's rules had no Tolerance")
      ? ',"Tolerance":null'
      : "";
    assert.equal(
      a["autoscaling.alpha.kubernetes.io/behavior"],
      `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15},{"Type":"Percent","Value":100,"PeriodSeconds":15}]${tolerance}},"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":30}]${tolerance}}}`,
    );
    assert.equal(
      a["autoscaling.alpha.kubernetes.io/current-metrics"],
      '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"200m"}}]',
    );
    assert.equal(
      a["autoscaling.alpha.kubernetes.io/conditions"],
      '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"R","message":"m"}]',
    );

    // Back through v1 and to v2: nothing is lost (kube 1.26 stores v1, so its order differs).
    const updated = await api.put(`${v1}/many`, { ...asV1, spec: { ...asV1.spec, maxReplicas: 6 } });
    assert.equal(updated.status, 200, updated.text);
    const again = (await api.get(`${v2}/many`)).body;
    assert.equal(again.spec.maxReplicas, 6);
    const sorted = (m: object[]) => m.map((x) => JSON.stringify(x)).sort();
    assert.deepEqual(sorted(again.spec.metrics), sorted(metrics));
    assert.equal(again.metadata.annotations.keep, "me");
    assert.equal(again.metadata.annotations["autoscaling.alpha.kubernetes.io/metrics"], undefined);
    assert.equal(again.spec.behavior.scaleDown.stabilizationWindowSeconds, 60);
    if (
      versionDifference(
        "kube 1.26 stores HPAs in autoscaling/v1: a v2 create comes back with the CPU metric last",
      )
    ) {
      assert.deepEqual(created.body.spec.metrics, metrics);
    }
  });

  test("one list and one watch for both versions; v1's validation names v2's fields", async () => {
    const names = async (path: string) =>
      (await api.get(path)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
    assert.deepEqual(await names(v1), await names(v2));

    const rv = (await api.get(v1)).body.metadata.resourceVersion;
    const abort = new AbortController();
    const events = api.watch(`${v1}?watch=true&resourceVersion=${rv}`, abort.signal);
    await api.post(v2, {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "watched" },
      spec: { scaleTargetRef: ref, maxReplicas: 2 },
    });
    const seen = await collect(events, (s) => s.some((e) => e.object.metadata?.name === "watched"));
    abort.abort();
    const added = seen.find((e) => e.object.metadata?.name === "watched");
    assert.equal(added?.object.apiVersion, "autoscaling/v1");
    assert.equal(added?.object.spec.targetCPUUtilizationPercentage, 80);

    const bad = await api.post(v1, {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "bad" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "" }, maxReplicas: 0 },
    });
    assert.equal(bad.status, 422);
    // A scale target without a group (other than a ReplicationController) is refused by kube 1.37.
    const apiVersion = versionDifference(
      "kube <1.37 (1.26 checked): a scaleTargetRef without apiVersion was accepted",
    )
      ? ["spec.scaleTargetRef.apiVersion"]
      : [];
    assert.deepEqual(bad.body.details.causes.map((c: { field: string }) => c.field).sort(), [
      "spec.maxReplicas",
      "spec.maxReplicas",
      ...apiVersion,
      "spec.scaleTargetRef.name",
    ]);
    const noGroup = bad.body.details.causes.find((c: { field: string }) => c.field.endsWith("apiVersion"));
    if (noGroup) assert.equal(noGroup.message, 'Invalid value: "": apiVersion must specify API group');
  });
});
