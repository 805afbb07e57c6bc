import assert from "node:assert/strict";
import { test } from "node:test";
import { resourcesFromCRD } from "../crd/resources-from-crd.js";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { builtinSchema } from "./builtin-schemas.js";
import { createOpenAPICache } from "./openapi-cache.js";
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Paths } from "./openapi-documents.js";

type Json = Record<string, unknown>;

function builtin(group: string, kind: string, plural: string, namespaced = true): ResourceDefinition {
  return {
    group,
    version: "v1",
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ["get", "list", "create", "update", "patch", "delete", "deletecollection", "watch"],
    statusSubresource: false,
    storageVersion: "v1",
    schema: builtinSchema(group, "v1", kind) as object,
    selectableFields: {},
    printerColumns: [],
  };
}

const defs = (): ResourceDefinition[] => [
  builtin("", "ConfigMap", "configmaps"),
  builtin("", "Pod", "pods"),
  builtin("", "Namespace", "namespaces", false),
  builtin("apps", "Deployment", "deployments"),
  ...resourcesFromCRD(widgetCRD()),
];

const roundTrip = (doc: unknown) => JSON.parse(JSON.stringify(doc)) as Json;

test("v2 has every kind by kube's name with its GVK, and v2-safe leaf types", () => {
  const doc = roundTrip(openAPIV2(defs()));
  assert.equal(doc.swagger, "2.0");
  const d = doc.definitions as Record<string, Json>;
  for (const [name, gvk] of [
    ["io.k8s.api.core.v1.ConfigMap", { group: "", version: "v1", kind: "ConfigMap" }],
    ["io.k8s.api.core.v1.PodList", { group: "", version: "v1", kind: "PodList" }],
    ["io.k8s.api.apps.v1.Deployment", { group: "apps", version: "v1", kind: "Deployment" }],
    ["com.example.v1.Widget", { group: "example.com", version: "v1", kind: "Widget" }],
    ["com.example.v1.WidgetList", { group: "example.com", version: "v1", kind: "WidgetList" }],
  ] as const) {
    assert.deepEqual(d[name]?.["x-kubernetes-group-version-kind"], [gvk], name);
  }
  assert.deepEqual(d["io.k8s.apimachinery.pkg.util.intstr.IntOrString"], {
    type: "string",
    format: "int-or-string",
  });
  assert.deepEqual(d["io.k8s.apimachinery.pkg.api.resource.Quantity"], { type: "string" });
  const widget = d["com.example.v1.Widget"] as { properties: Record<string, Json> };
  // kube's CRD builder: the reference with its description beside it (v3 wraps it in allOf).
  assert.deepEqual(widget.properties.metadata, {
    description:
      "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    $ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
  });
  assert.deepEqual((widget.properties.spec as Json).required, ["color"]);
  // Every reference resolves.
  for (const r of JSON.stringify(doc).match(/"#\/definitions\/[^"]+"/g) ?? []) {
    assert.ok(d[r.slice(15, -1)], r);
  }
});

test("strategic-merge keys kubectl needs for apply are on the shared definitions", () => {
  const d = roundTrip(openAPIV2(defs())).definitions as Record<string, { properties: Record<string, Json> }>;
  const podSpec = d["io.k8s.api.core.v1.PodSpec"].properties;
  assert.equal(podSpec.containers["x-kubernetes-patch-merge-key"], "name");
  assert.equal(podSpec.containers["x-kubernetes-patch-strategy"], "merge");
  assert.equal(
    d["io.k8s.api.core.v1.Container"].properties.ports["x-kubernetes-patch-merge-key"],
    "containerPort",
  );
  const meta = d["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"].properties;
  assert.equal(meta.ownerReferences["x-kubernetes-patch-merge-key"], "uid");
});

test("the v3 index lists each group-version with a hashed URL", () => {
  const { paths } = openAPIV3Paths(defs());
  assert.deepEqual(Object.keys(paths), ["api/v1", "apis/apps/v1", "apis/example.com/v1"]);
  assert.match(
    paths["apis/apps/v1"].serverRelativeURL,
    /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/,
  );
});

test("a v3 group-version document has schemas and PATCH operations that take fieldValidation", () => {
  const doc = roundTrip(openAPIV3GroupVersion(defs(), "example.com", "v1"));
  assert.equal(doc.openapi, "3.0.0");
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  assert.ok(schemas["com.example.v1.Widget"]);
  assert.ok(schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]);
  assert.equal(schemas["io.k8s.api.core.v1.Pod"], undefined, "only what this group-version needs");
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const item = paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"];
  assert.deepEqual(item.patch["x-kubernetes-group-version-kind"], {
    group: "example.com",
    version: "v1",
    kind: "Widget",
  });
  const params = item.patch.parameters as { name: string; in: string }[];
  assert.ok(params.some((p) => p.name === "fieldValidation" && p.in === "query"));
  assert.ok(paths["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status"]);
  assert.ok(!JSON.stringify(doc).includes("#/definitions/"), "v3 refs point into components");
  const core = roundTrip(openAPIV3GroupVersion(defs(), "", "v1"));
  assert.ok((core.paths as Json)["/api/v1/namespaces/{name}"]);
  assert.equal(openAPIV3GroupVersion(defs(), "nope", "v1"), undefined);
});

test("the cache builds each document once per generation", () => {
  const cache = createOpenAPICache();
  const list = defs();
  const a = cache.v2(1, list);
  assert.equal(cache.v2(1, list), a);
  const index = JSON.parse(cache.v3Index(1, list).json) as {
    paths: Record<string, { serverRelativeURL: string }>;
  };
  const apps = cache.v3GroupVersion(1, list, "apps", "v1")!;
  assert.ok(index.paths["apis/apps/v1"].serverRelativeURL.endsWith(`hash=${apps.hash}`));
  assert.equal(cache.v3GroupVersion(1, list, "apps", "v1"), apps);
  const b = cache.v2(2, list.slice(0, 2));
  assert.notEqual(b, a);
  assert.ok(!b.json.includes("com.example.v1.Widget"));
  assert.equal(cache.v3GroupVersion(2, list, "nope", "v1"), undefined);
});
