// One Event storage behind two APIs, as kube serves core/v1 and events.k8s.io/v1: an Event written
// through either is read, listed, watched and selected through the other, converted; the field
// labels each kind's version takes, and kube's words for the others; events.k8s.io's strict rules.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { versionDifference } from "../support/environment.js";
import { Api, collect, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("ev");
});
after(() => target.close());

const core = () => `/api/v1/namespaces/${ns}/events`;
const v1 = () => `/apis/events.k8s.io/v1/namespaces/${ns}/events`;

const newEvent = (name: string) => ({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  metadata: { name },
  eventTime: "2026-01-01T00:00:00.000000Z",
  reportingController: "example.com/my-controller",
  reportingInstance: "replica-1",
  action: "Reconcile",
  reason: "Synced",
  type: "Normal",
  note: "all good",
  regarding: { kind: "Pod", name: "p", namespace: ns },
});

const oldEvent = (name: string) => ({
  apiVersion: "v1",
  kind: "Event",
  metadata: { name },
  involvedObject: { kind: "Pod", name: "q", namespace: ns },
  reason: "Failed",
  message: "it broke",
  source: { component: "kubelet", host: "node-1" },
  firstTimestamp: "2026-01-01T00:00:00Z",
  lastTimestamp: "2026-01-01T00:00:02Z",
  count: 3,
  type: "Warning",
});

const names = (r: { body: { items: { metadata: { name: string } }[] } }) =>
  r.body.items.map((i) => i.metadata.name).sort();

describe("Events through core/v1 and events.k8s.io/v1", () => {
  test("written through one, read through the other as kube converts it", async () => {
    assert.equal((await api.post(v1(), newEvent("new"))).status, 201);
    assert.equal((await api.post(core(), oldEvent("old"))).status, 201);

    const asCore = (await api.get(`${core()}/new`)).body;
    assert.equal(asCore.apiVersion, "v1");
    assert.deepEqual(
      Object.keys(asCore).slice(2),
      [
        "metadata",
        "involvedObject",
        "reason",
        "message",
        "source",
        "firstTimestamp",
        "lastTimestamp",
        "type",
        "eventTime",
        "action",
        "reportingComponent",
        "reportingInstance",
      ],
      "core's field order, with the zero values Go writes",
    );
    assert.equal(asCore.message, "all good");
    assert.equal(asCore.reportingComponent, "example.com/my-controller");
    assert.deepEqual(asCore.source, {});
    assert.equal(asCore.firstTimestamp, null);
    assert.deepEqual(asCore.involvedObject, { kind: "Pod", namespace: ns, name: "p" });

    const asV1 = (await api.get(`${v1()}/old`)).body;
    assert.equal(asV1.apiVersion, "events.k8s.io/v1");
    assert.equal(asV1.note, "it broke");
    assert.deepEqual(asV1.deprecatedSource, { component: "kubelet", host: "node-1" });
    assert.equal(asV1.deprecatedCount, 3);
    assert.equal(asV1.eventTime, null);
    assert.equal("reportingController" in asV1, false, "an empty string is left out where Go omits it");

    assert.deepEqual(names(await api.get(core())), ["new", "old"]);
    assert.deepEqual(names(await api.get(v1())), ["new", "old"]);
    const listed = (await api.get(v1())).body.items.find(
      (i: { metadata: { name: string } }) => i.metadata.name === "old",
    );
    assert.equal(listed.note, "it broke");
  });

  test("field selectors: core's fields, and events.k8s.io's names for them", async () => {
    await api.post(v1(), newEvent("sel-new"));
    await api.post(core(), oldEvent("sel-old"));
    const select = async (path: string, selector: string) => {
      const r = await api.get(`${path}?fieldSelector=${encodeURIComponent(selector)}`);
      assert.equal(r.status, 200, `${selector}: ${r.text}`);
      return names(r).filter((n) => n.startsWith("sel-"));
    };
    // source is the component, or the reporting controller without one (kube's ToSelectableFields).
    assert.deepEqual(await select(core(), "source=example.com/my-controller"), ["sel-new"]);
    assert.deepEqual(await select(core(), "source=kubelet"), ["sel-old"]);
    assert.deepEqual(await select(core(), "reportingComponent=example.com/my-controller"), ["sel-new"]);
    assert.deepEqual(await select(core(), "involvedObject.name=q"), ["sel-old"]);
    assert.deepEqual(await select(v1(), "regarding.name=p"), ["sel-new"]);
    assert.deepEqual(await select(v1(), "reportingController=example.com/my-controller"), ["sel-new"]);
    assert.deepEqual(await select(v1(), "type=Warning"), ["sel-old"]);
    const refused = await api.get(`${v1()}?fieldSelector=source%3Dkubelet`);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.message, "field label not supported: source");
  });

  test("a watch through events.k8s.io sees Events written through core, converted", async () => {
    const listed = await api.get(v1());
    const abort = new AbortController();
    const events = api.watch(
      `${v1()}?watch=true&resourceVersion=${listed.body.metadata.resourceVersion}`,
      abort.signal,
    );
    await api.post(core(), oldEvent("watched"));
    const seen = await collect(events, (s) => s.some((e) => e.object.metadata?.name === "watched"));
    abort.abort();
    const added = seen.find((e) => e.object.metadata?.name === "watched");
    assert.equal(added?.type, "ADDED");
    assert.equal(added?.object.apiVersion, "events.k8s.io/v1");
    assert.equal(added?.object.note, "it broke");
  });

  test("events.k8s.io/v1's strict rules: required fields on create; only the series may change", async () => {
    const bad = { ...newEvent("bad"), eventTime: undefined, type: "Odd", deprecatedCount: 2 };
    const r = await api.post(v1(), bad);
    assert.equal(r.status, 422);
    assert.equal(r.body.details.kind, "Event");
    assert.equal(r.body.details.group, undefined, "kube names the core kind its storage holds");
    const fields = r.body.details.causes.map((c: { field: string }) => c.field).sort();
    assert.deepEqual(fields, ["count", "eventTime", "type"]);

    assert.equal((await api.post(core(), oldEvent("frozen"))).status, 201);
    const patched = await api.patch(`${v1()}/frozen`, { note: "changed" });
    assert.equal(patched.status, 422);
    assert.equal(
      patched.body.message,
      'Event "frozen" is invalid: message: Invalid value: "changed": field is immutable',
    );
    // Through core/v1 the legacy rules allow it.
    assert.equal((await api.patch(`${core()}/frozen`, { message: "changed" })).status, 200);
  });
});

