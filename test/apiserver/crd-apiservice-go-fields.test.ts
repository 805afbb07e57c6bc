// CRDs and APIServices as kube-apiserver 1.37.2 writes them: through apiextensions' and
// kube-aggregator's Go structs. Keys come in declaration order whatever order they were sent in,
// a schema's maps (properties, a default's keys) sorted, omitempty scalars at their zero value
// dropped (`nullable: false`, a column's `priority: 0`), struct values always written; and
// managedFields computed against the kind's Go zero value (spec and names are struct values: no
// `"."` for them; conversion and a service are pointers: one each). The literals below are kube's
// answers, recorded from kube-apiserver 1.37.2 with these bodies.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { around } from "./deep-crds.js";
import { Api, CRDS, collect, startTarget, type Target } from "./harness.js";

const APISERVICES = "/apis/apiregistration.k8s.io/v1/apiservices";
const suffix = randomBytes(4).toString("hex");
const group = `gofields${suffix}.example.com`;
/** A group no CRD serves (kube registers an APIService of its own for every CRD group). */
const asGroup = `gofields-as${suffix}.example.com`;
const crdName = `foos.${group}`;
const manager = "gofields-test";

let target: Target;
let api: Api;
const cleanup: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(async () => {
  for (const path of cleanup) await api.delete(path);
  await target.close();
});

// A schema with each kind of field kube encodes on its own: keys scrambled, zero omitempty
// scalars, JSON values (default, example) with unsorted keys, items, additionalProperties.
const schema = {
  type: "object",
  properties: {
    spec: {
      properties: {
        zed: {
          type: "string",
          nullable: false,
          enum: ["a", "b"],
          default: "a",
          description: "d",
          maxLength: 3,
        },
        list: {
          "x-kubernetes-list-map-keys": ["k"],
          "x-kubernetes-list-type": "map",
          type: "array",
          items: {
            required: ["k"],
            properties: {
              k: { type: "string" },
              v: { type: "integer", minimum: 1, exclusiveMinimum: false },
            },
            type: "object",
          },
        },
        map: {
          additionalProperties: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          type: "object",
          default: { z: { q: 1 }, a: { y: 2, b: 3 } },
          "x-kubernetes-map-type": "granular",
        },
        ios: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
        free: { "x-kubernetes-preserve-unknown-fields": true, type: "object" },
        emb: {
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
          type: "object",
        },
        aaa: { type: "number", example: { q: 1, b: 2 }, format: "double" },
      },
      "x-kubernetes-validations": [
        {
          messageExpression: "'x'",
          rule: "self.zed != 'c'",
          reason: "FieldValueInvalid",
          message: "m",
          fieldPath: ".zed",
        },
      ],
      type: "object",
    },
    status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  },
};

const scrambledCrd = {
  status: {},
  spec: {
    versions: [
      {
        additionalPrinterColumns: [{ jsonPath: ".spec.zed", type: "string", name: "Zed", priority: 0 }],
        subresources: { scale: { statusReplicasPath: ".status.r", specReplicasPath: ".spec.r" }, status: {} },
        schema: { openAPIV3Schema: schema },
        storage: true,
        served: true,
        name: "v1",
        selectableFields: [{ jsonPath: ".spec.zed" }],
      },
    ],
    scope: "Namespaced",
    names: {
      categories: ["all"],
      listKind: "FooList",
      kind: "Foo",
      shortNames: ["fo"],
      singular: "foo",
      plural: "foos",
    },
    group,
    preserveUnknownFields: false,
  },
  metadata: { labels: { z: "1", a: "2" }, name: crdName },
  kind: "CustomResourceDefinition",
  apiVersion: "apiextensions.k8s.io/v1",
};

/** kube's spec for `scrambledCrd`, `names` aside, as text: its key order is the point. */
const kubeVersions =
  '[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"aaa":{"type":"number","format":"double","example":{"b":2,"q":1}},"emb":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true},"free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},"ios":{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true},"list":{"type":"array","items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"},"v":{"type":"integer","minimum":1}}},"x-kubernetes-list-map-keys":["k"],"x-kubernetes-list-type":"map"},"map":{"type":"object","default":{"a":{"b":3,"y":2},"z":{"q":1}},"additionalProperties":{"type":"object","x-kubernetes-preserve-unknown-fields":true},"x-kubernetes-map-type":"granular"},"zed":{"description":"d","type":"string","default":"a","maxLength":3,"enum":["a","b"]}},"x-kubernetes-validations":[{"rule":"self.zed != \'c\'","message":"m","messageExpression":"\'x\'","reason":"FieldValueInvalid","fieldPath":".zed"}]},"status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}},"subresources":{"status":{},"scale":{"specReplicasPath":".spec.r","statusReplicasPath":".status.r"}},"additionalPrinterColumns":[{"name":"Zed","type":"string","jsonPath":".spec.zed"}],"selectableFields":[{"jsonPath":".spec.zed"}]}]';
