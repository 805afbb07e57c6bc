// Requests an attacker with a valid login would craft: paths that try to reach another scope,
// names that are not path segments, query values Go cannot parse. Each answer is kube-apiserver's
// (checked against 1.26), and nothing outside the request's scope changes.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, configMap, startTarget, type Target } from "./harness.js";
import { needs, versionDifference } from "../support/environment.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("hostile");
  for (const name of ["canary-a", "canary-b"]) {
    const r = await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(name, { k: "v" }));
    assert.equal(r.status, 201, r.text);
  }
  const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "canary" }, stringData: { k: "v" } };
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/secrets`, secret)).status, 201);
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

async function canariesIntact(): Promise<void> {
  const cms = await api.get(`/api/v1/namespaces/${ns}/configmaps`);
  const names = cms.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
  assert.ok(names.includes("canary-a") && names.includes("canary-b"), `configmaps left: ${names}`);
  assert.equal((await api.get(`/api/v1/namespaces/${ns}/secrets/canary`)).status, 200);
}

function assertStatus(
  r: { status: number; body: { kind?: string; message?: string; reason?: string } },
  code: number,
  message: string,
  reason?: string,
) {
  assert.equal(r.status, code, JSON.stringify(r.body));
  assert.equal(r.body?.kind, "Status");
  assert.equal(r.body.message, message);
  assert.equal(r.body.reason, reason);
}

test("a namespace of dots is never another scope: a DELETE of its collection is refused as etcd refuses the key", async () => {
  for (const path of ["/api/v1/namespaces/%2e%2e/secrets", "/api/v1/namespaces/../secrets"]) {
    assertStatus(await api.raw("DELETE", path), 500, 'invalid key: "/secrets/.."');
  }
  assertStatus(
    await api.raw("GET", "/api/v1/namespaces/%2E/configmaps"),
    500,
    'invalid key: "/configmaps/."',
  );
  assertStatus(
    await api.raw("GET", "/api/v1/namespaces/../services"),
    500,
    'invalid key: "/services/specs/.."',
  );
  assertStatus(
    await api.raw("PUT", "/api/v1/namespaces/../configmaps/x", configMap("x")),
    500,
    'invalid key: "/configmaps/../x"',
  );
  assertStatus(await api.raw("DELETE", "/api/v1/namespaces/./pods/x"), 500, 'invalid key: "/pods/./x"');
  const create = await api.raw("POST", "/api/v1/namespaces/%2e%2e/configmaps", configMap("x"));
  assertStatus(
    create,
    500,
    `Internal error occurred: invalid resource name "..": [may not be '..']`,
    "InternalError",
  );
  await canariesIntact();
});

test("dot-segments inside a path are not resolved: the path names no resource", async () => {
  const paths = [
    ["DELETE", `/api/v1/namespaces/${ns}/secrets/x/../../configmaps`],
    ["GET", `/api/v1/namespaces/${ns}/secrets/x/../../configmaps`],
    ["GET", `/api/v1/namespaces/${ns}/./configmaps`],
    ["GET", "/api//v1"],
  ];
  for (const [method, path] of paths) {
    assertStatus(
      await api.raw(method, path),
      404,
      "the server could not find the requested resource",
      "NotFound",
    );
  }
  await canariesIntact();
});

test("a name that is not a path segment is a 400 for every verb", async () => {
  for (const [method, name, why] of [
    ["GET", "%2e%2e", "may not be '..'"],
    ["GET", ".", "may not be '.'"],
    ["DELETE", "..", "may not be '..'"],
    ["PATCH", "..", "may not be '..'"],
    ["GET", "a%25b", "may not contain '%'"],
  ]) {
    const body = method === "PATCH" ? {} : undefined;
    const r = await api.raw(method, `/api/v1/namespaces/${ns}/configmaps/${name}`, body, {
      contentType: "application/merge-patch+json",
    });
    const decoded = decodeURIComponent(name);
    assertStatus(r, 400, `Name parameter invalid: ${JSON.stringify(decoded)}: ${why}`, "BadRequest");
  }
  assertStatus(
    await api.raw("GET", "/api/v1/namespaces/.."),
    400,
    `Name parameter invalid: "..": may not be '..'`,
    "BadRequest",
  );
  assertStatus(
    await api.raw("GET", `/api/v1/namespaces/${ns}/pods/%2e%2e/status`),
    400,
    `Name parameter invalid: "..": may not be '..'`,
    "BadRequest",
  );
  await canariesIntact();
});

// kube 1.37's watch cache answers a watch in namespace ".." with every namespace's objects; the
// embedded server never resolves a path into another scope.
test(
  "a watch in a namespace of dots sees nothing of other namespaces",
  needs("embedded-behaviour"),
  async () => {
    // raw() reads the whole stream, which the server ends after timeoutSeconds.
    const watch = api.raw("GET", "/api/v1/watch/namespaces/../configmaps?timeoutSeconds=2");
    assert.equal(
      (await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("seen-by-none"))).status,
      201,
    );
    const r = await watch;
    assert.equal(r.status, 200);
    assert.equal(r.text, "");
  },
);

test("an invalid escape in the path is refused before any handler, as Go's server does", async () => {
  for (const path of ["/api/v1/namespaces/%zz", "/api/v1/namespaces/default/configmaps/%"]) {
    const r = await api.raw("GET", path);
    assert.equal(r.status, 400);
    assert.equal(r.text, "400 Bad Request");
  }
});

test("?watch on a named path answers the object, not a watch", async () => {
  const r = await api.raw("GET", `/api/v1/namespaces/${ns}/configmaps/absent?watch=true`);
  assertStatus(r, 404, 'configmaps "absent" not found', "NotFound");
  assert.equal(
    (await api.raw("GET", `/api/v1/namespaces/${ns}/configmaps/canary-a?watch=1`)).body.kind,
    "ConfigMap",
  );
});

test("health paths never lead anonymous callers elsewhere", async () => {
  for (const path of ["/healthz/../api/v1/secrets", "/readyz/%2e%2e/api/v1/secrets"]) {
    const r = await api.raw("GET", path, undefined, { token: null });
    assert.notEqual(r.status, 200, `${path}: ${r.text.slice(0, 200)}`);
    assert.ok(!r.text.includes("SecretList"), r.text.slice(0, 200));
  }
});

test("an unparsable timeoutSeconds or limit is a 400 with strconv's words", async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  for (const [query, message] of [
    ["watch=1&timeoutSeconds=x", 'strconv.ParseInt: parsing "x": invalid syntax'],
    ["watch=1&timeoutSeconds=1e400", 'strconv.ParseInt: parsing "1e400": invalid syntax'],
    [
      "watch=1&timeoutSeconds=99999999999999999999",
      'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    ],
    ["timeoutSeconds=", 'strconv.ParseInt: parsing "": invalid syntax'],
    ["limit=x", 'strconv.ParseInt: parsing "x": invalid syntax'],
  ]) {
    assertStatus(await api.raw("GET", `${base}?${query}`), 400, message, "BadRequest");
  }
  // A negative timeout ends the watch at once.
  const started = Date.now();
  const r = await api.raw("GET", `${base}?watch=1&timeoutSeconds=-1`);
  assert.equal(r.status, 200);
  assert.ok(Date.now() - started < 5_000);
});

test("an unparsable resourceVersion is refused with strconv's words, as kube's storage answers it", async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const words = (v: string, why: string) =>
    `resourceVersion: Invalid value: "${v}": strconv.ParseUint: parsing "${v}": ${why}`;
  // A list is checked first by kube 1.37's watch cache: a 400. A get or a watch reaches the storage.
  const listed = versionDifference("kube 1.26 answers a list's unparsable resourceVersion with a 500 too");
  const list = (v: string, why: string): [number, string, string | undefined] =>
    listed
      ? [400, `invalid resource version: ${words(v, why)}`, "BadRequest"]
      : [500, words(v, why), undefined];
  assertStatus(await api.raw("GET", `${base}?resourceVersion=x`), ...list("x", "invalid syntax"));
  for (const path of [`${base}?watch=1&resourceVersion=x`, `${base}/canary-a?resourceVersion=x`]) {
    assertStatus(await api.raw("GET", path), 500, words("x", "invalid syntax"));
  }
  const huge = "99999999999999999999";
  assertStatus(await api.raw("GET", `${base}?resourceVersion=${huge}`), ...list(huge, "value out of range"));
});

test("a DELETE of a collection never spans namespaces", async () => {
  assertStatus(
    await api.raw("DELETE", "/api/v1/configmaps"),
    405,
    "the server does not allow this method on the requested resource",
    "MethodNotAllowed",
  );
  assertStatus(
    await api.raw("DELETE", "/api/v1/namespaces//configmaps"),
    400,
    "Namespace parameter required.",
    "BadRequest",
  );
  await canariesIntact();
});

test("a value of the wrong JSON type is refused as Go's decoder refuses it", async () => {
  const cases: [string, unknown, string][] = [
    [
      "/apis/apps/v1/namespaces/NS/deployments",
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "typed" }, spec: "x" },
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec',
    ],
    [
      "/apis/apps/v1/namespaces/NS/deployments",
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "typed" }, spec: { replicas: "x" } },
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      "/apis/apps/v1/namespaces/NS/deployments",
      {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "typed" },
        spec: { template: { spec: { containers: [{ name: "c", ports: [{ containerPort: "80" }] }] } } },
      },
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    ],
    [
      "/api/v1/namespaces/NS/configmaps",
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "typed", labels: 5 } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type map[string]string',
    ],
    [
      "/api/v1/namespaces/NS/configmaps",
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "typed" }, data: { a: 1 } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      "/apis/apps/v1/namespaces/NS/deployments",
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "typed" }, spec: { replicas: "3" } },
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      "/apis/apps/v1/namespaces/NS/deployments",
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "typed" }, spec: { replicas: 2.5 } },
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "a.b.c" },
        spec: "x",
      },
      'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal string into Go struct field CustomResourceDefinition.spec of type v1.CustomResourceDefinitionSpec',
    ],
  ];
  for (const [path, body, message] of cases) {
    assertStatus(await api.post(path.replace("NS", ns), body), 400, message, "BadRequest");
  }
});

test("boolean query parameters read as kube's parameter codec reads them", async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  // Anything but "0" and "false" (any case) asks for a watch: the Python client sends watch=True.
  for (const value of ["True", "", "no", "1"]) {
    const r = await api.raw("GET", `${base}?watch=${value}&timeoutSeconds=1`);
    assert.equal(r.status, 200);
    assert.ok(r.text === "" || r.text.startsWith('{"type":'), `watch=${value}: ${r.text.slice(0, 100)}`);
  }
  for (const value of ["FALSE", "0", "false"]) {
    const r = await api.raw("GET", `${base}?watch=${value}`);
    assert.equal(r.body.kind, "ConfigMapList", `watch=${value}`);
  }
  // force=yes is true for an apply.
  const apply = await api.raw(
    "PATCH",
    `${base}/applied?fieldManager=m&force=yes`,
    JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "applied" } }),
    {
      contentType: "application/apply-patch+yaml",
    },
  );
  assert.equal(apply.status, 201, apply.text);
});

test("a create carrying a resourceVersion is refused, as etcd's store refuses it", async () => {
  const body = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "with-rv", resourceVersion: "5" } };
  assertStatus(
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, body),
    500,
    "resourceVersion should not be set on objects to be created",
  );
  // A dry run never reaches the store.
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, body)).status, 201);
});
