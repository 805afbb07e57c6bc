import assert from "node:assert/strict";
import { test } from "node:test";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import { encodeStruct, goDefinitionOf } from "../object/go-encoding.js";
import { builtinResources, type ResourceDefinition } from "../registry/index.js";
import { emptyObject, updatedManagedFields, ownershipContext, type WriteContext } from "./field-manager.js";
import { TypeModels } from "./type-model.js";
import { ApplyTypeError } from "./list-items.js";
import { encodeManagedFields } from "./managers.js";
import type { Json } from "./path-element.js";
import { recordUpdate } from "./updater.js";

type Obj = Record<string, Json>;

const builtin = (group: string, plural: string): ResourceDefinition => {
  const def = builtinResources().find((d) => d.group === group && d.plural === plural);
  assert.ok(def, `${group}/${plural}`);
  return def;
};

function widgetDef(): ResourceDefinition {
  return {
    ...builtin("apps", "deployments"),
    group: "example.com",
    version: "v1",
    kind: "Widget",
    listKind: "WidgetList",
    plural: "widgets",
    singular: "widget",
    statusSubresource: true,
    storageVersion: "v1",
    schema: widgetCRD().spec.versions[0].schema?.openAPIV3Schema,
    crdName: "widgets.example.com",
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

/**
 * The general path: recordUpdate from the kind's empty object (apiVersion, kind, what Go writes)
 * to the object as Go writes it.
 */
function general(obj: Obj, w: WriteContext) {
  const before = { apiVersion: obj.apiVersion, kind: obj.kind, ...emptyObject(w.def) } as Obj;
  const short = w.def.crdName ? undefined : goDefinitionOf(w.def.group, w.def.version, w.def.kind);
  const after = (short ? encodeStruct(short, obj, true) : obj) as Obj;
  return encodeManagedFields(recordUpdate(before, after, new Map(), "mgr", ownershipContext(w)));
}

const meta = (extra: Obj = {}): Obj => ({
  name: "o",
  namespace: "ns",
  uid: "u",
  resourceVersion: "",
  creationTimestamp: "2026-01-01T00:00:00Z",
  generation: 1,
  ...extra,
});

const cases: { name: string; def: () => ResourceDefinition; obj: Obj; subresource?: string }[] = [
  {
    name: "a ConfigMap with data",
    def: () => builtin("", "configmaps"),
    obj: { apiVersion: "v1", kind: "ConfigMap", metadata: meta(), data: { b: "2", a: "1" } },
  },
  {
    name: "a ConfigMap with nothing but metadata",
    def: () => builtin("", "configmaps"),
    obj: { apiVersion: "v1", kind: "ConfigMap", metadata: meta() },
  },
  {
    name: "labels, annotations, finalizers and owner references",
    def: () => builtin("", "configmaps"),
    obj: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: meta({
        labels: { app: "x", tier: "web" },
        annotations: { "a/b": "c" },
        finalizers: ["f/one", "f/two"],
        ownerReferences: [
          { apiVersion: "v1", kind: "Pod", name: "p", uid: "u2", controller: true },
          { apiVersion: "v1", kind: "Pod", name: "q", uid: "u1" },
        ],
        generateName: "o-",
      }),
      data: {},
      binaryData: { z: "AA==" },
      immutable: true,
    },
  },
  {
    name: "a Deployment with keyed lists, empty containers and nulls",
    def: () => builtin("apps", "deployments"),
    obj: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta(),
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "x" } },
        template: {
          metadata: { labels: { app: "x" } },
          spec: {
            containers: [
              {
                name: "b",
                image: "img",
                ports: [{ containerPort: 80 }, { containerPort: 53, protocol: "UDP" }],
                env: [{ name: "A", value: "1" }, { name: "B" }],
                args: ["x", "y"],
                resources: {},
              },
              { name: "a", image: "other", command: [] },
            ],
            tolerations: [{ key: "k" }, { key: "k" }],
            nodeSelector: null,
          },
        },
        strategy: { type: "Recreate" },
      } as Json,
      status: { replicas: 1 },
    },
  },
  {
    name: "duplicate keys in a keyed list",
    def: () => builtin("apps", "deployments"),
    obj: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta(),
      spec: { template: { spec: { containers: [{ name: "c" }, { name: "c", image: "i" }] } } },
    },
  },
  {
    name: "a list item without its key (untrackable: no managedFields)",
    def: () => builtin("apps", "deployments"),
    obj: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta(),
      spec: { template: { spec: { containers: [{ image: "c" }] } } },
    },
  },
  {
    name: "a custom resource with a status subresource: status is not owned",
    def: widgetDef,
    obj: {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: meta({ labels: { a: "b" } }),
      spec: { size: 3, tags: ["a", "b"], extra: { deep: { er: 1 } } } as Json,
      status: { phase: "x" },
    },
  },
  {
    name: "through /status only status is owned",
    def: widgetDef,
    subresource: "status",
    obj: {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: meta(),
      spec: { size: 3 },
      status: { phase: "x" },
    },
  },
  {
    name: "server-set metadata members holding containers keep what is below them",
    def: () => builtin("", "configmaps"),
    obj: {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { ...meta(), name: { a: "b", c: { d: 1 } }, uid: [], generation: { x: null } } as Json,
    },
  },
  {
    name: "metadata of the wrong shape, and undefined values, are left out",
    def: () => builtin("", "configmaps"),
    obj: { apiVersion: "v1", kind: "ConfigMap", metadata: ["x"], data: { a: undefined } } as unknown as Obj,
  },
  {
    name: "a value whose shape disagrees with its type is a leaf",
    def: () => builtin("", "configmaps"),
    obj: { apiVersion: "v1", kind: "ConfigMap", metadata: meta({ labels: "oops" }), data: ["x"] as Json },
  },
];

for (const c of cases) {
  test(`a create's managedFields match the general update path: ${c.name}`, () => {
    const w = ctx(c.def(), c.subresource);
    let expected: ReturnType<typeof general>;
    try {
      expected = general(c.obj, w);
    } catch (e) {
      // kube drops managedFields when it cannot track a write.
      assert.ok(e instanceof ApplyTypeError, String(e));
      expected = [];
    }
    const got = updatedManagedFields(undefined, c.obj, "mgr", w);
    assert.deepEqual(got, expected);
    // Byte for byte, key order included: it is what clients read.
    assert.equal(JSON.stringify(got), JSON.stringify(expected));
  });
}
