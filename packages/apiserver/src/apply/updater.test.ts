import assert from "node:assert/strict";
import { test } from "node:test";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import type { ResourceDefinition } from "../registry/index.js";
import { ApplyConflictError } from "./conflict.js";
import { applyToObject, updatedManagedFields, type WriteContext } from "./field-manager.js";
import { toFieldsV1 } from "./fields-v1.js";
import { TypeModels } from "./type-model.js";
import { toFieldSet } from "./to-field-set.js";

type Obj = Record<string, unknown>;

function widgetDef(): ResourceDefinition {
  const version = widgetCRD().spec.versions[0];
  return {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    listKind: "WidgetList",
    plural: "widgets",
    singular: "widget",
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: [],
    statusSubresource: true,
    storageVersion: "v1",
    schema: version.schema?.openAPIV3Schema,
    selectableFields: {},
    printerColumns: [],
    crdName: "widgets.example.com",
  };
}

function deploymentDef(): ResourceDefinition {
  return {
    ...widgetDef(),
    group: "apps",
    kind: "Deployment",
    plural: "deployments",
    schema: undefined,
    crdName: undefined,
  };
}

const types = new TypeModels();
const ctx = (def: ResourceDefinition, subresource = ""): WriteContext => ({
  def,
  apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
  subresource,
  time: "2026-01-01T00:00:00Z",
  types,
});

const widget = (spec: Obj, extra: Obj = {}): Obj => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w1", namespace: "ns", ...extra },
  spec,
});

test("an apply owns the leaves and set items it configures, not the maps around them", () => {
  const out = applyToObject(undefined, widget({ size: 3, tags: ["b", "a"] }), "a", false, ctx(widgetDef()));
  assert.deepEqual(out.managedFields, [
    {
      manager: "a",
      operation: "Apply",
      apiVersion: "example.com/v1",
      time: "2026-01-01T00:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: { "f:spec": { "f:size": {}, "f:tags": { 'v:"a"': {}, 'v:"b"': {} } } },
    },
  ]);
});

test("an update owns what it added, maps included, and takes changed fields from others", () => {
  const def = widgetDef();
  const created = widget({ color: "red", size: 5 });
  const mf = updatedManagedFields(undefined, created, "curl", ctx(def));
  assert.deepEqual(mf[0].fieldsV1, { "f:spec": { ".": {}, "f:color": {}, "f:size": {} } });
  const live = { ...created, metadata: { ...(created.metadata as Obj), managedFields: mf } };
  const applied = applyToObject(live, widget({ size: 7 }), "b", true, ctx(def));
  assert.deepEqual(
    applied.managedFields.map((e) => [e.manager, e.operation, e.fieldsV1]),
    [
      ["b", "Apply", { "f:spec": { "f:size": {} } }],
      ["curl", "Update", { "f:spec": { ".": {}, "f:color": {} } }],
    ],
  );
});

test("a conflicting apply fails with kube's message unless forced", () => {
  const def = widgetDef();
  const created = widget({ color: "red", size: 5 });
  const mf = updatedManagedFields(undefined, created, "curl", ctx(def));
  const live = { ...created, metadata: { ...(created.metadata as Obj), managedFields: mf } };
  assert.throws(
    () => applyToObject(live, widget({ size: 7, color: "blue" }), "b", false, ctx(def)),
    (e: unknown) =>
      e instanceof ApplyConflictError &&
      e.message ===
        'Apply failed with 2 conflicts: conflicts with "curl" using example.com/v1:\n- .spec.color\n- .spec.size',
  );
  // The same value as the owner is shared ownership, not a conflict.
  const shared = applyToObject(live, widget({ size: 5 }), "b", false, ctx(def));
  assert.equal(shared.changed, false);
  assert.equal(shared.managedFields.length, 2);
  assert.equal(shared.managedFields[0].time, undefined);
});

test("fields an applier stops applying are removed unless someone else owns them", () => {
  const def = widgetDef();
  let obj: Obj = widget({ color: "red" });
  obj = applyToObject(
    undefined,
    widget({ color: "red", size: 2, tags: ["x", "y"] }),
    "a",
    false,
    ctx(def),
  ).object;
  const first = applyToObject(
    undefined,
    widget({ color: "red", size: 2, tags: ["x", "y"] }),
    "a",
    false,
    ctx(def),
  );
  obj = {
    ...first.object,
    metadata: { ...(first.object.metadata as Obj), managedFields: first.managedFields },
  };
  const second = applyToObject(obj, widget({ color: "red", tags: ["y"] }), "a", false, ctx(def));
  assert.deepEqual(second.object.spec, { color: "red", tags: ["y"] });
  // Another applier sharing size keeps it alive.
  const shared = applyToObject(obj, widget({ size: 2 }), "b", false, ctx(def));
  const withB = {
    ...shared.object,
    metadata: { ...(shared.object.metadata as Obj), managedFields: shared.managedFields },
  };
  const third = applyToObject(withB, widget({ color: "red" }), "a", false, ctx(def));
  assert.deepEqual(third.object.spec, { color: "red", size: 2 });
});

