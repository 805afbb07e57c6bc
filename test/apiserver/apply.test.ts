// Server-side apply over HTTP: create-on-apply, field ownership between managers, conflicts and
// force, removal of fields no longer applied, list merges driven by the schema, the status
// subresource, managedFields after apply and after update, and `kubectl apply --server-side`.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import type { Environment } from "controller-runtime/envtest";
import { Api, startTarget, type Target } from "./harness.js";
import { versionDifference } from "../support/environment.js";
import { testEnvironment } from "../support/environment.js";

const APPLY = "application/apply-patch+yaml";
const GROUP = "apply.example.com";
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

let target: Target;
let api: Api;

const gizmoCRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `gizmos.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: "Gizmo", plural: "gizmos", singular: "gizmo", listKind: "GizmoList" },
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
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer" },
                  color: { type: "string" },
                  tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
                  ports: {
                    type: "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["name", "protocol"],
                    items: {
                      type: "object",
                      required: ["name"],
                      properties: {
                        name: { type: "string" },
                        protocol: { type: "string", default: "TCP" },
                        port: { type: "integer" },
                      },
                    },
                  },
                },
              },
              status: {
                type: "object",
                properties: { ready: { type: "boolean" }, phase: { type: "string" } },
              },
            },
          },
        },
      },
    ],
  },
};

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const r = await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", gizmoCRD);
  assert.ok(r.status === 201 || r.status === 409, `creating the CRD: ${r.status} ${r.text}`);
  // Up to 30 s: kube-apiserver serves a new CRD after its controllers run, later when loaded.
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await api.get(`/apis/${GROUP}/v1/gizmos`)).status === 200) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("the Gizmo CRD was not served in 30 s");
});
after(() => target.close());

function apply(path: string, body: unknown, manager: string | undefined, force = false) {
  const q = new URLSearchParams();
  if (manager !== undefined) q.set("fieldManager", manager);
  if (force) q.set("force", "true");
  return api.call("PATCH", `${path}?${q}`, body, { contentType: APPLY });
}

const cm = (name: string, data: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...extra },
  data,
});

const gizmo = (name: string, spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: `${GROUP}/v1`,
  kind: "Gizmo",
  metadata: { name },
  spec,
  ...(status ? { status } : {}),
});

/** managedFields without times, by manager (kube orders entries by time, then manager). */
// biome-ignore lint/suspicious/noExplicitAny: managedFields entries as JSON
const entries = (obj: any) =>
  (obj.metadata.managedFields ?? [])
    // biome-ignore lint/suspicious/noExplicitAny: managedFields entries as JSON
    .map((e: any) => ({
      manager: e.manager,
      operation: e.operation,
      ...(e.subresource ? { subresource: e.subresource } : {}),
      fieldsV1: e.fieldsV1,
    }))
    .sort(
      (a: { manager: string; subresource?: string }, b: { manager: string; subresource?: string }) =>
        a.manager.localeCompare(b.manager) || (a.subresource ?? "").localeCompare(b.subresource ?? ""),
    );

describe("create-on-apply and request checks", () => {
  test("apply creates a missing object in the URL's namespace and owns what it set", async () => {
    const ns = await api.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/configmaps/c1`;
    const yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c1\n  labels: {app: x}\ndata:\n  a: '1'\n";
    const r = await apply(path, yaml, "m1");
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.metadata.namespace, ns);
    assert.deepEqual(r.body.data, { a: "1" });
    const [entry] = r.body.metadata.managedFields;
    assert.match(entry.time, TIME);
    assert.deepEqual(entry, {
      manager: "m1",
      operation: "Apply",
      apiVersion: "v1",
      time: entry.time,
      fieldsType: "FieldsV1",
      fieldsV1: { "f:data": { "f:a": {} }, "f:metadata": { "f:labels": { "f:app": {} } } },
    });
    const again = await apply(path, yaml, "m1");
    assert.equal(again.status, 200);
    assert.equal(
      again.body.metadata.resourceVersion,
      r.body.metadata.resourceVersion,
      "a repeated apply is a no-op",
    );
  });

  test("fieldManager is required", async () => {
    const ns = await api.namespace("apply");
    const r = await apply(`/api/v1/namespaces/${ns}/configmaps/c1`, cm("c1", {}), undefined);
    assert.equal(r.status, 422);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
      reason: "Invalid",
      details: {
        group: "meta.k8s.io",
        kind: "PatchOptions",
        causes: [
          {
            reason: "FieldValueRequired",
            message: "Required value: is required for apply patch",
            field: "fieldManager",
          },
        ],
      },
      code: 422,
    });
  });

  test("the configuration must match the endpoint's kind and the URL's name, and carry no managedFields", async () => {
    const ns = await api.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/configmaps/c1`;
    const wrongKind = await apply(path, { ...cm("c1", {}), kind: "Secret" }, "m");
    if (
      versionDifference(
        "kube 1.26 answers 500 'failed to merge config: expected objects of the same type' with Go pointers",
      )
    ) {
      assert.equal(wrongKind.status, 400);
      assert.equal(wrongKind.body.message, "invalid object type: /v1, Kind=Secret");
    } else {
      assert.equal(wrongKind.status, 500);
    }
    const wrongName = await apply(path, cm("other", {}), "m");
    assert.equal(wrongName.status, 400);
    assert.equal(
      wrongName.body.message,
      "the name of the object (other) does not match the name on the URL (c1)",
    );
    const managed = await apply(path, cm("c1", {}, { managedFields: [{ manager: "x" }] }), "m");
    assert.equal(managed.status, 400);
    assert.equal(managed.body.message, "metadata.managedFields must be nil");
  });

  test("a configuration that does not fit the schema is answered as kube does (500, no reason)", async () => {
    const ns = await api.namespace("apply");
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/d1`;
    const dep = (spec: Record<string, unknown>) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d1" },
      spec,
    });
    const noKey = await apply(path, dep({ template: { spec: { containers: [{ image: "nginx" }] } } }), "m");
    // kube 1.26 and 1.37 let the element without its key through to validation (1.37's OpenAPI
    // defaults a Go-always-written key to its zero: name=""); 1.32 refused the patch with a 500.
    assert.equal(noKey.status, 422, noKey.text);
    assert.ok(
      noKey.body.details.causes.some(
        (c: { field: string; reason: string }) =>
          c.field === "spec.template.spec.containers[0].name" && c.reason === "FieldValueRequired",
      ),
      noKey.text,
    );
    const dup = await apply(
      path,
      dep({ template: { spec: { containers: [{ name: "a" }, { name: "a" }] } } }),
      "m",
    );
    assert.equal(dup.status, 500);
    assert.match(
      dup.body.message,
      /\.spec\.template\.spec\.containers: duplicate entries for key \[name="a"\]$/,
    );
    const undeclared = await apply(path, dep({ topologyKeys: ["x"] }), "m");
    assert.equal(undeclared.status, 500);
    assert.match(undeclared.body.message, /: \.spec\.topologyKeys: field not declared in schema$/);
  });

  test("a custom resource's field its schema lacks is the typed conversion's 500, whatever fieldValidation says", async () => {
    const ns = await api.namespace("apply");
    const cases: [Record<string, unknown>, string][] = [
      [{ unknownField: "u" }, ".unknownField"],
      [{ spec: { color: "red", bar: "b" } }, ".spec.bar"],
      [{ metadata: { unknownMeta: "u" } }, ".metadata.unknownMeta"],
      [
        { spec: { ports: [{ name: "p", protocol: "TCP", junk: 1 }] } },
        '.spec.ports[name="p",protocol="TCP"].junk',
      ],
    ];
    let n = 0;
    for (const [extra, path] of cases) {
      for (const mode of ["Strict", "Warn", "Ignore"]) {
        const name = `undeclared-${++n}`;
        const config = gizmo(name, {}) as Record<string, unknown>;
        for (const [k, v] of Object.entries(extra)) {
          config[k] = k === "metadata" ? { name, ...(v as object) } : v;
        }
        const r = await api.call(
          "PATCH",
          `/apis/${GROUP}/v1/namespaces/${ns}/gizmos/${name}?fieldManager=m&fieldValidation=${mode}`,
          config,
          { contentType: APPLY },
        );
        assert.equal(r.status, 500, `${mode} ${path}: ${r.text}`);
        assert.equal(
          r.body.message,
          `failed to create typed patch object (/${name}; ${GROUP}/v1, Kind=Gizmo): ${path}: field not declared in schema`,
        );
        assert.equal((await api.get(`/apis/${GROUP}/v1/namespaces/${ns}/gizmos/${name}`)).status, 404);
      }
    }
  });

  test("force is only for apply patches", async () => {
    const ns = await api.namespace("apply");
    await apply(`/api/v1/namespaces/${ns}/configmaps/c1`, cm("c1", { a: "1" }), "m");
    const r = await api.call(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/c1?force=true`,
      { data: { b: "2" } },
      {
        contentType: "application/merge-patch+json",
      },
    );
    assert.equal(r.status, 422);
    assert.equal(
      r.body.message,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });
});

describe("ownership between managers", () => {
  test("two managers own different fields of one object", async () => {
    const ns = await api.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/configmaps/c1`;
    assert.equal((await apply(path, cm("c1", { a: "1" }), "m1")).status, 201);
    const r = await apply(path, cm("c1", { b: "2" }), "m2");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, { a: "1", b: "2" });
    assert.deepEqual(entries(r.body), [
      { manager: "m1", operation: "Apply", fieldsV1: { "f:data": { "f:a": {} } } },
      { manager: "m2", operation: "Apply", fieldsV1: { "f:data": { "f:b": {} } } },
    ]);
  });

  test("changing another applier's field is a conflict; applying its value shares it", async () => {
    const ns = await api.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/configmaps/c1`;
    await apply(path, cm("c1", { a: "1", b: "1" }), "m1");
    const r = await apply(path, cm("c1", { a: "2", b: "2" }), "m2");
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'Apply failed with 2 conflicts: conflicts with "m1":\n- .data.a\n- .data.b',
      reason: "Conflict",
      details: {
        causes: [
          { reason: "FieldManagerConflict", message: 'conflict with "m1"', field: ".data.a" },
          { reason: "FieldManagerConflict", message: 'conflict with "m1"', field: ".data.b" },
        ],
      },
      code: 409,
    });
    const shared = await apply(path, cm("c1", { a: "1" }), "m2");
    assert.equal(shared.status, 200);
    assert.deepEqual(entries(shared.body), [
      { manager: "m1", operation: "Apply", fieldsV1: { "f:data": { "f:a": {}, "f:b": {} } } },
      { manager: "m2", operation: "Apply", fieldsV1: { "f:data": { "f:a": {} } } },
    ]);
  });

  test("force takes the conflicting fields from their owner", async () => {
    const ns = await api.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/configmaps/c1`;
    await apply(path, cm("c1", { a: "1", b: "1" }), "m1");
    const r = await apply(path, cm("c1", { a: "2" }), "m2", true);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, { a: "2", b: "1" });
    assert.deepEqual(entries(r.body), [
      { manager: "m1", operation: "Apply", fieldsV1: { "f:data": { "f:b": {} } } },
      { manager: "m2", operation: "Apply", fieldsV1: { "f:data": { "f:a": {} } } },
    ]);
  });

  test("a field an applier stops applying is removed unless another manager owns it", async () => {
    const ns = await api.namespace("apply");
    const path = `/api/v1/namespaces/${ns}/configmaps/c1`;
    await apply(path, cm("c1", { a: "1", b: "1", c: "1" }, { labels: { x: "1" } }), "m1");
    await apply(path, cm("c1", { c: "1" }), "m2");
    const r = await apply(path, cm("c1", { a: "1" }), "m1");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data, { a: "1", c: "1" });
    assert.equal(r.body.metadata.labels, undefined);
    assert.deepEqual(entries(r.body), [
      { manager: "m1", operation: "Apply", fieldsV1: { "f:data": { "f:a": {} } } },
      { manager: "m2", operation: "Apply", fieldsV1: { "f:data": { "f:c": {} } } },
    ]);
  });

  test("updates record Update ownership of what they change, and take fields from appliers", async () => {
    const ns = await api.namespace("apply");
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    const created = await api.post(
      `${base}?fieldManager=creator`,
      cm("c1", { a: "1" }, { labels: { app: "x" } }),
    );
    assert.equal(created.status, 201);
    assert.deepEqual(entries(created.body), [
      {
        manager: "creator",
        operation: "Update",
        fieldsV1: {
          "f:data": { ".": {}, "f:a": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
        },
      },
    ]);
    const conflict = await apply(`${base}/c1`, cm("c1", { a: "2" }), "m1");
    assert.equal(conflict.status, 409);
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "creator" using v1: .data.a',
    );
    assert.deepEqual(conflict.body.details.causes, [
      { reason: "FieldManagerConflict", message: 'conflict with "creator" using v1', field: ".data.a" },
    ]);
    await apply(`${base}/c1`, cm("c1", { b: "1" }), "m1");
    const patched = await api.call(
      "PATCH",
      `${base}/c1?fieldManager=editor`,
      { data: { b: "2" } },
      {
        contentType: "application/merge-patch+json",
      },
    );
    assert.equal(patched.status, 200);
    assert.deepEqual(entries(patched.body), [
      {
        manager: "creator",
        operation: "Update",
        fieldsV1: {
          "f:data": { ".": {}, "f:a": {} },
          "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
        },
      },
      { manager: "editor", operation: "Update", fieldsV1: { "f:data": { "f:b": {} } } },
    ]);
    const again = await apply(`${base}/c1`, cm("c1", { b: "1" }), "m1");
    assert.equal(again.status, 409);
    assert.equal(
      again.body.message,
      'Apply failed with 1 conflict: conflict with "editor" using v1: .data.b',
    );
    const put = await api.put(`${base}/c1?fieldManager=putter`, { ...patched.body, data: { a: "1" } });
    assert.equal(put.status, 200);
    assert.deepEqual(
      entries(put.body).map((e: { manager: string }) => e.manager),
      ["creator"],
      "removing b removed it from its owner, and an update that only removes owns nothing",
    );
  });
});

