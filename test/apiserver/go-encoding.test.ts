// Built-in objects as kube's Go encoder writes them, on the run's server: struct fields in
// declaration order, struct values and fields without omitempty always written (`status: {}`,
// `strategy: {}`, an Event's `eventTime: null` and `reportingComponent: ""`, a Node's zero
// `nodeInfo`), and a create's managedFields counted from that empty object (no "." on a struct
// Go always writes, a list Go wrote as null owns only its items).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { unsetCreationTimestamp } from "../support/creation-timestamp.js";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

const template = { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } };

test("a Deployment: struct values always written, fields in Go order, managedFields from the empty object", async () => {
  const ns = await api.namespace("go");
  const r = await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    // Given out of Go's order, without strategy or status.
    spec: { template, selector: { matchLabels: { a: "b" } } },
  });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.body), ["kind", "apiVersion", "metadata", "spec", "status"]);
  assert.deepEqual(r.body.status, {});
  assert.deepEqual(Object.keys(r.body.spec), [
    "replicas",
    "selector",
    "template",
    "strategy",
    "revisionHistoryLimit",
    "progressDeadlineSeconds",
  ]);
  assert.equal(r.body.spec.template.metadata.creationTimestamp, unsetCreationTimestamp().creationTimestamp);
  assert.deepEqual(r.body.metadata.managedFields[0].fieldsV1, {
    "f:spec": {
      "f:progressDeadlineSeconds": {},
      "f:replicas": {},
      "f:revisionHistoryLimit": {},
      "f:selector": {},
      "f:strategy": {
        "f:rollingUpdate": { ".": {}, "f:maxSurge": {}, "f:maxUnavailable": {} },
        "f:type": {},
      },
      "f:template": {
        "f:metadata": { "f:labels": { ".": {}, "f:a": {} } },
        "f:spec": {
          "f:containers": {
            'k:{"name":"c"}': {
              ".": {},
              "f:image": {},
              "f:imagePullPolicy": {},
              "f:name": {},
              "f:resources": {},
              "f:terminationMessagePath": {},
              "f:terminationMessagePolicy": {},
            },
          },
          "f:dnsPolicy": {},
          "f:restartPolicy": {},
          "f:schedulerName": {},
          "f:securityContext": {},
          "f:terminationGracePeriodSeconds": {},
        },
      },
    },
  });
});

test("an Event and a Node: zero values of fields without omitempty", async () => {
  const ns = await api.namespace("go");
  const e = await api.post(`/api/v1/namespaces/${ns}/events`, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "e" },
    reason: "R",
    involvedObject: { name: "p", kind: "Pod", namespace: ns },
  });
  assert.equal(e.status, 201, e.text);
  assert.deepEqual(
    Object.keys(e.body).filter((k) => k !== "metadata"),
    [
      "kind",
      "apiVersion",
      "involvedObject",
      "reason",
      "source",
      "firstTimestamp",
      "lastTimestamp",
      "eventTime",
      "reportingComponent",
      "reportingInstance",
    ],
  );
  assert.deepEqual(Object.keys(e.body.involvedObject), ["kind", "namespace", "name"]);
  assert.deepEqual(e.body.source, {});
  assert.equal(e.body.eventTime, null);
  assert.equal(e.body.reportingComponent, "");
  const elsewhere = await api.post(`/api/v1/namespaces/${ns}/events`, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "e2" },
    involvedObject: { name: "p", kind: "Pod", namespace: "other" },
  });
  assert.equal(elsewhere.status, 422);
  assert.equal(
    elsewhere.body.message,
    'Event "e2" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  );

  const name = `go-node-${process.pid}`;
  const n = await api.post("/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name } });
  assert.equal(n.status, 201, n.text);
  assert.deepEqual(n.body.status.daemonEndpoints, { kubeletEndpoint: { Port: 0 } });
  assert.equal(n.body.status.nodeInfo.kubeletVersion, "");
  await api.delete(`/api/v1/nodes/${name}`);
});

test("what kube-apiserver writes once it serves: the kubernetes Service and the published client CA", async () => {
  const svc = await api.get("/api/v1/namespaces/default/services/kubernetes");
  assert.equal(svc.status, 200, svc.text);
  assert.deepEqual(svc.body.metadata.labels, { component: "apiserver", provider: "kubernetes" });
  assert.deepEqual(svc.body.spec.ports, [
    { name: "https", protocol: "TCP", port: 443, targetPort: Number(new URL(target.url).port) },
  ]);
  assert.equal(svc.body.spec.clusterIP, "10.0.0.1");
  assert.deepEqual(svc.body.status, { loadBalancer: {} });
  const cm = await api.get("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
  assert.equal(cm.status, 200, cm.text);
  assert.match(cm.body.data["client-ca-file"], /^-----BEGIN CERTIFICATE-----\n/);
});

test("what the storage sets after the field manager is nobody's: a Service's addresses, a Namespace's finalizer", async () => {
  const ns = await api.namespace("go");
  const svc = await api.post(`/api/v1/namespaces/${ns}/services`, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "s" },
    spec: { ports: [{ port: 80 }] },
  });
  assert.equal(svc.status, 201, svc.text);
  assert.match(svc.body.spec.clusterIP, /^10\.0\./);
  assert.deepEqual(svc.body.metadata.managedFields[0].fieldsV1, {
    "f:spec": {
      "f:internalTrafficPolicy": {},
      "f:ports": {
        ".": {},
        'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {} },
      },
      "f:sessionAffinity": {},
      "f:type": {},
    },
  });
  const nsObj = await api.get(`/api/v1/namespaces/${ns}`);
  assert.deepEqual(nsObj.body.spec, { finalizers: ["kubernetes"] });
  assert.deepEqual(nsObj.body.metadata.managedFields[0].fieldsV1, {
    "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } },
  });
});