describe("field labels each kind's version takes", () => {
  const refusals: [string, string, string][] = [
    [
      "/apis/apps/v1/replicasets",
      "status.replicas",
      `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    ],
    [
      "/api/v1/persistentvolumes",
      "name",
      `"name" is not a known field selector: only "metadata.name", "metadata.namespace"`,
    ],
    ["/api/v1/nodes", "metadata.namespace", "field label not supported: metadata.namespace"],
    ["/api/v1/namespaces", "metadata.namespace", "field label not supported: metadata.namespace"],
    ["/apis/batch/v1/jobs", "status.failed", `field label "status.failed" not supported for Job`],
    [
      "/apis/certificates.k8s.io/v1/certificatesigningrequests",
      "metadata.namespace",
      "field label not supported: metadata.namespace",
    ],
    ["/api/v1/pods", "spec.containers", "field label not supported: spec.containers"],
  ];
  for (const [path, label, message] of refusals) {
    test(`${path} refuses ${label}`, async () => {
      const r = await api.get(`${path}?fieldSelector=${encodeURIComponent(`${label}=x`)}`);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.message, message);
    });
  }

  test("Pods take spec.host for spec.nodeName and status.podIPs", async () => {
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const created = await api.post(pods, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "placed" },
      spec: { nodeName: "node-7", containers: [{ name: "c", image: "busybox" }] },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(names(await api.get(`${pods}?fieldSelector=spec.host%3Dnode-7`)), ["placed"]);
    assert.deepEqual(names(await api.get(`${pods}?fieldSelector=status.podIPs%3D`)), ["placed"]);
  });

  test("a field Go always holds selects by its zero value when absent: a Node's spec.unschedulable, a Job's status.successful, a ReplicationController's status.replicas", async () => {
    const name = `zero-${Date.now().toString(36)}`;
    const node = await api.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name } });
    assert.equal(node.status, 201, node.text);
    try {
      const schedulable = await api.get("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dfalse");
      assert.ok(names(schedulable).includes(name), schedulable.text);
      assert.ok(
        !names(await api.get("/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue")).includes(name),
      );
    } finally {
      await api.delete(`/api/v1/nodes/${name}`);
    }
    const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
    const job = await api.post(jobs, {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "none" },
      spec: {
        suspend: true,
        template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "x" }] } },
      },
    });
    assert.equal(job.status, 201, job.text);
    const zero = await api.get(`${jobs}?fieldSelector=status.successful%3D0`);
    assert.equal(zero.status, 200, zero.text);
    assert.deepEqual(names(zero), ["none"]);
    const rcs = `/api/v1/namespaces/${ns}/replicationcontrollers`;
    const rc = await api.post(rcs, {
      apiVersion: "v1",
      kind: "ReplicationController",
      metadata: { name: "none" },
      spec: {
        replicas: 0,
        selector: { a: "b" },
        template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    });
    assert.equal(rc.status, 201, rc.text);
    assert.deepEqual(names(await api.get(`${rcs}?fieldSelector=status.replicas%3D0`)), ["none"]);
    // A ReplicaSet's status.replicas is no field label of apps/v1 (extensions/v1beta1's was).
    const refused = await api.get(
      `/apis/apps/v1/namespaces/${ns}/replicasets?fieldSelector=status.replicas%3D0`,
    );
    assert.equal(refused.status, 400, refused.text);
    assert.equal(
      refused.body.message,
      '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });

  test("Services take spec.clusterIP and spec.type (kube 1.28 and later)", async (t) => {
    const r = await api.get(`/api/v1/services?fieldSelector=spec.type%3DClusterIP`);
    if (!versionDifference("kube 1.26 has no Service field labels but metadata's")) {
      assert.equal(r.status, 400);
      return t.skip("kube 1.26");
    }
    assert.equal(r.status, 200, r.text);
  });
});
