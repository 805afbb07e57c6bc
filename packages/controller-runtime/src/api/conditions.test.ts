// Status conditions as apimachinery's meta.SetStatusCondition handles them, and conditionSchema as
// a CRD's status.conditions: the API server (embedded or kube-apiserver) stores what the helpers
// write and rejects a condition kube's schema forbids.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CustomResourceDefinition, JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { newClient } from "../client/index.js";
import { installCRDs } from "../envtest/index.js";
import { isInvalid } from "../rest/index.js";
import {
  type Condition,
  conditionSchema,
  defineKind,
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  metav1Time,
  removeStatusCondition,
  setStatusCondition,
} from "./index.js";
import type { KubeObject } from "./object.js";

const t0 = new Date("2026-01-01T00:00:00.123Z");
const t1 = new Date("2026-01-01T00:05:00Z");

test("a new condition is appended with lastTransitionTime now, in whole seconds", () => {
  const conditions: Condition[] = [];
  assert.equal(
    setStatusCondition(conditions, { type: "Ready", status: "False", reason: "Starting", message: "" }, t0),
    true,
  );
  assert.deepEqual(conditions, [
    {
      type: "Ready",
      status: "False",
      reason: "Starting",
      message: "",
      lastTransitionTime: "2026-01-01T00:00:00Z",
    },
  ]);
  assert.equal(metav1Time(t0), "2026-01-01T00:00:00Z");
});

test("lastTransitionTime moves only when the status changes; other fields are replaced", () => {
  const conditions: Condition[] = [];
  setStatusCondition(conditions, { type: "Ready", status: "False", reason: "Starting", message: "a" }, t0);
  const same = { type: "Ready", status: "False", reason: "Starting", message: "a" };
  assert.equal(setStatusCondition(conditions, same, t1), false, "nothing changed");
  assert.equal(
    setStatusCondition(conditions, { ...same, reason: "Waiting", message: "b", observedGeneration: 2 }, t1),
    true,
  );
  assert.deepEqual(conditions[0], {
    type: "Ready",
    status: "False",
    reason: "Waiting",
    message: "b",
    observedGeneration: 2,
    lastTransitionTime: "2026-01-01T00:00:00Z",
  });
  assert.equal(
    setStatusCondition(conditions, { ...same, status: "True", reason: "Up", observedGeneration: 2 }, t1),
    true,
  );
  assert.equal(conditions[0]?.lastTransitionTime, "2026-01-01T00:05:00Z");
  // A given lastTransitionTime is used when the status changes, as Go does.
  setStatusCondition(conditions, {
    type: "Ready",
    status: "Unknown",
    reason: "Lost",
    message: "",
    lastTransitionTime: "2025-12-31T23:00:00Z",
  });
  assert.equal(conditions[0]?.lastTransitionTime, "2025-12-31T23:00:00Z");
  assert.equal(conditions.length, 1);
});

test("find, is-true/false/equal and remove", () => {
  const conditions: Condition[] = [];
  setStatusCondition(conditions, { type: "Ready", status: "True", reason: "Up", message: "" });
  setStatusCondition(conditions, { type: "Degraded", status: "False", reason: "Fine", message: "" });
  const frozen = Object.freeze(conditions.map((c) => Object.freeze({ ...c })));
  assert.equal(findStatusCondition(frozen, "Ready")?.reason, "Up");
  assert.equal(findStatusCondition(undefined, "Ready"), undefined);
  assert.equal(isStatusConditionTrue(frozen, "Ready"), true);
  assert.equal(isStatusConditionFalse(frozen, "Ready"), false);
  assert.equal(isStatusConditionFalse(frozen, "Degraded"), true);
  assert.equal(isStatusConditionTrue(frozen, "Absent"), false);
  assert.equal(isStatusConditionFalse(frozen, "Absent"), false);
  assert.equal(isStatusConditionPresentAndEqual(frozen, "Degraded", "False"), true);
  assert.equal(removeStatusCondition(conditions, "Ready"), true);
  assert.equal(removeStatusCondition(conditions, "Ready"), false);
  assert.deepEqual(
    conditions.map((c) => c.type),
    ["Degraded"],
  );
});

interface Gadget extends KubeObject {
  status?: { conditions?: Condition[] };
}
const Gadget = defineKind<Gadget>({ group: "conditions.example.com", version: "v1", kind: "Gadget" });

const crd: CustomResourceDefinition = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "gadgets.conditions.example.com" },
  spec: {
    group: "conditions.example.com",
    names: { kind: "Gadget", plural: "gadgets", singular: "gadget", listKind: "GadgetList" },
    scope: "Namespaced",
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              status: {
                type: "object",
                properties: {
                  // kubernetes-types spells no x-kubernetes-* fields, hence the cast.
                  conditions: {
                    type: "array",
                    items: structuredClone(conditionSchema),
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["type"],
                  } as JSONSchemaProps,
                },
              },
            },
          },
        },
      },
    ],
  },
};

const env = testEnvironment();
let client: ReturnType<typeof newClient>;

before(async () => {
  const config = await env.start();
  await installCRDs(config, [crd]);
  client = newClient(config);
});

after(async () => {
  await client.close();
  await env.stop();
});

test("conditionSchema in a CRD: the server keeps what setStatusCondition writes, rejects what kube forbids", async () => {
  const created = await client.create<Gadget>({
    apiVersion: Gadget.apiVersion,
    kind: "Gadget",
    metadata: { namespace: "default", name: `g-${Date.now()}` },
  });
  const conditions: Condition[] = [];
  setStatusCondition(conditions, {
    type: "Ready",
    status: "True",
    reason: "Up",
    message: "all good",
    observedGeneration: created.metadata?.generation ?? 1,
  });
  const updated = await client.status().update({ ...created, status: { conditions } });
  assert.deepEqual(updated.status?.conditions, conditions);
  assert.equal(isStatusConditionTrue(updated.status?.conditions, "Ready"), true);

  const bad = structuredClone(updated);
  bad.status = { conditions: [{ ...conditions[0]!, reason: "not a reason!" }] };
  await assert.rejects(client.status().update(bad), (err) => {
    assert.ok(isInvalid(err), String(err));
    assert.match(String(err), /status\.conditions\[0\]\.reason/);
    return true;
  });
});