const kubeNames = (shortNames: string[]) =>
  `{"plural":"foos","singular":"foo","shortNames":${JSON.stringify(shortNames)},"kind":"Foo","listKind":"FooList","categories":["all"]}`;
const kubeSpec = (shortNames: string[]) =>
  `{"group":"${group}","names":${kubeNames(shortNames)},"scope":"Namespaced","versions":${kubeVersions},"conversion":{"strategy":"None"}}`;

/** The fieldsV1 of the client's entry: spec and names without ".", conversion (a pointer) with one. */
const kubeSpecFields = {
  "f:conversion": { ".": {}, "f:strategy": {} },
  "f:group": {},
  "f:names": {
    "f:categories": {},
    "f:kind": {},
    "f:listKind": {},
    "f:plural": {},
    "f:shortNames": {},
    "f:singular": {},
  },
  "f:scope": {},
  "f:versions": {},
};
const condition = {
  ".": {},
  "f:lastTransitionTime": {},
  "f:message": {},
  "f:reason": {},
  "f:status": {},
  "f:type": {},
};
/** What the CRD controller's status write owns, kube-apiserver's entry through /status. */
const kubeStatusFields = {
  "f:status": {
    "f:acceptedNames": kubeSpecFields["f:names"],
    "f:conditions": { 'k:{"type":"Established"}': condition, 'k:{"type":"NamesAccepted"}': condition },
  },
};

// biome-ignore lint/suspicious/noExplicitAny: managedFields entries as JSON
const entryOf = (body: any, name: string) => body.metadata.managedFields.find((e: any) => e.manager === name);

