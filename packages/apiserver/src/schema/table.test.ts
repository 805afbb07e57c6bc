import assert from "node:assert/strict";
import { test } from "node:test";
import { resourcesFromCRD } from "../crd/resources-from-crd.js";
import { widgetCRD } from "../crd/widget-crd.fixture.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { toTable } from "./table.js";
import { humanDuration } from "./table-format.js";

const now = Date.parse("2026-11-21T14:26:22Z");

function def(group: string, kind: string): ResourceDefinition {
  return {
    group,
    version: "v1",
    kind,
    listKind: `${kind}List`,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    verbs: [],
    statusSubresource: false,
    storageVersion: "v1",
    selectableFields: {},
    printerColumns: [],
  };
}

test("ConfigMaps: Name, Data, Age with PartialObjectMetadata rows, as recorded", () => {
  const cm = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: "c1",
      namespace: "ref",
      creationTimestamp: "2026-11-21T14:26:21Z",
      labels: { app: "x" },
    },
    data: { a: "1" },
  };
  const table = toTable(def("", "ConfigMap"), [cm], { now, listMeta: { resourceVersion: "463" } });
  assert.equal(table.kind, "Table");
  assert.equal(table.apiVersion, "meta.k8s.io/v1");
  assert.deepEqual(table.metadata, { resourceVersion: "463" });
  assert.deepEqual(
    table.columnDefinitions?.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ["Name", "string", "name", 0],
      ["Data", "string", "", 0],
      ["Age", "string", "", 0],
    ],
  );
  assert.deepEqual(table.rows, [
    {
      cells: ["c1", 1, "1s"],
      object: { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: cm.metadata },
    },
  ]);
  assert.equal(toTable(def("", "ConfigMap"), [cm], { includeObject: "Object", now }).rows[0].object, cm);
  assert.equal(toTable(def("", "ConfigMap"), [cm], { includeObject: "None", now }).rows[0].object, null);
  assert.equal(toTable(def("", "ConfigMap"), [cm], { noHeaders: true, now }).columnDefinitions, null);
});

test("Pods: Ready, Status, Restarts", () => {
  const pod = {
    metadata: { name: "p", creationTimestamp: "2026-11-21T14:20:22Z" },
    spec: { containers: [{ name: "a" }, { name: "b" }], nodeName: "n1" },
    status: {
      phase: "Running",
      podIP: "10.0.0.1",
      containerStatuses: [
        { name: "a", ready: true, restartCount: 2 },
        { name: "b", ready: false, restartCount: 0, state: { waiting: { reason: "CrashLoopBackOff" } } },
      ],
    },
  };
  const t = toTable(def("", "Pod"), [pod], { now });
  assert.deepEqual(
    t.columnDefinitions?.filter((c) => c.priority === 0).map((c) => c.name),
    ["Name", "Ready", "Status", "Restarts", "Age"],
  );
  assert.deepEqual(t.rows[0].cells.slice(0, 7), [
    "p",
    "1/2",
    "CrashLoopBackOff",
    "2",
    "6m",
    "10.0.0.1",
    "n1",
  ]);
  const deleting = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: "2026-11-21T14:26:00Z" } };
  assert.equal(toTable(def("", "Pod"), [deleting], { now }).rows[0].cells[2], "Terminating");
});