describe("schema-driven merges", () => {
  test("a map list merges items by its keys (one defaulted) and a set merges values", async () => {
    const ns = await api.namespace("apply");
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/gizmos/g1`;
    const first = await apply(
      path,
      gizmo("g1", { tags: ["a", "b"], ports: [{ name: "http", port: 80 }] }),
      "m1",
    );
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(entries(first.body), [
      {
        manager: "m1",
        operation: "Apply",
        fieldsV1: {
          "f:spec": {
            "f:ports": { 'k:{"name":"http","protocol":"TCP"}': { ".": {}, "f:name": {}, "f:port": {} } },
            "f:tags": { 'v:"a"': {}, 'v:"b"': {} },
          },
        },
      },
    ]);
    const second = await apply(
      path,
      gizmo("g1", { tags: ["c"], ports: [{ name: "http", protocol: "UDP", port: 53 }] }),
      "m2",
    );
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(second.body.spec.tags, ["a", "b", "c"]);
    assert.deepEqual(second.body.spec.ports, [
      { name: "http", port: 80, protocol: "TCP" },
      { name: "http", port: 53, protocol: "UDP" },
    ]);
    const conflict = await apply(path, gizmo("g1", { ports: [{ name: "http", port: 8080 }] }), "m2");
    assert.equal(conflict.status, 409);
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "m1": .spec.ports[name="http",protocol="TCP"].port',
    );
    const dropped = await apply(path, gizmo("g1", { tags: ["b"] }), "m1");
    assert.deepEqual(dropped.body.spec.tags, ["b", "c"]);
    assert.deepEqual(dropped.body.spec.ports, [{ name: "http", port: 53, protocol: "UDP" }]);
  });

  test("Deployment containers merge by name across managers", async () => {
    const ns = await api.namespace("apply");
    const path = `/apis/apps/v1/namespaces/${ns}/deployments/d1`;
    const dep = (containers: { name: string; image: string }[], extra: Record<string, unknown> = {}) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d1" },
      spec: {
        ...extra,
        template: {
          ...(extra.selector ? { metadata: { labels: { app: "d1" } } } : {}),
          spec: { containers },
        },
      },
    });
    const first = await apply(
      path,
      dep([{ name: "app", image: "nginx" }], { selector: { matchLabels: { app: "d1" } } }),
      "m1",
    );
    assert.equal(first.status, 201, first.text);
    const second = await apply(path, dep([{ name: "sidecar", image: "envoy" }]), "m2");
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(
      second.body.spec.template.spec.containers.map((c: { name: string; image: string }) => [
        c.name,
        c.image,
      ]),
      [
        ["app", "nginx"],
        ["sidecar", "envoy"],
      ],
    );
    const m2 = second.body.metadata.managedFields.find((e: { manager: string }) => e.manager === "m2");
    assert.deepEqual(m2.fieldsV1, {
      "f:spec": {
        "f:template": {
          "f:spec": { "f:containers": { 'k:{"name":"sidecar"}': { ".": {}, "f:image": {}, "f:name": {} } } },
        },
      },
    });
    const m1 = first.body.metadata.managedFields[0];
    assert.deepEqual(m1.fieldsV1["f:spec"]["f:selector"], {}, "a label selector is owned whole");
    const conflict = await apply(path, dep([{ name: "app", image: "httpd" }]), "m2");
    assert.equal(conflict.status, 409);
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "m1": .spec.template.spec.containers[name="app"].image',
    );
  });
});

describe("status", () => {
  test("status applies through /status only, as its own entry; the main endpoint ignores it", async () => {
    const ns = await api.namespace("apply");
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/gizmos/g1`;
    const created = await apply(path, gizmo("g1", { size: 1 }, { ready: true }), "m1");
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.status, undefined);
    assert.deepEqual(entries(created.body), [
      { manager: "m1", operation: "Apply", fieldsV1: { "f:spec": { "f:size": {} } } },
    ]);
    const st = await apply(`${path}/status`, gizmo("g1", { size: 9 }, { ready: true }), "m1");
    assert.equal(st.status, 200, st.text);
    assert.deepEqual(st.body.status, { ready: true });
    assert.equal(st.body.spec.size, 1, "/status leaves spec alone");
    assert.deepEqual(entries(st.body), [
      { manager: "m1", operation: "Apply", fieldsV1: { "f:spec": { "f:size": {} } } },
      {
        manager: "m1",
        operation: "Apply",
        subresource: "status",
        fieldsV1: { "f:status": { "f:ready": {} } },
      },
    ]);
    const conflict = await apply(`${path}/status`, gizmo("g1", {}, { ready: false }), "m2");
    assert.equal(conflict.status, 409);
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "m1" with subresource "status": .status.ready',
    );
    const main = await apply(path, gizmo("g1", { size: 1 }, { ready: false }), "m1");
    assert.equal(main.status, 200);
    assert.deepEqual(main.body.status, { ready: true });
    const missing = await apply(
      `/apis/${GROUP}/v1/namespaces/${ns}/gizmos/nope/status`,
      gizmo("nope", {}, {}),
      "m1",
    );
    assert.equal(missing.status, 404);
  });
});

