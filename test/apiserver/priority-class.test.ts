// PriorityClasses as kube-apiserver 1.37.2 checks them: the value and preemptionPolicy never
// change (ValidatePriorityClassUpdate), a user's value stays at most one billion, "system-"
// names are the system's, and only one class is the global default (the Priority admission),
// which a Pod naming no class then gets.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const run = Date.now().toString(36);
const classes = "/apis/scheduling.k8s.io/v1/priorityclasses";
const MERGE = "application/merge-patch+json";
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("priority");
});
after(async () => {
  for (const name of created) await api.delete(`${classes}/${name}`);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

async function create(name: string, extra: Record<string, unknown> = {}) {
  const r = await api.post(classes, {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name },
    value: 1000,
    ...extra,
  });
  if (r.status === 201) created.push(name);
  return r;
}

/** The status, reason and causes (`reason:field: message`) of an answer. */
function answer(r: { status: number; body: unknown }): string[] {
  const b = r.body as {
    reason?: string;
    details?: { causes?: { reason: string; field: string; message: string }[] };
  };
  return [
    `${r.status} ${b.reason ?? ""}`.trim(),
    ...(b.details?.causes ?? []).map((c) => `${c.reason}:${c.field}: ${c.message}`),
  ];
}

test("an update may change the description but not the value or the preemption policy", async () => {
  const name = `pc-${run}`;
  assert.equal((await create(name)).status, 201);
  assert.deepEqual(answer(await api.patch(`${classes}/${name}`, { value: 2000 }, MERGE)), [
    "422 Invalid",
    "FieldValueForbidden:value: Forbidden: may not be changed in an update.",
  ]);
  assert.deepEqual(answer(await api.patch(`${classes}/${name}`, { preemptionPolicy: "Never" }, MERGE)), [
    "422 Invalid",
    'FieldValueInvalid:preemptionPolicy: Invalid value: "Never": field is immutable',
  ]);
  assert.deepEqual(answer(await api.patch(`${classes}/${name}`, { description: "d" }, MERGE)), ["200"]);
});

test("a user's class stays at most one billion, with a policy kube knows, and no system- name", async () => {
  assert.deepEqual(answer(await create(`high-${run}`, { value: 1_000_000_001 })), [
    "422 Invalid",
    "FieldValueForbidden:value: Forbidden: maximum allowed value of a user defined priority is 1000000000",
  ]);
  assert.deepEqual(answer(await create(`edge-${run}`, { value: 1_000_000_000 })), ["201"]);
  assert.deepEqual(answer(await create(`system-${run}`)), [
    "422 Invalid",
    `FieldValueForbidden:metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-${run} is not a known system priority class`,
  ]);
  assert.deepEqual(answer(await create(`policy-${run}`, { preemptionPolicy: "Sometimes" })), [
    "422 Invalid",
    'FieldValueNotSupported:preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
  ]);
});

test("one global default at most, given to Pods that name no class", async () => {
  const first = `def1-${run}`;
  assert.equal((await create(first, { globalDefault: true, value: 7 })).status, 201);
  try {
    const second = await create(`def2-${run}`, { globalDefault: true });
    assert.equal(second.status, 403);
    assert.equal(second.body.reason, "Forbidden");
    assert.equal(
      second.body.message,
      `priorityclasses.scheduling.k8s.io "def2-${run}" is forbidden: PriorityClass ${first} is already marked as default. Only one default can exist`,
    );
    const third = `def3-${run}`;
    assert.equal((await create(third)).status, 201);
    assert.equal((await api.patch(`${classes}/${third}`, { globalDefault: true }, MERGE)).status, 403);
    // The default itself stays writable.
    assert.equal((await api.patch(`${classes}/${first}`, { description: "the default" }, MERGE)).status, 200);
    const pod = await api.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    assert.equal(pod.status, 201, pod.text);
    assert.equal(pod.body.spec.priorityClassName, first);
    assert.equal(pod.body.spec.priority, 7);
  } finally {
    // Other tests' Pods on a shared cluster must not get this default.
    await api.delete(`${classes}/${first}`);
  }
});

test("a Pod's priority is its class's, not one it states", async () => {
  const pod = (spec: Record<string, unknown>) =>
    api.post(`/api/v1/namespaces/${ns}/pods?dryRun=All`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p" },
      spec: { containers: [{ name: "c", image: "nginx" }], ...spec },
    });
  const wrong = await pod({ priorityClassName: "system-node-critical", priority: 5 });
  assert.equal(wrong.status, 403);
  assert.equal(
    wrong.body.message,
    'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 2000001000 from the given PriorityClass name',
  );
  const policy = await pod({ priorityClassName: "system-node-critical", preemptionPolicy: "Never" });
  assert.equal(policy.status, 403);
  assert.equal(
    policy.body.message,
    'pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name',
  );
  const same = await pod({ priorityClassName: "system-node-critical", priority: 2000001000 });
  assert.equal(same.status, 201, same.text);
  assert.equal(same.body.spec.priority, 2000001000);
});
