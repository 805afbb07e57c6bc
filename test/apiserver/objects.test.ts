// Object semantics over HTTP: create/get/update/delete, the error Status bodies kube-apiserver
// answers, generation, status subresource isolation, dryRun, field validation, managedFields.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { unsetCreationTimestamp } from "../support/creation-timestamp.js";
import { Api, configMap, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

function deployment(name: string, replicas = 1) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "c", image: "nginx:1.25" }] },
      },
    },
  };
}

describe("create and read", () => {
  test("create answers 201 with server-set metadata, get returns the same object", async () => {
    const ns = await api.namespace();
    const r = await api.post(
      `/api/v1/namespaces/${ns}/configmaps`,
      configMap("c1", { a: "b" }, { app: "x" }),
    );
    assert.equal(r.status, 201);
    assert.equal(r.body.kind, "ConfigMap");
    assert.equal(r.body.metadata.namespace, ns);
    assert.match(r.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(r.body.metadata.resourceVersion, /^\d+$/);
    assert.match(r.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(r.body.metadata.generation, undefined);
    assert.equal(r.body.metadata.managedFields[0].operation, "Update");
    const g = await api.get(`/api/v1/namespaces/${ns}/configmaps/c1`);
    assert.equal(g.status, 200);
    assert.deepEqual(g.body, r.body);
  });

  test("a create answers the kind's zero status, whatever status the client sent", async () => {
    const ns = await api.namespace();
    const template = {
      metadata: { labels: { app: "z" } },
      spec: { containers: [{ name: "c", image: "x" }] },
    };
    const selector = { matchLabels: { app: "z" } };
    const cases: [path: string, body: object, status: unknown][] = [
      ["/api/v1/namespaces/NS/services", { spec: { ports: [{ port: 80 }] } }, { loadBalancer: {} }],
      [
        "/api/v1/namespaces/NS/persistentvolumeclaims",
        { spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
        { phase: "Pending" },
      ],
      ["/apis/apps/v1/namespaces/NS/deployments", { spec: { selector, template } }, {}],
      ["/apis/apps/v1/namespaces/NS/replicasets", { spec: { selector, template } }, { replicas: 0 }],
      [
        "/apis/apps/v1/namespaces/NS/statefulsets",
        { spec: { serviceName: "s", selector, template } },
        { replicas: 0, availableReplicas: 0 },
      ],
      [
        "/apis/apps/v1/namespaces/NS/daemonsets",
        { spec: { selector, template } },
        { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
      ],
      [
        "/apis/batch/v1/namespaces/NS/jobs",
        { spec: { template: { spec: { ...template.spec, restartPolicy: "Never" } } } },
        {},
      ],
    ];
    for (const [path, body, status] of cases) {
      const r = await api.post(path.replace("NS", ns), {
        metadata: { name: "zero" },
        ...body,
        status: { observedGeneration: 7 },
      });
      assert.equal(r.status, 201, `${path}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body.status, status, path);
    }
  });

  test("generateName gets a random suffix", async () => {
    const ns = await api.namespace();
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { generateName: "gen-" },
      data: {},
    });
    assert.equal(r.status, 201);
    assert.match(r.body.metadata.name, /^gen-[a-z0-9]{5}$/);
  });

  test("409 AlreadyExists", async () => {
    const ns = await api.namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1"));
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1"));
    assert.equal(r.status, 409);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "c1" already exists',
      reason: "AlreadyExists",
      details: { name: "c1", kind: "configmaps" },
      code: 409,
    });
  });

  test("404 for a missing object and a missing namespace", async () => {
    const ns = await api.namespace();
    const r = await api.get(`/api/v1/namespaces/${ns}/configmaps/nope`);
    assert.equal(r.status, 404);
    assert.equal(r.body.reason, "NotFound");
    assert.equal(r.body.message, 'configmaps "nope" not found');
    assert.deepEqual(r.body.details, { name: "nope", kind: "configmaps" });
    const m = await api.post("/api/v1/namespaces/does-not-exist-x/configmaps", configMap("c1"));
    assert.equal(m.status, 404);
    assert.equal(m.body.message, 'namespaces "does-not-exist-x" not found');
    const d = await api.get(`/apis/apps/v1/namespaces/${ns}/deployments/nope`);
    assert.equal(d.body.message, 'deployments.apps "nope" not found');
    assert.deepEqual(d.body.details, { name: "nope", group: "apps", kind: "deployments" });
  });

  test("422 Invalid with causes for a bad name and a missing name", async () => {
    const ns = await api.namespace();
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("Bad_Name"));
    assert.equal(r.status, 422);
    assert.equal(r.body.reason, "Invalid");
    assert.equal(r.body.details.kind, "ConfigMap");
    assert.equal(r.body.details.name, "Bad_Name");
    assert.equal(r.body.details.causes[0].reason, "FieldValueInvalid");
    assert.equal(r.body.details.causes[0].field, "metadata.name");
    assert.match(
      r.body.message,
      /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/,
    );
    const missing = await api.post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: {} });
    assert.equal(missing.status, 422);
    assert.equal(missing.body.details.causes[0].reason, "FieldValueRequired");
    assert.equal(missing.body.details.causes[0].field, "metadata.name");
  });

  test("400 for malformed JSON, 415 for an unknown content type, 405 for a bad method", async () => {
    const ns = await api.namespace();
    const bad = await api.post(`/api/v1/namespaces/${ns}/configmaps`, "{not json");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.reason, "BadRequest");
    assert.match(bad.body.message, /^the object provided is unrecognized \(must be of type ConfigMap\)/);
    const text = await api.post(`/api/v1/namespaces/${ns}/configmaps`, "hello", {
      contentType: "text/plain",
    });
    assert.equal(text.status, 415);
    assert.equal(text.body.reason, "UnsupportedMediaType");
    const put = await api.put(`/api/v1/namespaces/${ns}/configmaps`, {});
    assert.equal(put.status, 405);
    assert.equal(put.body.reason, "MethodNotAllowed");
  });

  test("413 for a body over the limit", async () => {
    const ns = await api.namespace();
    const big = configMap("big", { x: "a".repeat(4 * 1024 * 1024) });
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, big);
    assert.equal(r.status, 413);
    assert.equal(r.body.kind, "Status");
  });

  test("404 Status for an unknown resource", async () => {
    const r = await api.get("/api/v1/namespaces/default/widgets");
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "the server could not find the requested resource",
      reason: "NotFound",
      details: {},
      code: 404,
    });
  });
});

describe("encoding", () => {
  test("JSON answers end with a newline, as Go's json.Encoder writes them", async () => {
    const ok = await api.get("/api/v1/namespaces/default");
    assert.equal(ok.status, 200);
    assert.ok(ok.text.endsWith("}\n"), JSON.stringify(ok.text.slice(-5)));
    const missing = await api.get("/api/v1/namespaces/default/configmaps/absent");
    assert.equal(missing.status, 404);
    assert.ok(missing.text.endsWith("}\n"), JSON.stringify(missing.text.slice(-5)));
  });

  test("pretty=true (and curl, Wget or a browser unless pretty says otherwise) indents as Go's MarshalIndent", async () => {
    const compact = await api.get("/api/v1/namespaces/default");
    const pretty = await api.get("/api/v1/namespaces/default?pretty=true");
    assert.equal(pretty.status, 200);
    assert.equal(pretty.text, JSON.stringify(compact.body, null, 2), "two spaces, no newline at the end");
    const curl = await api.get("/api/v1/namespaces/default", { userAgent: "curl/8.5.0" });
    assert.equal(curl.text, pretty.text);
    const notForCurl = await api.get("/api/v1/namespaces/default?pretty=0", { userAgent: "curl/8.5.0" });
    assert.equal(notForCurl.text, compact.text);
    // Go's ParseBool: "yes" is not a boolean, so not pretty.
    assert.equal((await api.get("/api/v1/namespaces/default?pretty=yes")).text, compact.text);
    const status = await api.get("/api/v1/namespaces/default/configmaps/absent?pretty=1");
    assert.equal(status.status, 404);
    assert.match(status.text, /^\{\n {2}"kind": "Status",\n {2}"apiVersion": "v1",\n {2}"metadata": \{\},\n/);
  });
});

describe("authentication", () => {
  test("an invalid token gets 401, no credentials get 403 except on health endpoints", async () => {
    const bad = await api.get("/api/v1/namespaces", { token: "not-a-token" });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.reason, "Unauthorized");
    const anon = await api.get("/api/v1/namespaces/default/configmaps", { token: null });
    assert.equal(anon.status, 403);
    assert.equal(anon.body.reason, "Forbidden");
    assert.match(anon.body.message, /User "system:anonymous" cannot list resource "configmaps"/);
    for (const path of ["/healthz", "/livez", "/readyz", "/version"]) {
      const r = await api.get(path, { token: null });
      assert.equal(r.status, 200, path);
    }
  });
});

describe("update", () => {
  test("a stale resourceVersion gets 409 Conflict; a current one succeeds", async () => {
    const ns = await api.namespace();
    const c = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1", { a: "1" }));
    const rv = c.body.metadata.resourceVersion;
    const ok = await api.put(`/api/v1/namespaces/${ns}/configmaps/c1`, { ...c.body, data: { a: "2" } });
    assert.equal(ok.status, 200);
    assert.notEqual(ok.body.metadata.resourceVersion, rv);
    const stale = await api.put(`/api/v1/namespaces/${ns}/configmaps/c1`, { ...c.body, data: { a: "3" } });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, "Conflict");
    assert.equal(
      stale.body.message,
      'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  test("namespace mismatch is a 400", async () => {
    const ns = await api.namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1"));
    const r = await api.put(`/api/v1/namespaces/${ns}/configmaps/c1`, {
      ...configMap("c1"),
      metadata: { name: "c1", namespace: "other" },
    });
    assert.equal(r.status, 400);
    assert.equal(
      r.body.message,
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  });

  test("an update that changes nothing keeps the resourceVersion", async () => {
    const ns = await api.namespace();
    const c = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1", { a: "1" }));
    const same = await api.put(`/api/v1/namespaces/${ns}/configmaps/c1`, c.body);
    assert.equal(same.status, 200);
    assert.equal(same.body.metadata.resourceVersion, c.body.metadata.resourceVersion);
  });

  test("an update that leaves out what the server defaults changes nothing, generation included", async () => {
    const ns = await api.namespace();
    const sent = deployment("d-defaults");
    const created = await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, sent);
    assert.equal(created.status, 201);
    // The same undefaulted spec again (no strategy, no template creationTimestamp, ...).
    const again = await api.put(`/apis/apps/v1/namespaces/${ns}/deployments/d-defaults`, {
      ...sent,
      metadata: { ...sent.metadata, resourceVersion: created.body.metadata.resourceVersion },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.metadata.generation, 1);
    assert.equal(again.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    assert.deepEqual(again.body.spec.template.metadata, {
      ...unsetCreationTimestamp(),
      labels: { app: "d-defaults" },
    });
  });

  test("generation starts at 1 and moves only with spec changes", async () => {
    const ns = await api.namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const c = await api.post(base, deployment("d1"));
    assert.equal(c.status, 201, c.text);
    assert.equal(c.body.metadata.generation, 1);
    const labelled = await api.patch(`${base}/d1`, { metadata: { labels: { x: "y" } } });
    assert.equal(labelled.body.metadata.generation, 1);
    const scaled = await api.patch(`${base}/d1`, { spec: { replicas: 3 } });
    assert.equal(scaled.body.metadata.generation, 2);
  });

  test("status goes only through /status; the main endpoint ignores it", async () => {
    const ns = await api.namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const c = await api.post(base, { ...deployment("d1"), status: { replicas: 5 } });
    assert.equal(c.body.status?.replicas, undefined);
    const main = await api.patch(`${base}/d1`, { status: { replicas: 7 } });
    assert.equal(main.status, 200);
    assert.equal(main.body.status?.replicas, undefined);
    const st = await api.patch(`${base}/d1/status`, { status: { replicas: 7 }, spec: { replicas: 9 } });
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 7);
    assert.equal(st.body.spec.replicas, 1);
    assert.equal(st.body.metadata.generation, 1);
  });

  test("dryRun=All validates and answers without storing", async () => {
    const ns = await api.namespace();
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap("dry"));
    assert.equal(r.status, 201);
    assert.equal(r.body.metadata.name, "dry");
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/dry`)).status, 404);
    const bad = await api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, configMap("Bad_Name"));
    assert.equal(bad.status, 422);
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("real", { a: "1" }));
    const upd = await api.patch(`/api/v1/namespaces/${ns}/configmaps/real?dryRun=All`, { data: { a: "2" } });
    assert.equal(upd.body.data.a, "2");
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/real`)).body.data.a, "1");
    const del = await api.delete(`/api/v1/namespaces/${ns}/configmaps/real?dryRun=All`);
    assert.equal(del.status, 200);
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/configmaps/real`)).status, 200);
  });

  test("fieldValidation: Strict rejects unknown fields, Warn answers a Warning header", async () => {
    const ns = await api.namespace();
    const strict = await api.post(`/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, {
      ...configMap("s1"),
      junk: 1,
    });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /strict decoding error: unknown field "junk"/);
    const warn = await api.post(`/api/v1/namespaces/${ns}/configmaps?fieldValidation=Warn`, {
      ...configMap("s2"),
      junk: 1,
    });
    assert.equal(warn.status, 201);
    assert.match(warn.headers.get("warning") ?? "", /unknown field \\"junk\\"/);
    assert.equal(warn.body.junk, undefined);
  });

  test("managedFields name the manager of each write", async () => {
    const ns = await api.namespace();
    await api.post(`/api/v1/namespaces/${ns}/configmaps?fieldManager=first`, configMap("m1", { a: "1" }));
    const r = await api.call(
      "PATCH",
      `/api/v1/namespaces/${ns}/configmaps/m1?fieldManager=second`,
      { data: { b: "2" } },
      {
        contentType: "application/merge-patch+json",
      },
    );
    const managers = r.body.metadata.managedFields.map((m: { manager: string }) => m.manager);
    assert.deepEqual(managers, ["first", "second"]);
    assert.deepEqual(r.body.metadata.managedFields[1].fieldsV1, { "f:data": { "f:b": {} } });
  });
});

describe("patch", () => {
  test("json patch, merge patch and strategic merge patch", async () => {
    const ns = await api.namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    await api.post(base, deployment("p1"));
    const jp = await api.patch(
      `${base}/p1`,
      [{ op: "replace", path: "/spec/replicas", value: 2 }],
      "application/json-patch+json",
    );
    assert.equal(jp.status, 200, jp.text);
    assert.equal(jp.body.spec.replicas, 2);
    const smp = await api.patch(
      `${base}/p1`,
      { spec: { template: { spec: { containers: [{ name: "side", image: "busybox" }] } } } },
      "application/strategic-merge-patch+json",
    );
    assert.equal(smp.status, 200, smp.text);
    assert.deepEqual(smp.body.spec.template.spec.containers.map((c: { name: string }) => c.name).sort(), [
      "c",
      "side",
    ]);
    const mp = await api.patch(`${base}/p1`, {
      spec: { template: { spec: { containers: [{ name: "only", image: "x" }] } } },
    });
    assert.deepEqual(
      mp.body.spec.template.spec.containers.map((c: { name: string }) => c.name),
      ["only"],
    );
    const failed = await api.patch(
      `${base}/p1`,
      [{ op: "test", path: "/spec/replicas", value: 99 }],
      "application/json-patch+json",
    );
    assert.equal(failed.status, 422);
    const missing = await api.patch(`${base}/nope`, { spec: {} });
    assert.equal(missing.status, 404);
    const badType = await api.patch(`${base}/p1`, {}, "application/xml");
    assert.equal(badType.status, 415);
  });
});