describe("kubectl apply --server-side", () => {
  let env: Environment;
  let dir: string;
  let kubeconfig: string;
  let available = true;
  const run = promisify(execFile);
  const kubectl = async (...args: string[]) =>
    (
      await run("kubectl", ["--cache-dir", join(dir, "cache"), ...args], {
        env: { ...process.env, KUBECONFIG: kubeconfig },
      })
    ).stdout;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kubectl-ssa-"));
    env = testEnvironment();
    await env.start();
    kubeconfig = env.started.kubeconfigPath;
    try {
      await run("kubectl", ["version", "--client"]);
    } catch {
      available = false;
    }
  });
  after(async () => {
    await env.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("creates, removes a field no longer applied, conflicts, and forces", async (t) => {
    if (!available) return t.skip("kubectl not on PATH");
    const file = join(dir, "cm.yaml");
    const manifest = (data: Record<string, string>) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: default}\ndata: ${JSON.stringify(data)}\n`;
    await writeFile(file, manifest({ a: "1", b: "2" }));
    assert.match(await kubectl("apply", "--server-side", "-f", file), /configmap\/ssa serverside-applied/);
    await writeFile(file, manifest({ a: "1" }));
    assert.match(await kubectl("apply", "--server-side", "-f", file), /serverside-applied/);
    const cmJson = JSON.parse(
      await kubectl("get", "configmap", "ssa", "-o", "json", "--show-managed-fields"),
    );
    assert.deepEqual(cmJson.data, { a: "1" });
    assert.equal(cmJson.metadata.managedFields[0].manager, "kubectl");
    assert.equal(cmJson.metadata.managedFields[0].operation, "Apply");

    await writeFile(file, manifest({ a: "changed" }));
    await assert.rejects(
      kubectl("apply", "--server-side", "--field-manager=other", "-f", file),
      (e: { stderr?: string }) =>
        /Apply failed with 1 conflict: conflict with "kubectl": \.data\.a/.test(e.stderr ?? ""),
    );
    assert.match(
      await kubectl("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", file),
      /serverside-applied/,
    );
    const forced = JSON.parse(
      await kubectl("get", "configmap", "ssa", "-o", "json", "--show-managed-fields"),
    );
    assert.equal(forced.data.a, "changed");
    const owners = forced.metadata.managedFields.map((e: { manager: string }) => e.manager);
    assert.deepEqual(owners, ["other"], "kubectl lost its only field to the forced apply");
  });

  test("moves an object from client-side apply without conflicts on the fields it last applied", async (t) => {
    if (!available) return t.skip("kubectl not on PATH");
    const file = join(dir, "csa.yaml");
    const manifest = (data: Record<string, string>) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: csa, namespace: default}\ndata: ${JSON.stringify(data)}\n`;
    await writeFile(file, manifest({ a: "1" }));
    assert.match(await kubectl("apply", "--validate=false", "-f", file), /created/);
    await writeFile(file, manifest({ a: "2" }));
    assert.match(await kubectl("apply", "--server-side", "-f", file), /serverside-applied/);
    const cmJson = JSON.parse(await kubectl("get", "configmap", "csa", "-o", "json"));
    assert.deepEqual(cmJson.data, { a: "2" });
    const last = JSON.parse(cmJson.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]);
    assert.deepEqual(last.data, { a: "2" }, "the annotation follows the server-side apply");
  });
});
