// The Table form `kubectl get` asks for: columns and rows on list and get, rows carrying
// PartialObjectMetadata by default (or the object, or nothing), watch events as one-row Tables
// with the column definitions only on the first, and a CRD's printer columns.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, collect, configMap, startTarget, type Target } from "./harness.js";

const TABLE =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

let target: Target;
let api: Api;

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

describe("tables", () => {
  test("a list as a Table: Name, Data, Age; rows with PartialObjectMetadata", async () => {
    const ns = await api.namespace("tbl");
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1", { a: "1", b: "2" }));
    const r = await api.get(`/api/v1/namespaces/${ns}/configmaps`, { accept: TABLE });
    assert.equal(r.status, 200);
    assert.equal(r.body.kind, "Table");
    assert.equal(r.body.apiVersion, "meta.k8s.io/v1");
    assert.match(r.body.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(
      r.body.columnDefinitions.map((c: { name: string }) => c.name),
      ["Name", "Data", "Age"],
    );
    const row = r.body.rows.find((x: { cells: unknown[] }) => x.cells[0] === "c1");
    assert.equal(row.cells[1], 2);
    assert.equal(typeof row.cells[2], "string");
    assert.equal(row.object.kind, "PartialObjectMetadata");
    assert.equal(row.object.metadata.name, "c1");
  });

  test("includeObject=Object and None; a bad value is a 400", async () => {
    const ns = await api.namespace("tbl");
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("c1", { a: "1" }));
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const whole = await api.get(`${path}?includeObject=Object`, { accept: TABLE });
    assert.equal(whole.body.rows[0].object.kind, "ConfigMap");
    assert.deepEqual(whole.body.rows[0].object.data, { a: "1" });
    const none = await api.get(`${path}?includeObject=None`, { accept: TABLE });
    assert.equal(none.body.rows[0].object ?? null, null);
    const bad = await api.get(`${path}?includeObject=Everything`, { accept: TABLE });
    assert.equal(bad.status, 400);
    assert.equal(
      bad.body.message,
      `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`,
    );
  });

  test("get of one object as a Table; the v1beta1 Table when asked for first", async () => {
    const ns = await api.namespace("tbl");
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap("one"));
    const r = await api.get(`/api/v1/namespaces/${ns}/configmaps/one`, { accept: TABLE });
    assert.equal(r.body.kind, "Table");
    assert.equal(r.body.rows.length, 1);
    assert.equal(r.body.rows[0].cells[0], "one");
    const beta = await api.get(`/api/v1/namespaces/${ns}/configmaps/one`, {
      accept: "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    });
    assert.equal(beta.body.apiVersion, "meta.k8s.io/v1beta1");
  });

  test("Deployments show Ready, Up-to-date, Available, Age and wide columns", async () => {
    const ns = await api.namespace("tbl");
    await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels: { app: "web" } },
          spec: { containers: [{ name: "c", image: "nginx" }] },
        },
      },
    });
    const r = await api.get(`/apis/apps/v1/namespaces/${ns}/deployments`, { accept: TABLE });
    const names = r.body.columnDefinitions.map((c: { name: string }) => c.name);
    assert.deepEqual(names.slice(0, 5), ["Name", "Ready", "Up-to-date", "Available", "Age"]);
    assert.ok(names.includes("Containers"));
    assert.equal(r.body.rows[0].cells[0], "web");
    assert.equal(r.body.rows[0].cells[1], "0/2");
  });

  test("watch events are one-row Tables; only the first carries column definitions", async () => {
    const ns = await api.namespace("tbl");
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const list = await api.get(path);
    const rv = list.body.metadata.resourceVersion;
    await api.post(path, configMap("w1"));
    await api.post(path, configMap("w2"));
    const ac = new AbortController();
    const events = await collect(
      api.watch(`${path}?watch=1&resourceVersion=${rv}`, ac.signal, TABLE),
      (seen) => seen.length === 2,
    );
    ac.abort();
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "ADDED"],
    );
    assert.equal(events[0].object.kind, "Table");
    assert.ok(events[0].object.columnDefinitions.length > 0);
    assert.equal(events[0].object.rows[0].cells[0], "w1");
    assert.equal(events[1].object.columnDefinitions?.length ?? 0, 0);
    assert.equal(events[1].object.rows[0].cells[0], "w2");
    assert.equal(events[1].object.rows[0].object.kind, "PartialObjectMetadata");
  });

  test("custom resources use their printer columns", async () => {
    const group = `tbl${Date.now().toString(36)}.example.com`;
    const name = `gauges.${group}`;
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name },
      spec: {
        group,
        names: { kind: "Gauge", plural: "gauges" },
        scope: "Namespaced",
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            additionalPrinterColumns: [
              { name: "Level", type: "integer", jsonPath: ".spec.level" },
              { name: "Unit", type: "string", jsonPath: ".spec.unit", priority: 1 },
            ],
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: {
                  spec: {
                    type: "object",
                    properties: { level: { type: "integer" }, unit: { type: "string" } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    assert.equal(
      (await api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status,
      201,
    );
    try {
      const ns = await api.namespace("tbl");
      const path = `/apis/${group}/v1/namespaces/${ns}/gauges`;
      let created = 0;
      for (let i = 0; i < 100 && created !== 201; i++) {
        created = (
          await api.post(path, {
            apiVersion: `${group}/v1`,
            kind: "Gauge",
            metadata: { name: "g1" },
            spec: { level: 7, unit: "bar" },
          })
        ).status;
        if (created !== 201) await new Promise((r) => setTimeout(r, 100));
      }
      const r = await api.get(path, { accept: TABLE });
      assert.deepEqual(
        r.body.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority]),
        [
          ["Name", 0],
          ["Level", 0],
          ["Unit", 1],
        ],
      );
      assert.deepEqual(r.body.rows[0].cells, ["g1", 7, "bar"]);
    } finally {
      await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    }
  });
});
