import assert from "node:assert/strict";
import { test } from "node:test";
import { builtinPatchMeta } from "./builtin-meta.js";
import { PatchError } from "./errors.js";
import { applyStrategicMergePatch } from "./strategic-merge-patch.js";

const POD = builtinPatchMeta("", "v1", "Pod")!;
const DEPLOYMENT = builtinPatchMeta("apps", "v1", "Deployment")!;

function pod() {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "p",
      finalizers: ["a/x", "b/y"],
      ownerReferences: [{ uid: "u1", name: "o1", kind: "ReplicaSet", apiVersion: "apps/v1" }],
      labels: { app: "web" },
    },
    spec: {
      containers: [
        {
          name: "main",
          image: "nginx:1",
          env: [
            { name: "A", value: "1" },
            { name: "B", value: "2" },
          ],
          ports: [{ containerPort: 80, protocol: "TCP" }],
          volumeMounts: [{ name: "data", mountPath: "/data" }],
        },
        { name: "sidecar", image: "envoy:1" },
      ],
      volumes: [{ name: "data", emptyDir: {} }],
      tolerations: [{ key: "a", operator: "Exists" }],
    },
    status: {
      conditions: [
        { type: "Ready", status: "False" },
        { type: "Initialized", status: "True" },
      ],
    },
  };
}

function apply(patch: unknown, doc: unknown = pod(), meta = POD) {
  const before = JSON.stringify(doc);
  const out = applyStrategicMergePatch(doc, patch, meta) as ReturnType<typeof pod>;
  assert.equal(JSON.stringify(doc), before, "the document is not mutated");
  return out;
}

test("containers merge by name; a new container comes first, as in kube", () => {
  const out = apply({
    spec: {
      containers: [
        { name: "main", image: "nginx:2" },
        { name: "new", image: "busybox" },
      ],
    },
  });
  assert.deepEqual(
    out.spec.containers.map((c) => [c.name, c.image]),
    [
      ["main", "nginx:2"],
      ["new", "busybox"],
      ["sidecar", "envoy:1"],
    ],
  );
  assert.equal(out.spec.containers[0].env?.length, 2, "untouched fields of a merged container stay");
});

test("env merges by name, ports by containerPort, volumeMounts by mountPath", () => {
  const out = apply({
    spec: {
      containers: [
        {
          name: "main",
          env: [
            { name: "B", value: "two" },
            { name: "C", value: "3" },
            { name: "A", $patch: "delete" },
          ],
          ports: [{ containerPort: 443 }],
          volumeMounts: [{ mountPath: "/data", readOnly: true }],
        },
      ],
    },
  });
  const main = out.spec.containers[0];
  assert.deepEqual(main.env, [
    { name: "B", value: "two" },
    { name: "C", value: "3" },
  ]);
  assert.deepEqual(main.ports, [{ containerPort: 443 }, { containerPort: 80, protocol: "TCP" }]);
  assert.deepEqual(main.volumeMounts, [{ name: "data", mountPath: "/data", readOnly: true }]);
});

test("finalizers merge as a set; $deleteFromPrimitiveList removes", () => {
  assert.deepEqual(apply({ metadata: { finalizers: ["c/z", "a/x"] } }).metadata.finalizers, [
    "c/z",
    "a/x",
    "b/y",
  ]);
  assert.deepEqual(
    apply({ metadata: { "$deleteFromPrimitiveList/finalizers": ["a/x"] } }).metadata.finalizers,
    ["b/y"],
  );
  assert.deepEqual(
    apply({ metadata: { finalizers: ["c/z"], "$deleteFromPrimitiveList/finalizers": ["b/y"] } }).metadata
      .finalizers,
    ["c/z", "a/x"],
  );
});