test("a CRD sent with its keys scrambled comes back as kube writes it; create and update managedFields are kube's", async () => {
  const created = await api.post(`${CRDS}?fieldManager=${manager}`, scrambledCrd);
  assert.equal(created.status, 201, created.text);
  cleanup.push(`${CRDS}/${crdName}`);
  assert.deepEqual(Object.keys(created.body), ["kind", "apiVersion", "metadata", "spec", "status"]);
  assert.equal(JSON.stringify(created.body.spec), kubeSpec(["fo"]));
  // The strategy resets the status: struct values and fields without omitempty are still written.
  assert.equal(
    JSON.stringify(created.body.status),
    '{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":["v1"]}',
  );
  assert.deepEqual(entryOf(created.body, manager).fieldsV1, {
    "f:metadata": { "f:labels": { ".": {}, "f:a": {}, "f:z": {} } },
    "f:spec": kubeSpecFields,
  });

  // The CRD controller's status: in Go's order, owned by kube-apiserver's entry through /status.
  // biome-ignore lint/suspicious/noExplicitAny: the CRD as JSON
  let established: any;
  await eventually(
    "the CRD is Established with its status entry",
    async () => {
      established = (await api.get(`${CRDS}/${crdName}`)).body;
      // biome-ignore lint/suspicious/noExplicitAny: conditions as JSON
      const conditions = (established?.status?.conditions ?? []) as any[];
      const status = entryOf(established, "kube-apiserver");
      return (
        conditions.some((c) => c.type === "Established" && c.status === "True") &&
        status?.fieldsV1?.["f:status"]?.["f:conditions"]?.['k:{"type":"Established"}'] !== undefined
      );
    },
    { timeoutMs: 60_000 },
  );
  assert.deepEqual(Object.keys(established.status), ["conditions", "acceptedNames", "storedVersions"]);
  assert.equal(JSON.stringify(established.status.acceptedNames), kubeNames(["fo"]));
  for (const c of established.status.conditions)
    assert.deepEqual(Object.keys(c), ["type", "status", "lastTransitionTime", "reason", "message"]);
  const status = entryOf(established, "kube-apiserver");
  assert.equal(status.subresource, "status");
  assert.equal(status.operation, "Update");
  assert.deepEqual(status.fieldsV1, kubeStatusFields);

  // An update with the spec in yet another order: kube's order again, ownership as kube computes it.
  const spec = established.spec;
  const put = await api.put(`${CRDS}/${crdName}?fieldManager=${manager}`, {
    spec: {
      conversion: spec.conversion,
      versions: spec.versions,
      names: {
        plural: "foos",
        kind: "Foo",
        singular: "foo",
        shortNames: ["fo", "fx"],
        categories: ["all"],
        listKind: "FooList",
      },
      scope: spec.scope,
      group: spec.group,
    },
    metadata: { ...established.metadata, annotations: { b: "1", a: "2" } },
    apiVersion: established.apiVersion,
    kind: established.kind,
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(JSON.stringify(put.body.spec), kubeSpec(["fo", "fx"]));
  assert.deepEqual(entryOf(put.body, manager).fieldsV1, {
    "f:metadata": {
      "f:annotations": { ".": {}, "f:a": {}, "f:b": {} },
      "f:labels": { ".": {}, "f:a": {}, "f:z": {} },
    },
    "f:spec": kubeSpecFields,
  });
  assert.deepEqual(entryOf(put.body, "kube-apiserver").fieldsV1, kubeStatusFields);

  // A list and a merge patch answer in the same order.
  const patched = await api.patch(`${CRDS}/${crdName}`, { spec: { names: { shortNames: ["fo"] } } });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(JSON.stringify(patched.body.spec), kubeSpec(["fo"]));
  const list = await api.get(`${CRDS}?fieldSelector=metadata.name=${crdName}`);
  assert.equal(JSON.stringify(list.body.items[0].spec), kubeSpec(["fo"]));
  assert.deepEqual(Object.keys(list.body.items[0]), ["metadata", "spec", "status"]);
  const stop = new AbortController();
  try {
    const watch = api.watch(`${CRDS}?watch=true&fieldSelector=metadata.name=${crdName}`, stop.signal);
    const [added] = await collect(watch, (seen) => seen.length > 0);
    assert.equal(added.type, "ADDED");
    assert.equal(JSON.stringify(added.object.spec), kubeSpec(["fo"]));
  } finally {
    stop.abort();
  }
});

test("a CRD applied server-side: its entry owns what the configuration names", async () => {
  const name = `bars.${group}`;
  const r = await api.call(
    "PATCH",
    `${CRDS}/${name}?fieldManager=${manager}`,
    JSON.stringify({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name },
      spec: {
        versions: [
          {
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: { type: "object", properties: { b: { type: "string" }, a: { type: "integer" } } },
                },
              },
            },
            storage: true,
            served: true,
            name: "v1",
          },
        ],
        scope: "Cluster",
        names: { kind: "Bar", plural: "bars" },
        group,
      },
    }),
    { contentType: "application/apply-patch+yaml" },
  );
  assert.equal(r.status, 201, r.text);
  cleanup.push(`${CRDS}/${name}`);
  assert.equal(
    JSON.stringify(r.body.spec),
    `{"group":"${group}","names":{"plural":"bars","singular":"bar","kind":"Bar","listKind":"BarList"},"scope":"Cluster","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}}}}}}}],"conversion":{"strategy":"None"}}`,
  );
  assert.deepEqual(entryOf(r.body, manager).fieldsV1, {
    "f:spec": { "f:group": {}, "f:names": { "f:kind": {}, "f:plural": {} }, "f:scope": {}, "f:versions": {} },
  });
});

