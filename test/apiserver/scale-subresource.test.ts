// The scale subresource of every kind that has one (Deployments, ReplicaSets, StatefulSets,
// ReplicationControllers, custom resources with a scale subresource), written as kube's
// ScaleREST writes it: patches (server-side apply included) and updates are made to the Scale
// and tracked by the field manager there, then carried to the parent, whose managedFields
// record the Scale's managers under the parent's version with subresource "scale". Also what
// kube refuses there, and the forms a Scale is answered in.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { decodeProtobuf } from "controller-runtime/protobuf";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

const APPLY = "application/apply-patch+yaml";
const MERGE = "application/merge-patch+json";
const PROTOBUF = "application/vnd.kubernetes.protobuf";
const REPLICAS = { "f:spec": { "f:replicas": {} } };
const GROUP = "scaling.example.com";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("scale");
  const crd = await api.post(CRDS, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      names: { plural: "widgets", kind: "Widget" },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: { type: "object", properties: { replicas: { type: "integer" } } },
                status: {
                  type: "object",
                  properties: { replicas: { type: "integer" }, selector: { type: "string" } },
                },
              },
            },
          },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: ".spec.replicas",
              statusReplicasPath: ".status.replicas",
              labelSelectorPath: ".status.selector",
            },
          },
        },
      ],
    },
  });
  assert.equal(crd.status, 201, crd.text);
  await eventually(
    "the CRD served",
    async () => (await api.get(`/apis/${GROUP}/v1/namespaces/${ns}/widgets`)).status === 200,
    { timeoutMs: 30_000 },
  );
});
after(async () => {
  await api.delete(`${CRDS}/widgets.${GROUP}`);
  await target.close();
});

const template = (app: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: "c", image: "nginx" }] },
});

/** A parent of each built-in kind with /scale, named `name`, one replica. */
const builtins = [
  {
    kind: "Deployment",
    path: () => `/apis/apps/v1/namespaces/${ns}/deployments`,
    apiVersion: "apps/v1",
    body: (name: string) => ({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: template(name) },
    }),
  },
  {
    kind: "ReplicaSet",
    path: () => `/apis/apps/v1/namespaces/${ns}/replicasets`,
    apiVersion: "apps/v1",
    body: (name: string) => ({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name },
      spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: template(name) },
    }),
  },
  {
    kind: "StatefulSet",
    path: () => `/apis/apps/v1/namespaces/${ns}/statefulsets`,
    apiVersion: "apps/v1",
    body: (name: string) => ({
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name },
      spec: {
        replicas: 1,
        serviceName: name,
        selector: { matchLabels: { app: name } },
        template: template(name),
      },
    }),
  },
  {
    kind: "ReplicationController",
    path: () => `/api/v1/namespaces/${ns}/replicationcontrollers`,
    apiVersion: "v1",
    body: (name: string) => ({
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name },
      spec: { replicas: 1, selector: { app: name }, template: template(name) },
    }),
  },
];

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsV1: unknown;
  subresource?: string;
}

async function managedFields(path: string): Promise<Entry[]> {
  const r = await api.get(path);
  assert.equal(r.status, 200, r.text);
  return r.body.metadata.managedFields;
}

function apply(path: string, manager: string, replicas: number, force = false, name?: string) {
  const config = {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    ...(name ? { metadata: { name } } : {}),
    spec: { replicas },
  };
  const query = `?fieldManager=${manager}${force ? "&force=true" : ""}`;
  return api.call("PATCH", `${path}/scale${query}`, JSON.stringify(config), { contentType: APPLY });
}