test("ownerReferences merge by uid", () => {
  const out = apply({
    metadata: {
      ownerReferences: [
        { uid: "u2", name: "o2" },
        { uid: "u1", controller: true },
      ],
    },
  });
  assert.deepEqual(out.metadata.ownerReferences, [
    { uid: "u2", name: "o2" },
    { uid: "u1", name: "o1", kind: "ReplicaSet", apiVersion: "apps/v1", controller: true },
  ]);
});

test("status conditions merge by type", () => {
  const out = apply({ status: { conditions: [{ type: "Ready", status: "True" }] } });
  assert.deepEqual(out.status.conditions, [
    { type: "Ready", status: "True" },
    { type: "Initialized", status: "True" },
  ]);
});

test("lists without a strategy are replaced, maps merge, null deletes", () => {
  const out = apply({
    metadata: { labels: { tier: "front", app: null } },
    spec: { tolerations: [{ key: "b" }] },
  });
  assert.deepEqual(out.metadata.labels, { tier: "front" });
  assert.deepEqual(out.spec.tolerations, [{ key: "b" }]);
});

test("no metadata at all behaves as a JSON merge patch", () => {
  const patch = { spec: { containers: [{ name: "only" }] }, metadata: { labels: { x: "1" } } };
  const out = applyStrategicMergePatch(pod(), patch, undefined);
  assert.deepEqual(out.spec.containers, [{ name: "only" }]);
  assert.deepEqual(out.metadata.labels, { app: "web", x: "1" });
});

test("$patch: replace on a list replaces it, on a map replaces the map", () => {
  const out = apply({ spec: { containers: [{ name: "solo", image: "x" }, { $patch: "replace" }] } });
  assert.deepEqual(out.spec.containers, [{ name: "solo", image: "x" }]);
  const out2 = apply({ metadata: { labels: { only: "this", $patch: "replace" } } });
  assert.deepEqual(out2.metadata.labels, { only: "this" });
});

test("$patch: delete on a map empties it, on list items removes them by key", () => {
  assert.deepEqual(apply({ metadata: { labels: { $patch: "delete" } } }).metadata.labels, {});
  const out = apply({ spec: { containers: [{ name: "sidecar", $patch: "delete" }] } });
  assert.deepEqual(
    out.spec.containers.map((c) => c.name),
    ["main"],
  );
});

test("$setElementOrder orders a merged list, keyed or primitive", () => {
  const out = apply({
    spec: {
      "$setElementOrder/containers": [{ name: "sidecar" }, { name: "new" }, { name: "main" }],
      containers: [{ name: "new", image: "n" }],
    },
    metadata: { "$setElementOrder/finalizers": ["b/y", "c/z", "a/x"], finalizers: ["c/z"] },
  });
  assert.deepEqual(
    out.spec.containers.map((c) => c.name),
    ["sidecar", "new", "main"],
  );
  assert.deepEqual(out.metadata.finalizers, ["b/y", "c/z", "a/x"]);
});

test("$retainKeys clears the keys it does not list", () => {
  const deployment = {
    spec: { strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1 } }, replicas: 2 },
  };
  const out = apply(
    { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } },
    deployment,
    DEPLOYMENT,
  ) as unknown as typeof deployment;
  assert.deepEqual(out.spec, { strategy: { type: "Recreate" }, replicas: 2 });
  assert.throws(
    () => apply({ spec: { strategy: { $retainKeys: ["type"], other: 1 } } }, deployment, DEPLOYMENT),
    {
      reason: "BadRequest",
      message: "invalid patch format of retainKeys",
    },
  );
});

test("directives never leak into the result", () => {
  const out = apply({
    spec: {
      initContainers: [
        {
          name: "init",
          env: [
            { name: "X", value: "1" },
            { name: "Y", $patch: "delete" },
          ],
        },
      ],
      nodeSelector: { $patch: "replace", disk: "ssd" },
    },
  }) as unknown as { spec: Record<string, unknown> };
  assert.deepEqual(out.spec.initContainers, [{ name: "init", env: [{ name: "X", value: "1" }] }]);
  assert.deepEqual(out.spec.nodeSelector, { disk: "ssd" });
  assert.ok(!JSON.stringify(out).includes("$"));
});

