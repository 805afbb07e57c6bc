// `null` in a built-in object, as kube-apiserver 1.37 reads it: Go's decoder makes a pointer, list or
// map nil and leaves a scalar or struct at its zero value, so an optional field sent as null is as
// if not sent (then defaulted), a required scalar is its zero (which validation judges), a null in
// a list or map of strings is "", a Quantity's null is "0", and a list of structs holds a zero
// struct. Nothing is stored as null that Go would not write as null.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("nulls");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies, read by path
type Json = Record<string, any>;
let n = 0;

/** Creates `body` (a name is given) in `collection` and answers the reply and the object read back. */
async function create(collection: string, body: Json): Promise<{ r: Reply; got: Json }> {
  const metadata = { name: `n${n++}`, ...(body.metadata as Json | undefined) };
  const path = collection.replace("{ns}", ns);
  const r = await api.post(path, { ...body, metadata });
  const got = r.status === 201 ? (await api.get(`${path}/${metadata.name}`)).body : {};
  return { r, got };
}

function createdAs(r: Reply) {
  assert.equal(r.status, 201, r.text);
}

function refused(r: Reply, message: string) {
  assert.equal(r.status, 422, r.text);
  assert.match(r.body.message, new RegExp(`is invalid: ${message.replace(/[[\]().*+?{}|^$]/g, "\\$&")}$`));
}

const CM = "/api/v1/namespaces/{ns}/configmaps";
const POD = "/api/v1/namespaces/{ns}/pods";
const pod = (spec: Json, container: Json = {}) => ({
  apiVersion: "v1",
  kind: "Pod",
  spec: { containers: [{ name: "c", image: "x", ...container }], ...spec },
});