describe("server-side apply and field ownership on /scale", () => {
  for (const kind of builtins) {
    test(`${kind.kind}: patches and applies to the Scale are owned on the parent under subresource scale`, async () => {
      const name = `${kind.kind.toLowerCase()}-owned`;
      const created = await api.post(`${kind.path()}?fieldManager=creator`, kind.body(name));
      assert.equal(created.status, 201, created.text);
      const parent = `${kind.path()}/${name}`;

      const merged = await api.call(
        "PATCH",
        `${parent}/scale?fieldManager=scaler`,
        { spec: { replicas: 2 } },
        {
          contentType: MERGE,
        },
      );
      assert.equal(merged.status, 200, merged.text);
      assert.equal(merged.body.kind, "Scale");
      assert.equal(merged.body.spec.replicas, 2);
      let entries = await managedFields(parent);
      // A manager new to the parent comes without a time (ScaleHandler.ToParent keeps the
      // parent's times only), which also sorts it first.
      assert.deepEqual(entries[0], {
        manager: "scaler",
        operation: "Update",
        apiVersion: kind.apiVersion,
        fieldsType: "FieldsV1",
        fieldsV1: REPLICAS,
        subresource: "scale",
      });
      const creator = entries.find((e) => e.manager === "creator");
      assert.ok(creator?.time, "the creator keeps its entry and time");
      const creatorSpec = (creator.fieldsV1 as { "f:spec": Record<string, unknown> })["f:spec"];
      assert.equal(creatorSpec["f:replicas"], undefined);

      const applied = await apply(parent, "applier", 3, true);
      assert.equal(applied.status, 200, applied.text);
      assert.equal(applied.body.kind, "Scale");
      assert.equal(applied.body.apiVersion, "autoscaling/v1");
      assert.equal(applied.body.spec.replicas, 3);
      assert.equal(applied.body.metadata.managedFields, undefined);
      assert.equal((await api.get(parent)).body.spec.replicas, 3);
      entries = await managedFields(parent);
      assert.deepEqual(entries[0], {
        manager: "applier",
        operation: "Apply",
        apiVersion: kind.apiVersion,
        fieldsType: "FieldsV1",
        fieldsV1: REPLICAS,
        subresource: "scale",
      });
      assert.equal(
        entries.find((e) => e.manager === "scaler"),
        undefined,
        "the forced apply took the replicas",
      );

      const conflict = await apply(parent, "other", 4);
      assert.equal(conflict.status, 409, conflict.text);
      assert.equal(
        conflict.body.message,
        'Apply failed with 1 conflict: conflict with "applier" with subresource "scale": .spec.replicas',
      );
      // The applier applying again, without force: its own field, no conflict.
      const again = await apply(parent, "applier", 5, false, name);
      assert.equal(again.status, 200, again.text);
      assert.equal((await api.get(parent)).body.spec.replicas, 5);
    });
  }

  test("a custom resource's Scale: updates are owned on the parent; kube 1.37 cannot apply to it", async () => {
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
    const created = await api.post(`${path}?fieldManager=creator`, {
      apiVersion: `${GROUP}/v1`,
      kind: "Widget",
      metadata: { name: "owned" },
      spec: { replicas: 1 },
    });
    assert.equal(created.status, 201, created.text);
    const parent = `${path}/owned`;
    const merged = await api.call(
      "PATCH",
      `${parent}/scale?fieldManager=scaler`,
      { spec: { replicas: 2 } },
      {
        contentType: MERGE,
      },
    );
    assert.equal(merged.status, 200, merged.text);
    const entries = await managedFields(parent);
    assert.deepEqual(entries[0], {
      apiVersion: `${GROUP}/v1`,
      fieldsType: "FieldsV1",
      fieldsV1: REPLICAS,
      manager: "scaler",
      operation: "Update",
      subresource: "scale",
    });

    // The Scale's managers are in autoscaling/v1: an Update manager is named with it.
    const conflict = await apply(parent, "applier", 3);
    assert.equal(conflict.status, 409, conflict.text);
    assert.equal(
      conflict.body.message,
      'Apply failed with 1 conflict: conflict with "scaler" with subresource "scale" using autoscaling/v1: .spec.replicas',
    );
    // Past the conflicts, kube's field manager converts the Scale with the custom resource's
    // converter, which refuses autoscaling/v1: a 500 without reason, nothing written.
    const forced = await apply(parent, "applier", 3, true, "owned");
    assert.equal(forced.status, 500, forced.text);
    assert.equal(forced.body.reason, undefined);
    assert.equal(
      forced.body.message,
      "failed to convert new object (/owned; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
    );
    assert.equal((await api.get(parent)).body.spec.replicas, 2);

    // Without any owner of the replicas, it fails earlier, on the live Scale.
    const bare = await api.post(path, {
      apiVersion: `${GROUP}/v1`,
      kind: "Widget",
      metadata: { name: "bare" },
      spec: {},
    });
    assert.equal(bare.status, 201, bare.text);
    const first = await apply(`${path}/bare`, "applier", 1);
    assert.equal(first.status, 500, first.text);
    assert.equal(
      first.body.message,
      "failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1",
    );
  });
});

