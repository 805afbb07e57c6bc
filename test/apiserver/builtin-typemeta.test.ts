// A built-in body's apiVersion and kind, as kube-apiserver 1.37's decoder reads them into the
// URL's type: a kind its scheme knows in that version is one it cannot convert, one it does not
// know is not registered, the same kind in another known version is refused for its version, and
// an apiVersion, kind or metadata of the wrong JSON type is Go's decoding error.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("typemeta");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const SCHEME = 'in scheme "pkg/runtime/scheme.go:111"';
const cases: [string, unknown, string][] = [
  [
    "configmaps",
    { apiVersion: "v1", kind: "Secret" },
    'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
  ],
  [
    "configmaps",
    { apiVersion: "apps/v1", kind: "Deployment" },
    'Deployment in version "v1" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion',
  ],
  [
    "configmaps",
    { apiVersion: "meta.k8s.io/v1", kind: "Status" },
    'Status in version "v1" cannot be handled as a ConfigMap: converting (v1.Status) to (core.ConfigMap): unknown conversion',
  ],
  [
    "configmaps",
    { apiVersion: "v1", kind: "configmap" },
    `configmap in version "v1" cannot be handled as a ConfigMap: no kind "configmap" is registered for version "v1" ${SCHEME}`,
  ],
  [
    "configmaps",
    { apiVersion: "v2", kind: "ConfigMap" },
    `ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" ${SCHEME}`,
  ],
  [
    "configmaps",
    { apiVersion: "apps/v1", kind: "ConfigMap" },
    `ConfigMap in version "v1" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "apps/v1" ${SCHEME}`,
  ],
  [
    "configmaps",
    { apiVersion: "v1", kind: "ConfigMap", metadata: "str" },
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta',
  ],
  [
    "configmaps",
    { apiVersion: 5, kind: "ConfigMap" },
    'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .apiVersion of type string ({"apiVersion":5,"kind":"Config ...)',
  ],
  [
    "deployments",
    { apiVersion: "extensions/v1beta1", kind: "Deployment" },
    "the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)",
  ],
];

test("a body of another type is refused in the decoder's words", async () => {
  for (const [resource, typeMeta, message] of cases) {
    const group = resource === "deployments" ? "/apis/apps/v1" : "/api/v1";
    // The type fields first: the decoder's message quotes the body's first 30 bytes.
    const body: Record<string, unknown> = { ...(typeMeta as object) };
    body.metadata ??= { name: "x" };
    const r = await api.call(
      "POST",
      `${group}/namespaces/${ns}/${resource}?dryRun=All`,
      JSON.stringify(body),
      {
        contentType: "application/json",
      },
    );
    assert.equal(r.status, 400, `${JSON.stringify(typeMeta)}: ${r.text}`);
    assert.equal(r.body.reason, "BadRequest");
    assert.equal(r.body.message, message, JSON.stringify(typeMeta));
  }
});

test("a missing apiVersion or kind is the URL's", async () => {
  for (const typeMeta of [{ kind: "ConfigMap" }, { apiVersion: "v1" }, { apiVersion: "", kind: "" }]) {
    const body = { metadata: { name: "x" }, ...typeMeta };
    const r = await api.call("POST", `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, JSON.stringify(body), {
      contentType: "application/json",
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual([r.body.apiVersion, r.body.kind], ["v1", "ConfigMap"]);
  }
});