test("APIServices sent with their keys scrambled come back as kube writes them, managedFields too", async () => {
  const local = `v1.${asGroup}`;
  const created = await api.post(`${APISERVICES}?fieldManager=${manager}`, {
    spec: { versionPriority: 15, groupPriorityMinimum: 1000, version: "v1", group: asGroup },
    metadata: { name: local, labels: { z: "1", a: "2" } },
    kind: "APIService",
    apiVersion: "apiregistration.k8s.io/v1",
  });
  assert.equal(created.status, 201, created.text);
  cleanup.push(`${APISERVICES}/${local}`);
  assert.deepEqual(Object.keys(created.body), ["kind", "apiVersion", "metadata", "spec", "status"]);
  assert.equal(
    JSON.stringify(created.body.spec),
    `{"group":"${asGroup}","version":"v1","groupPriorityMinimum":1000,"versionPriority":15}`,
  );
  // A local APIService is Available from its create on (kube-aggregator's PrepareForCreate).
  const [available] = created.body.status.conditions;
  assert.deepEqual(Object.keys(available), ["type", "status", "lastTransitionTime", "reason", "message"]);
  assert.deepEqual([available.type, available.status, available.reason], ["Available", "True", "Local"]);
  assert.deepEqual(entryOf(created.body, manager).fieldsV1, {
    "f:metadata": { "f:labels": { ".": {}, "f:a": {}, "f:z": {} } },
    "f:spec": { "f:group": {}, "f:groupPriorityMinimum": {}, "f:version": {}, "f:versionPriority": {} },
  });

  const put = await api.put(`${APISERVICES}/${local}?fieldManager=${manager}`, {
    spec: { versionPriority: 16, groupPriorityMinimum: 1000, version: "v1", group: asGroup },
    metadata: { name: local, resourceVersion: created.body.metadata.resourceVersion },
    kind: "APIService",
    apiVersion: "apiregistration.k8s.io/v1",
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(
    JSON.stringify(put.body.spec),
    `{"group":"${asGroup}","version":"v1","groupPriorityMinimum":1000,"versionPriority":16}`,
  );
  assert.deepEqual(put.body.metadata.managedFields.length, 1);
  assert.deepEqual(entryOf(put.body, manager).fieldsV1, {
    "f:spec": { "f:group": {}, "f:groupPriorityMinimum": {}, "f:version": {}, "f:versionPriority": {} },
  });

  // One served by a Service: a pointer (".") in the fields, `insecureSkipTLSVerify: false` left out.
  const remote = `v1.remote-${asGroup}`;
  const withService = await api.post(`${APISERVICES}?fieldManager=${manager}`, {
    spec: {
      caBundle: "Y2E=",
      insecureSkipTLSVerify: false,
      service: { port: 443, namespace: "default", name: "svc" },
      versionPriority: 15,
      groupPriorityMinimum: 1000,
      version: "v1",
      group: `remote-${asGroup}`,
    },
    metadata: { name: remote },
    kind: "APIService",
    apiVersion: "apiregistration.k8s.io/v1",
  });
  assert.equal(withService.status, 201, withService.text);
  cleanup.push(`${APISERVICES}/${remote}`);
  assert.equal(
    JSON.stringify(withService.body.spec),
    `{"service":{"namespace":"default","name":"svc","port":443},"group":"remote-${asGroup}","version":"v1","caBundle":"Y2E=","groupPriorityMinimum":1000,"versionPriority":15}`,
  );
  assert.equal(JSON.stringify(withService.body.status), "{}");
  assert.deepEqual(entryOf(withService.body, manager).fieldsV1, {
    "f:spec": {
      "f:caBundle": {},
      "f:group": {},
      "f:groupPriorityMinimum": {},
      "f:service": { ".": {}, "f:name": {}, "f:namespace": {}, "f:port": {} },
      "f:version": {},
      "f:versionPriority": {},
    },
  });
});

test("a CRD whose schema nests thousands of levels comes back in kube's order at every level", {
  timeout: 300_000,
}, async () => {
  // 2 000 levels of properties and 1 000 of items, each level's keys scrambled; past V8's stack.
  const name = `deeps.${group}`;
  const leaf = '{"nullable":false,"default":"x","type":"string"}';
  const deepProps = around(2000, '{"properties":{"a":', leaf, '},"type":"object"}');
  const deepItems = around(1000, '{"items":', '{"type":"string"}', ',"type":"array"}');
  const body = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"${name}"},"spec":{"versions":[{"schema":{"openAPIV3Schema":{"properties":{"spec":{"properties":{"p":${deepProps},"i":${deepItems}},"type":"object"}},"type":"object"}},"storage":true,"served":true,"name":"v1"}],"scope":"Namespaced","names":{"plural":"deeps","kind":"Deep"},"group":"${group}"}}`;
  const r = await api.post(CRDS, body);
  assert.equal(r.status, 201, r.text.slice(0, 300));
  cleanup.push(`${CRDS}/${name}`);
  const kubeLeaf = '{"type":"string","default":"x"}';
  const want = `"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"i":${around(1000, '{"type":"array","items":', '{"type":"string"}', "}")},"p":${around(2000, '{"type":"object","properties":{"a":', kubeLeaf, "}}")}}}}}}`;
  for (const reply of [r, await api.get(`${CRDS}/${name}`)]) {
    const at = reply.text.indexOf('"openAPIV3Schema":');
    const got = reply.text.slice(at, at + want.length);
    if (got !== want) {
      let i = 0;
      while (got[i] === want[i]) i++;
      assert.fail(
        `differs at ${i}: got …${got.slice(Math.max(0, i - 60), i + 80)}, want …${want.slice(Math.max(0, i - 60), i + 80)}`,
      );
    }
  }
  await eventually(
    "the deep CRD is served",
    async () => (await api.get(`/apis/${group}/v1/deeps`)).status === 200,
    { timeoutMs: 120_000 },
  );
});