test("Deployments, Namespaces and Events", () => {
  const d = {
    metadata: { name: "web", creationTimestamp: "2026-11-21T12:26:22Z" },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      template: { spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
    status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  };
  assert.deepEqual(toTable(def("apps", "Deployment"), [d], { now }).rows[0].cells, [
    "web",
    "2/3",
    3,
    2,
    "120m",
    "c",
    "nginx",
    "app=web",
  ]);
  const ns = {
    metadata: { name: "ref", creationTimestamp: "2026-11-20T14:26:22Z" },
    status: { phase: "Active" },
  };
  assert.deepEqual(toTable(def("", "Namespace"), [ns], { now }).rows[0].cells, ["ref", "Active", "24h"]);
  const ev = {
    metadata: { name: "w1.x", creationTimestamp: "2026-11-21T14:26:12Z" },
    involvedObject: { kind: "Widget", name: "w1" },
    reason: "Synced",
    message: "ok ",
    type: "Normal",
    lastTimestamp: "2026-11-21T14:26:12Z",
    count: 2,
    source: { component: "ctrl" },
  };
  const t = toTable(def("", "Event"), [ev], { now });
  assert.deepEqual(
    t.columnDefinitions?.filter((c) => c.priority === 0).map((c) => c.name),
    ["Last Seen", "Type", "Reason", "Object", "Message"],
  );
  assert.deepEqual(t.rows[0].cells, [
    "10s",
    "Normal",
    "Synced",
    "widget/w1",
    "",
    "ctrl",
    "ok",
    "<unknown>",
    2,
    "w1.x",
  ]);
});

test("custom resources use their printer columns through JSONPath, typed as kube types them", () => {
  const crd = widgetCRD();
  crd.spec.versions[0].additionalPrinterColumns = [
    { name: "Color", type: "string", jsonPath: ".spec.color" },
    { name: "Size", type: "integer", jsonPath: ".spec.size" },
    { name: "Ready", type: "boolean", jsonPath: ".status.ready" },
    { name: "Tags", type: "string", jsonPath: ".spec.tags", priority: 1 },
    { name: "Cond", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
  ];
  const [widgets] = resourcesFromCRD(crd);
  const w = {
    metadata: { name: "w1", creationTimestamp: "2026-11-21T14:16:22Z" },
    spec: { color: "red", size: 3, tags: ["a", "b"] },
    status: {
      ready: true,
      conditions: [
        { type: "Other", status: "False" },
        { type: "Ready", status: "True" },
      ],
    },
  };
  const t = toTable(widgets, [w, { metadata: { name: "w2" } }], { now });
  assert.deepEqual(
    t.columnDefinitions?.map((c) => [c.name, c.type, c.priority]),
    [
      ["Name", "string", 0],
      ["Color", "string", 0],
      ["Size", "integer", 0],
      ["Ready", "boolean", 0],
      ["Tags", "string", 1],
      ["Cond", "string", 0],
      ["Age", "date", 0],
    ],
  );
  assert.deepEqual(t.rows[0].cells, ["w1", "red", 3, true, '["a","b"]', "True", "10m"]);
  assert.deepEqual(t.rows[1].cells, ["w2", null, null, null, null, null, null]);
  const plain = toTable(resourcesFromCRD(widgetCRD())[0], [w], { now });
  assert.deepEqual(
    plain.columnDefinitions?.map((c) => c.name),
    ["Name", "Age"],
  );
  assert.deepEqual(plain.rows[0].cells, ["w1", "10m"]);
});

test("kinds without a printer show Name and Created At; an empty list has no rows", () => {
  const t = toTable(
    def("example.org", "Thing"),
    [{ metadata: { name: "t", creationTimestamp: "2026-11-21T14:26:21Z" } }],
    {
      now,
    },
  );
  assert.deepEqual(t.rows[0].cells, ["t", "2026-11-21T14:26:21Z"]);
  assert.deepEqual(toTable(def("", "ConfigMap"), [], { now }).rows, []);
});

test("human durations read as kubectl prints them", () => {
  const s = 1000;
  assert.deepEqual(
    [
      0,
      59 * s,
      119 * s,
      125 * s,
      600 * s,
      3 * 3600 * s + 5 * 60 * s,
      9 * 3600 * s,
      50 * 3600 * s,
      400 * 86400 * s,
      800 * 86400 * s,
    ].map(humanDuration),
    ["0s", "59s", "119s", "2m5s", "10m", "3h5m", "9h", "2d2h", "400d", "2y70d"],
  );
  assert.equal(humanDuration(-5 * s), "<invalid>");
});