describe("what /scale refuses", () => {
  test("content types: go-restful's bare 415 for built-in kinds; kube's list for custom resources", async () => {
    const deployments = builtins[0];
    await api.post(deployments.path(), deployments.body("refusing"));
    const parent = `${deployments.path()}/refusing`;
    for (const contentType of ["text/plain", "application/json"]) {
      const r = await api.call("PATCH", `${parent}/scale`, { spec: { replicas: 2 } }, { contentType });
      assert.equal(r.status, 415, contentType);
      assert.deepEqual(r.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "415: Unsupported Media Type",
        reason: "UnsupportedMediaType",
        details: {},
        code: 415,
      });
    }
    // Strategic merge is a built-in kind's.
    const strategic = await api.call(
      "PATCH",
      `${parent}/scale`,
      { spec: { replicas: 2 } },
      {
        contentType: "application/strategic-merge-patch+json",
      },
    );
    assert.equal(strategic.status, 200, strategic.text);

    const widgets = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
    await api.post(widgets, {
      apiVersion: `${GROUP}/v1`,
      kind: "Widget",
      metadata: { name: "refusing" },
      spec: {},
    });
    const custom = await api.call(
      "PATCH",
      `${widgets}/refusing/scale`,
      { spec: { replicas: 2 } },
      {
        contentType: "application/strategic-merge-patch+json",
      },
    );
    assert.equal(custom.status, 415);
    assert.equal(
      custom.body.message,
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
    );
    const put = await api.call("PUT", `${widgets}/refusing/scale`, "x", { contentType: "text/plain" });
    assert.equal(put.status, 415);
    assert.equal(
      put.body.message,
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
  });

  test("a Scale without a name, of another kind, or with negative replicas", async () => {
    const deployments = builtins[0];
    await api.post(deployments.path(), deployments.body("checked"));
    const parent = `${deployments.path()}/checked`;
    const unnamed = await api.put(`${parent}/scale`, {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      spec: { replicas: 2 },
    });
    assert.equal(unnamed.status, 400);
    assert.equal(
      unnamed.body.message,
      "the name of the object (checked based on URL) was undeterminable: name must be provided",
    );
    const other = await api.call(
      "PATCH",
      `${parent}/scale?fieldManager=applier`,
      JSON.stringify({
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "checked" },
        spec: { replicas: 3 },
      }),
      { contentType: APPLY },
    );
    assert.equal(other.status, 400);
    assert.equal(other.body.message, "invalid object type: apps/v1, Kind=Deployment");
    const negative = await api.call(
      "PATCH",
      `${parent}/scale`,
      { spec: { replicas: -1 } },
      { contentType: MERGE },
    );
    assert.equal(negative.status, 422);
    assert.equal(
      negative.body.message,
      'Scale.autoscaling "checked" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    assert.deepEqual(negative.body.details, {
      name: "checked",
      group: "autoscaling",
      kind: "Scale",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: -1: must be greater than or equal to 0",
          field: "spec.replicas",
        },
      ],
    });
  });

  test("a custom resource without replicas: no Scale to read, a write must set them, never below 0", async () => {
    const widgets = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
    await api.post(widgets, {
      apiVersion: `${GROUP}/v1`,
      kind: "Widget",
      metadata: { name: "unset" },
      spec: {},
    });
    const scale = `${widgets}/unset/scale`;
    const read = await api.get(scale);
    assert.equal(read.status, 500);
    assert.equal(
      read.body.message,
      'Internal error occurred: the spec replicas field ".spec.replicas" does not exist',
    );
    // The Scale a write starts from says so with int32's smallest value.
    const labelled = await api.call(
      "PATCH",
      scale,
      { metadata: { labels: { a: "b" } } },
      { contentType: MERGE },
    );
    assert.equal(labelled.status, 400);
    assert.equal(labelled.body.message, 'the spec replicas field ".spec.replicas" cannot be empty');
    const tested = await api.call(
      "PATCH",
      scale,
      [{ op: "test", path: "/spec/replicas", value: -2147483648 }],
      {
        contentType: "application/json-patch+json",
      },
    );
    assert.equal(tested.status, 400, tested.text);
    // A custom resource's own validation checks the replicas (the Scale's does not run).
    const negative = await api.call("PATCH", scale, { spec: { replicas: -1 } }, { contentType: MERGE });
    assert.equal(negative.status, 422);
    assert.equal(
      negative.body.message,
      `Widget.${GROUP} "unset" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`,
    );
    const set = await api.call("PATCH", scale, { spec: { replicas: 2 } }, { contentType: MERGE });
    assert.equal(set.status, 200, set.text);
    assert.equal((await api.get(`${widgets}/unset`)).body.spec.replicas, 2);
  });
});

