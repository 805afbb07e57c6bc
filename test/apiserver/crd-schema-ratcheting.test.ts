// CRD validation ratcheting of the OpenAPI schema (kube 1.33+, CRDValidationRatcheting GA): after a
// CRD tightens, an update may leave a now-invalid value as it was. What counts as "as it was" is
// judged where kube can correlate the new value with the old one: by field, and a map list's items
// by their keys; an atomic list answers as a whole. (The CEL rules' ratcheting is in
// crd-validation-rules.test.ts.)
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const group = `ratchet${Date.now().toString(36)}.example.com`;
const crdName = `gadgets.${group}`;
const collection = `/apis/${group}/v1/namespaces/default/gadgets`;

/** The spec's schema, loose (anything of the right type) or tightened. */
const specSchema = (tight: boolean) => ({
  type: "object",
  properties: {
    size: { type: "integer", ...(tight ? { maximum: 10 } : {}) },
    label: { type: "string" },
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: {
        type: "object",
        required: ["name"],
        properties: {
          name: { type: "string" },
          port: { type: "integer", ...(tight ? { maximum: 65535 } : {}) },
        },
      },
    },
    tags: { type: "array", items: { type: "string", ...(tight ? { maxLength: 3 } : {}) } },
    box: {
      type: "object",
      ...(tight ? { required: ["b"] } : {}),
      properties: { a: { type: "string" }, b: { type: "string" } },
    },
    mode: { type: "string", ...(tight ? { enum: ["on", "off"] } : {}) },
    names: {
      type: "array",
      items: { type: "string" },
      ...(tight ? { "x-kubernetes-list-type": "set" } : {}),
    },
  },
});

const gadget = (name: string) => ({
  apiVersion: `${group}/v1`,
  kind: "Gadget",
  metadata: { name },
  spec: {
    size: 100,
    label: "a",
    ports: [
      { name: "a", port: 99999 },
      { name: "b", port: 1 },
    ],
    tags: ["toolong"],
    box: { a: "x" },
    mode: "auto",
    names: ["x", "x"],
  },
});

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const created = await api.post(CRDS, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: crdName },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: "gadgets", singular: "gadget", kind: "Gadget", listKind: "GadgetList" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: "object", properties: { spec: specSchema(false) } } },
        },
      ],
    },
  });
  assert.equal(created.status, 201, created.text);
  await eventually("the CRD served", async () => (await api.get(collection)).status === 200, {
    timeoutMs: 30_000,
  });
});
after(async () => {
  await api.delete(`${CRDS}/${crdName}`);
  await target.close();
});

/** A Gadget's spec as the test edits it (every field the schema names). */
interface GadgetSpec {
  size: number;
  label: string;
  ports: { name: string; port: number }[];
  tags: string[];
  box: { a?: string; b?: string };
  mode: string;
  names: string[];
}

const fields = (r: Reply) =>
  ((r.body.details?.causes ?? []) as { field: string }[]).map((c) => c.field).sort();

test("after a CRD tightens, values left as they were pass; changed ones, and atomic lists changed, are checked", async () => {
  const created = await api.post(collection, gadget("old"));
  assert.equal(created.status, 201, created.text);

  const crd = (await api.get(`${CRDS}/${crdName}`)).body;
  crd.spec.versions[0].schema.openAPIV3Schema.properties.spec = specSchema(true);
  const tightened = await api.put(`${CRDS}/${crdName}`, crd);
  assert.equal(tightened.status, 200, tightened.text);
  // A new object of the old shape fails every tightened check once the new schema is in force.
  let refused: Reply | undefined;
  await eventually(
    "the tightened schema in force",
    async () => {
      refused = await api.post(collection, gadget("new"));
      return refused.status === 422;
    },
    { timeoutMs: 30_000 },
  );
  assert.deepEqual(fields(refused!), [
    "spec.box.b",
    "spec.mode",
    "spec.names[1]",
    "spec.ports[0].port",
    "spec.size",
    "spec.tags[0]",
  ]);

  const update = async (edit: (spec: GadgetSpec) => void) => {
    const current = (await api.get(`${collection}/old`)).body;
    edit(current.spec);
    return api.put(`${collection}/old`, current);
  };
  // Every invalid value unchanged: the update passes.
  const relabelled = await update((spec) => {
    spec.label = "b";
  });
  assert.equal(relabelled.status, 200, relabelled.text);
  // Duplicates in a set are checked only if the old object had none (kube's older rule for list
  // types): this one had, so a new duplicate passes too.
  const more = await update((spec) => {
    spec.names.push("y", "y");
  });
  assert.equal(more.status, 200, more.text);
  // A map list's items correlate by key: changing item b leaves item a's invalid port as it was.
  const portB = await update((spec) => {
    spec.ports[1].port = 2;
  });
  assert.equal(portB.status, 200, portB.text);
  // ...even when the items change places.
  const reordered = await update((spec) => {
    spec.ports.reverse();
  });
  assert.equal(reordered.status, 200, reordered.text);
  // Each changed value is checked.
  const grown = await update((spec) => {
    spec.size = 50;
    spec.mode = "manual";
  });
  assert.equal(grown.status, 422, grown.text);
  assert.deepEqual(fields(grown), ["spec.mode", "spec.size"]);
  // An atomic list changed is checked whole: its unchanged first item fails again.
  const tagged = await update((spec) => {
    spec.tags.push("ok");
  });
  assert.equal(tagged.status, 422, tagged.text);
  assert.deepEqual(fields(tagged), ["spec.tags[0]"]);
  // A changed object's required fields are checked: box lacks b.
  const boxed = await update((spec) => {
    spec.box.a = "y";
  });
  assert.equal(boxed.status, 422, boxed.text);
  assert.deepEqual(fields(boxed), ["spec.box.b"]);
  // An update of the whole object to valid values passes, of course.
  const fixed = await update((spec) => {
    Object.assign(spec, { size: 1, mode: "on", tags: ["ok"], box: { a: "y", b: "z" }, names: ["x", "y"] });
    spec.ports = [
      { name: "a", port: 80 },
      { name: "b", port: 2 },
    ];
  });
  assert.equal(fixed.status, 200, fixed.text);
  // Now the stored object has no duplicates, so they are checked again.
  const doubled = await update((spec) => {
    spec.names.push("x");
  });
  assert.equal(doubled.status, 422, doubled.text);
  assert.deepEqual(fields(doubled), ["spec.names[2]"]);
});