test("pod templates share the PodSpec table across workload kinds", () => {
  const deployment = {
    spec: {
      template: { metadata: { finalizers: ["a"] }, spec: { containers: [{ name: "a", image: "1" }] } },
    },
  };
  const out = apply(
    { spec: { template: { spec: { containers: [{ name: "b", image: "2" }] } } } },
    deployment,
    DEPLOYMENT,
  ) as unknown as typeof deployment;
  assert.deepEqual(
    out.spec.template.spec.containers.map((c) => c.name),
    ["b", "a"],
  );
  const cron = builtinPatchMeta("batch", "v1", "CronJob")!;
  const cj = { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "a" }] } } } } } };
  const out2 = applyStrategicMergePatch(
    cj,
    { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: "b" }] } } } } } },
    cron,
  ) as typeof cj;
  assert.equal(out2.spec.jobTemplate.spec.template.spec.containers.length, 2);
  for (const [g, k] of [
    ["apps", "ReplicaSet"],
    ["apps", "StatefulSet"],
    ["apps", "DaemonSet"],
    ["batch", "Job"],
  ]) {
    const meta = builtinPatchMeta(g, "v1", k);
    assert.equal(meta?.fields?.spec?.fields?.template?.fields?.spec?.fields?.containers?.mergeKey, "name", k);
  }
  assert.equal(builtinPatchMeta("", "v1", "Service")?.fields?.spec?.fields?.ports?.mergeKey, "port");
  assert.equal(builtinPatchMeta("example.com", "v1", "Widget"), undefined);
  assert.ok(builtinPatchMeta("", "v1", "ConfigMap"));
  assert.ok(Object.isFrozen(POD));
});

test("errors carry kube's status codes", () => {
  const cases: Array<[unknown, string, number, RegExp]> = [
    [[1], "BadRequest", 400, /cannot unmarshal array/],
    [
      { spec: { containers: [{ image: "x" }] } },
      "InternalError",
      500,
      /does not contain declared merge key: name/,
    ],
    [
      { spec: { containers: [{ name: "x", $patch: "frob" }] } },
      "InternalError",
      500,
      /unknown patch type: frob/,
    ],
    [{ metadata: { labels: { $patch: "frob" } } }, "InternalError", 500, /unknown patch type/],
    [{ metadata: { finalizers: [1] } }, "InternalError", 500, /list element types are not identical/],
    // kube's mergepatch.ErrBadArgType, unclassified: a 500.
    [
      { metadata: { "$setElementOrder/finalizers": "x" } },
      "InternalError",
      500,
      /^expected a \[\]interface \{\}, but received a string$/,
    ],
    [
      { spec: { containers: [{ name: "x", $patch: "merge" }] } },
      "InternalError",
      500,
      /cannot yet be specified/,
    ],
  ];
  for (const [patch, reason, code, message] of cases) {
    assert.throws(
      () => apply(patch),
      (e: unknown) =>
        e instanceof PatchError && e.reason === reason && e.code === code && message.test(e.message),
      JSON.stringify(patch),
    );
  }
  // A deletion list that is not a list is skipped, as kube's mergeMap skips it; null applies nothing.
  assert.deepEqual(
    applyStrategicMergePatch(
      { metadata: { finalizers: ["a"] } },
      { metadata: { "$deleteFromPrimitiveList/finalizers": "a" } },
      POD,
    ),
    { metadata: { finalizers: ["a"] } },
  );
  assert.deepEqual(applyStrategicMergePatch({ a: 1 }, null, POD), { a: 1 });
  assert.throws(() => applyStrategicMergePatch({}, { metadata: { finalizers: [["a"]] } }, POD), {
    reason: "Invalid",
    code: 422,
    message: "lists of lists are not supported",
  });
});