describe("the forms of a Scale", () => {
  test("a Table with kube's scale columns, metadata in protobuf; a custom resource's Scale never in protobuf", async () => {
    const deployments = builtins[0];
    await api.post(deployments.path(), deployments.body("shown"));
    const parent = `${deployments.path()}/shown`;
    const table = await api.get(`${parent}/scale`, {
      accept: "application/json;as=Table;g=meta.k8s.io;v=v1",
    });
    assert.equal(table.status, 200, table.text);
    assert.deepEqual(
      table.body.columnDefinitions.map((c: { name: string; type: string; format: string }) => [
        c.name,
        c.type,
        c.format,
      ]),
      [
        ["Name", "string", ""],
        ["Desired", "integer", ""],
        ["Available", "integer", ""],
        ["Age", "string", ""],
      ],
    );
    assert.deepEqual(table.body.rows[0].cells.slice(0, 3), ["shown", 1, 0]);
    assert.equal(table.body.rows[0].object.kind, "PartialObjectMetadata");

    const headers: Record<string, string> = {
      accept: `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json`,
    };
    if (target.token) headers.authorization = `Bearer ${target.token}`;
    const res = await fetch(`${target.url}${parent}/scale`, {
      headers,
      dispatcher: target.agent,
    } as unknown as RequestInit);
    assert.equal(res.headers.get("content-type"), PROTOBUF);
    const partial = decodeProtobuf(Buffer.from(await res.arrayBuffer()), { apiVersion: "", kind: "" });
    assert.equal(partial.kind, "PartialObjectMetadata");
    assert.equal((partial.metadata as { name: string }).name, "shown");

    const widgets = `/apis/${GROUP}/v1/namespaces/${ns}/widgets`;
    await api.post(widgets, {
      apiVersion: `${GROUP}/v1`,
      kind: "Widget",
      metadata: { name: "shown" },
      spec: { replicas: 1 },
    });
    const customTable = await api.get(`${widgets}/shown/scale`, {
      accept: "application/json;as=Table;g=meta.k8s.io;v=v1",
    });
    assert.equal(customTable.status, 200, customTable.text);
    assert.deepEqual(
      customTable.body.columnDefinitions.map((c: { name: string; type: string; format: string }) => [
        c.name,
        c.type,
        c.format,
      ]),
      [
        ["Name", "string", "name"],
        ["Desired", "integer", ""],
        ["Available", "integer", ""],
        ["Age", "date", ""],
      ],
    );
    const refused = await api.get(`${widgets}/shown/scale`, { accept: `${PROTOBUF}, text/plain` });
    assert.equal(refused.status, 406);
    const asList = await api.get(`${widgets}/shown/scale`, {
      accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
    });
    assert.equal(asList.status, 406);
    assert.equal(
      asList.body.message,
      "you requested PartialObjectMetadataList, but the requested object is not a list (*v1.Scale)",
    );
  });
});