test("status is ignored on the main resource and applied alone through /status", () => {
  const def = widgetDef();
  const main = applyToObject(
    undefined,
    { ...widget({ size: 1 }), status: { ready: true } },
    "a",
    false,
    ctx(def),
  );
  assert.deepEqual(main.managedFields[0].fieldsV1, { "f:spec": { "f:size": {} } });
  // The live object as stored: with the managedFields the first apply recorded.
  const live = {
    ...main.object,
    metadata: { ...(main.object.metadata as object), managedFields: main.managedFields },
  };
  const status = applyToObject(
    live,
    { ...widget({}), status: { ready: true } },
    "a",
    false,
    ctx(def, "status"),
  );
  assert.deepEqual(
    status.managedFields.map((e) => [e.manager, e.subresource, e.fieldsV1]),
    [
      ["a", "status", { "f:status": { "f:ready": {} } }],
      ["a", undefined, { "f:spec": { "f:size": {} } }],
    ],
  );
});

test("Deployment containers merge by name; ports by containerPort and protocol", () => {
  const t = new TypeModels().of(deploymentDef());
  const dep = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d", labels: { app: "d" } },
    spec: {
      selector: { matchLabels: { app: "d" } },
      template: { spec: { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }] } },
    },
  };
  assert.deepEqual(toFieldsV1(toFieldSet(dep as never, t)), {
    "f:apiVersion": {},
    "f:kind": {},
    "f:metadata": { "f:labels": { "f:app": {} }, "f:name": {} },
    "f:spec": {
      "f:selector": {},
      "f:template": {
        "f:spec": {
          "f:containers": {
            'k:{"name":"c"}': {
              ".": {},
              "f:image": {},
              "f:name": {},
              "f:ports": { 'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {} } },
            },
          },
        },
      },
    },
  });
});

test("applying a second container keeps the first in place", () => {
  const def = deploymentDef();
  const dep = (containers: Obj[]) => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: { template: { spec: { containers } } },
  });
  const a = applyToObject(undefined, dep([{ name: "a", image: "x" }]), "ma", false, ctx(def));
  const live = { ...a.object, metadata: { ...(a.object.metadata as Obj), managedFields: a.managedFields } };
  const b = applyToObject(live, dep([{ name: "b", image: "y" }]), "mb", false, ctx(def));
  const spec = (b.object.spec as { template: { spec: { containers: Obj[] } } }).template.spec;
  assert.deepEqual(spec.containers, [
    { name: "a", image: "x" },
    { name: "b", image: "y" },
  ]);
});

test("past ten Update managers the oldest fold into ancient-changes", () => {
  const def = widgetDef();
  // Created with managedFields: an object without any gets none from updates (skipNonApplied).
  const created = widget({ color: "red" });
  let obj: Obj = {
    ...created,
    metadata: {
      ...(created.metadata as Obj),
      managedFields: updatedManagedFields(undefined, created, "creator", {
        ...ctx(def),
        time: "2026-01-01T00:00:00Z",
      }),
    },
  };
  for (let i = 0; i < 12; i++) {
    const meta = obj.metadata as Obj;
    const next = { ...obj, metadata: { ...meta, labels: { ...(meta.labels as Obj), [`l${i}`]: "x" } } };
    const mf = updatedManagedFields(obj, next, `u${String(i).padStart(2, "0")}`, {
      ...ctx(def),
      time: `2026-01-01T00:00:${String(i).padStart(2, "0")}Z`,
    });
    obj = { ...next, metadata: { ...(next.metadata as Obj), managedFields: mf } };
  }
  const managers = ((obj.metadata as Obj).managedFields as { manager: string }[]).map((e) => e.manager);
  assert.equal(managers.length, 10);
  assert.equal(managers[0], "ancient-changes");
  assert.ok(!managers.includes("u00") && !managers.includes("u01") && !managers.includes("u02"));
});
