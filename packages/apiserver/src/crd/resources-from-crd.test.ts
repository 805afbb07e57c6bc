import assert from "node:assert/strict";
import { test } from "node:test";
import { resourcesFromCRD } from "./resources-from-crd.js";
import { widgetCRD } from "./widget-crd.fixture.js";

test("a CRD serves one resource per served version with its names and subresources", () => {
  const crd = widgetCRD();
  crd.spec.versions.push({
    name: "v2",
    served: true,
    storage: false,
    subresources: { scale: { specReplicasPath: ".spec.size", statusReplicasPath: ".status.size" } },
    schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } as object },
  });
  crd.spec.versions.push({ name: "v0", served: false, storage: false });
  const defs = resourcesFromCRD(crd);
  assert.deepEqual(
    defs.map((d) => d.version),
    ["v1", "v2"],
  );
  const [v1, v2] = defs;
  assert.equal(v1.kind, "Widget");
  assert.equal(v1.listKind, "WidgetList");
  assert.equal(v1.plural, "widgets");
  assert.equal(v1.singular, "widget");
  assert.deepEqual(v1.shortNames, ["wd"]);
  assert.equal(v1.namespaced, true);
  assert.equal(v1.statusSubresource, true);
  assert.equal(v1.scale, undefined);
  assert.equal(v1.storageVersion, "v1");
  assert.equal(v2.storageVersion, "v1");
  assert.equal(v1.crdName, "widgets.example.com");
  assert.deepEqual(v1.verbs, [
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
  ]);
  assert.equal(v2.statusSubresource, false);
  assert.deepEqual(v2.scale, { specReplicasPath: ".spec.size", statusReplicasPath: ".status.size" });
  assert.equal(v2.preserveUnknownFields, true);
  assert.equal(v1.preserveUnknownFields, false);
});

test("the schema gains apiVersion, kind and metadata; the CRD's own schema is not changed", () => {
  const crd = widgetCRD();
  const [def] = resourcesFromCRD(crd);
  const props = def.schema?.properties ?? {};
  assert.deepEqual(props.apiVersion, { type: "string" });
  assert.deepEqual(props.metadata, { type: "object" });
  assert.ok(props.spec);
  assert.equal(crd.spec.versions[0].schema?.openAPIV3Schema?.properties?.apiVersion, undefined);
});

test("without printer columns a version shows Age; with them, its own", () => {
  const crd = widgetCRD();
  assert.deepEqual(
    resourcesFromCRD(crd)[0].printerColumns.map((c) => [c.name, c.type, c.jsonPath]),
    [["Age", "date", ".metadata.creationTimestamp"]],
  );
  crd.spec.versions[0].additionalPrinterColumns = [
    { name: "Color", type: "string", jsonPath: ".spec.color", priority: 1 },
  ];
  assert.deepEqual(resourcesFromCRD(crd)[0].printerColumns, [
    { name: "Color", type: "string", jsonPath: ".spec.color", priority: 1 },
  ]);
});

test("selectable fields read the value at their JSONPath", () => {
  const crd = widgetCRD();
  crd.spec.versions[0].selectableFields = [{ jsonPath: ".spec.color" }, { jsonPath: ".spec.size" }];
  const [def] = resourcesFromCRD(crd);
  assert.equal(def.selectableFields["spec.color"]({ spec: { color: "red" } }), "red");
  assert.equal(def.selectableFields["spec.size"]({ spec: { size: 3 } }), "3");
  assert.equal(def.selectableFields["spec.color"]({}), "");
});

test("a cluster-scoped CRD without singular or listKind gets kube's defaults", () => {
  const crd = widgetCRD();
  crd.spec.scope = "Cluster";
  crd.spec.names = { kind: "Gadget", plural: "gadgets" };
  const [def] = resourcesFromCRD(crd);
  assert.equal(def.namespaced, false);
  assert.equal(def.singular, "gadget");
  assert.equal(def.listKind, "GadgetList");
});