describe("null in metadata and in maps of strings", () => {
  test("optional maps and lists sent as null are not stored", async () => {
    const { r, got } = await create(CM, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { annotations: null, labels: null, finalizers: null, ownerReferences: null },
      data: null,
      binaryData: null,
      immutable: null,
    });
    createdAs(r);
    for (const o of [r.body, got]) {
      // Nothing but the name was set: no field to own, so no managedFields either.
      assert.deepEqual(Object.keys(o.metadata).sort(), [
        "creationTimestamp",
        "name",
        "namespace",
        "resourceVersion",
        "uid",
      ]);
      assert.equal("data" in o || "binaryData" in o || "immutable" in o, false, JSON.stringify(o));
    }
  });

  test("a null value in a map of strings is the empty string", async () => {
    const { r, got } = await create(CM, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { labels: { a: null }, annotations: { b: null } },
      data: { x: null },
    });
    createdAs(r);
    assert.deepEqual(
      [got.metadata.labels, got.metadata.annotations, got.data],
      [{ a: "" }, { b: "" }, { x: "" }],
    );
    const secret = await create("/api/v1/namespaces/{ns}/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      type: null,
      data: { a: null },
      stringData: { b: null },
    });
    createdAs(secret.r);
    assert.deepEqual([secret.got.type, secret.got.data], ["Opaque", { a: "", b: "" }]);
  });

  test("a null finalizer is an empty name, which validation refuses; a null owner field is unset", async () => {
    const { r } = await create(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { finalizers: [null] } });
    assert.equal(r.status, 422, r.text);
    assert.deepEqual(
      r.body.details.causes.map((c: { field: string }) => c.field),
      ["metadata.finalizers", "metadata.finalizers", "metadata.finalizers[0]"],
    );
    const owned = await create(CM, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        ownerReferences: [
          { apiVersion: "v1", kind: "X", name: "n", uid: "u", controller: null, blockOwnerDeletion: null },
        ],
      },
    });
    createdAs(owned.r);
    assert.deepEqual(owned.got.metadata.ownerReferences, [
      { apiVersion: "v1", kind: "X", name: "n", uid: "u" },
    ]);
  });

  test("a JSON patch that adds null annotations leaves none", async () => {
    const { r } = await create(CM, { apiVersion: "v1", kind: "ConfigMap", data: { x: "1" } });
    createdAs(r);
    const patched = await api.call(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/${r.body.metadata.name}`,
      JSON.stringify([{ op: "add", path: "/metadata/annotations", value: null }]),
      { contentType: "application/json-patch+json" },
    );
    assert.equal(patched.status, 200, patched.text);
    assert.equal("annotations" in patched.body.metadata, false);
  });
});

describe("null in a Pod", () => {
  test("optional fields are defaulted as if not sent; strings in lists are empty; a null limit is 0", async () => {
    const { r, got } = await create(
      POD,
      pod(
        {
          securityContext: null,
          terminationGracePeriodSeconds: null,
          hostNetwork: null,
          dnsConfig: null,
          affinity: null,
          nodeSelector: null,
          volumes: [
            { name: "e", emptyDir: null },
            { name: "c", configMap: { name: "x", items: null, defaultMode: null } },
          ],
        },
        {
          args: [null],
          env: [{ name: "A", value: null }],
          ports: null,
          command: null,
          resources: { limits: { cpu: null } },
        },
      ),
    );
    createdAs(r);
    const spec = got.spec as Json;
    const c = (spec.containers as Json[])[0]!;
    assert.deepEqual(
      [c.args, c.env, c.resources, "ports" in c, "command" in c],
      [[""], [{ name: "A" }], { limits: { cpu: "0" }, requests: { cpu: "0" } }, false, false],
    );
    assert.deepEqual(
      [spec.securityContext, spec.terminationGracePeriodSeconds, "hostNetwork" in spec, "affinity" in spec],
      [{}, 30, false, false],
    );
    // A volume naming no source is an emptyDir (SetDefaults_Volume).
    assert.deepEqual(spec.volumes, [
      { name: "e", emptyDir: {} },
      { name: "c", configMap: { name: "x", defaultMode: 420 } },
    ]);
  });

  test("a null element of a list of structs is the zero struct, which validation judges", async () => {
    refused(
      (await create(POD, pod({ tolerations: [null] }))).r,
      'spec.tolerations[0].operator: Invalid value: "": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    );
    refused(
      (await create(POD, pod({}, { env: [null] }))).r,
      "spec.containers[0].env[0].name: Required value",
    );
    refused(
      (await create(POD, pod({ containers: [null] }))).r,
      "[spec.containers[0].name: Required value, spec.containers[0].image: Required value]",
    );
  });
});

describe("null in other kinds", () => {
  test("a Service port's optional fields are defaulted; a null port is 0, and so its target", async () => {
    const svc = (ports: unknown[]) => ({
      apiVersion: "v1",
      kind: "Service",
      spec: { ports, selector: null },
    });
    const ok = await create(
      "/api/v1/namespaces/{ns}/services",
      svc([{ port: 80, targetPort: null, nodePort: null, name: null, protocol: null }]),
    );
    createdAs(ok.r);
    assert.deepEqual(ok.got.spec.ports, [{ protocol: "TCP", port: 80, targetPort: 80 }]);
    assert.equal("selector" in ok.got.spec, false);
    for (const ports of [[null], [{ port: null }]]) {
      refused(
        (await create("/api/v1/namespaces/{ns}/services", svc(ports))).r,
        "[spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive]",
      );
    }
  });

  test("a Deployment's nulls are defaulted; a selector of nulls is the empty selector", async () => {
    const template = { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } };
    const deployment = (spec: Json) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      spec: { template, ...spec },
    });
    const DEPLOY = "/apis/apps/v1/namespaces/{ns}/deployments";
    const { r, got } = await create(
      DEPLOY,
      deployment({
        selector: { matchLabels: { a: "b" } },
        replicas: null,
        paused: null,
        strategy: null,
        revisionHistoryLimit: null,
        minReadySeconds: null,
      }),
    );
    createdAs(r);
    const spec = got.spec as Json;
    assert.deepEqual(
      [spec.replicas, spec.revisionHistoryLimit, spec.strategy, "paused" in spec, "minReadySeconds" in spec],
      [
        1,
        10,
        { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
        false,
        false,
      ],
    );
    refused(
      (await create(DEPLOY, deployment({ selector: { matchLabels: null, matchExpressions: null } }))).r,
      "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
    );
  });

  test("a Role's rules without omitempty stay null; null strings in its lists are empty", async () => {
    const ROLES = "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles";
    const role = (rules: unknown) => ({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", rules });
    const none = await create(ROLES, role(null));
    createdAs(none.r);
    assert.equal(none.got.rules, null);
    const some = await create(
      ROLES,
      role([{ apiGroups: [null], resources: ["pods"], verbs: ["get", null] }]),
    );
    createdAs(some.r);
    assert.deepEqual(some.got.rules, [{ verbs: ["get", ""], apiGroups: [""], resources: ["pods"] }]);
  });

  test("a Lease's and an Event's nulls: left out, or written as Go writes them unset", async () => {
    const lease = await create("/apis/coordination.k8s.io/v1/namespaces/{ns}/leases", {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      spec: { holderIdentity: null, leaseDurationSeconds: null, acquireTime: null, renewTime: null },
    });
    createdAs(lease.r);
    assert.deepEqual(lease.got.spec, {});
    const event = await create("/api/v1/namespaces/{ns}/events", {
      apiVersion: "v1",
      kind: "Event",
      involvedObject: { kind: "Pod", name: "p", namespace: ns },
      reason: null,
      message: null,
      count: null,
      firstTimestamp: null,
      source: null,
    });
    createdAs(event.r);
    const e = event.got;
    assert.deepEqual(
      [e.source, e.firstTimestamp, "reason" in e, "message" in e, "count" in e],
      [{}, null, false, false, false],
    );
  });

  test("a Job with parallelism and no completions is a work queue: completions stay unset", async () => {
    const JOBS = "/apis/batch/v1/namespaces/{ns}/jobs";
    const job = (spec: Json) => ({
      apiVersion: "batch/v1",
      kind: "Job",
      spec: {
        template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "x" }] } },
        ...spec,
      },
    });
    const queue = await create(JOBS, job({ parallelism: 3, completions: null, backoffLimit: null }));
    createdAs(queue.r);
    const spec = queue.got.spec as Json;
    assert.deepEqual(
      [spec.parallelism, "completions" in spec, spec.backoffLimit, spec.manualSelector],
      [3, false, 6, false],
    );
    const single = await create(JOBS, job({}));
    createdAs(single.r);
    const s = single.got.spec as Json;
    assert.deepEqual([s.parallelism, s.completions, s.manualSelector], [1, 1, false]);
  });
});
