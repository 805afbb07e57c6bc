// What kube-apiserver 1.37 writes itself, and how it holds writes to the rules of its storage:
// its bootstrap objects carry the managedFields of its own Update (kube-apiserver), as a client's
// would; an update of a custom resource without a resourceVersion is refused by its Store in its
// words (the resource where the kind goes, the version printed 0).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, customResourceDefinition, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(() => target.close());

/** An object's managedFields without their times. */
async function managed(path: string): Promise<unknown> {
  const r = await api.get(path);
  assert.equal(r.status, 200, r.text);
  return (r.body.metadata.managedFields ?? []).map(({ time: _, ...e }: Record<string, unknown>) => e);
}

const byKubeApiserver = (apiVersion: string, fieldsV1: unknown) => [
  { manager: "kube-apiserver", operation: "Update", apiVersion, fieldsType: "FieldsV1", fieldsV1 },
];

test("the bootstrap objects carry kube-apiserver's managedFields", async () => {
  assert.deepEqual(
    await managed("/api/v1/namespaces/default"),
    byKubeApiserver("v1", { "f:metadata": { "f:labels": { ".": {}, "f:kubernetes.io/metadata.name": {} } } }),
  );
  assert.deepEqual(
    await managed("/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication"),
    byKubeApiserver("v1", { "f:data": { ".": {}, "f:client-ca-file": {} } }),
  );
  assert.deepEqual(
    await managed("/apis/scheduling.k8s.io/v1/priorityclasses/system-node-critical"),
    byKubeApiserver("scheduling.k8s.io/v1", { "f:description": {}, "f:preemptionPolicy": {}, "f:value": {} }),
  );
  assert.deepEqual(
    await managed("/api/v1/namespaces/default/services/kubernetes"),
    byKubeApiserver("v1", {
      "f:metadata": { "f:labels": { ".": {}, "f:component": {}, "f:provider": {} } },
      "f:spec": {
        "f:clusterIP": {},
        "f:internalTrafficPolicy": {},
        "f:ipFamilyPolicy": {},
        "f:ports": {
          ".": {},
          'k:{"port":443,"protocol":"TCP"}': {
            ".": {},
            "f:name": {},
            "f:port": {},
            "f:protocol": {},
            "f:targetPort": {},
          },
        },
        "f:sessionAffinity": {},
        "f:type": {},
      },
    }),
  );
});

test("a custom resource updated without a resourceVersion: the Store's 422, in its words", async () => {
  const group = `sw${Date.now().toString(36)}.example.com`;
  assert.equal(
    (await api.post(CRDS, customResourceDefinition(group, { plural: "things", kind: "Thing" }))).status,
    201,
  );
  try {
    const ns = await api.namespace("sw");
    const path = `/apis/${group}/v1/namespaces/${ns}/things`;
    const thing = { apiVersion: `${group}/v1`, kind: "Thing", metadata: { name: "t" } };
    await eventually("the CRD is served", async () => (await api.post(path, thing)).status === 201, {
      timeoutMs: 30_000,
    });
    const r = await api.put(`${path}/t`, thing);
    assert.equal(r.status, 422, r.text);
    assert.equal(
      r.body.message,
      `things.${group} "t" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
    );
    assert.deepEqual(r.body.details, {
      name: "t",
      group,
      kind: "things",
      causes: [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: 0: must be specified for an update",
          field: "metadata.resourceVersion",
        },
      ],
    });
  } finally {
    await api.delete(`${CRDS}/things.${group}`);
  }
});

test("the kubernetes Service's Endpoints and EndpointSlice point at the server, as its endpoint reconciler writes them", async () => {
  // The port clients reach the server on; the address is the host's own (never loopback).
  const port = Number(new URL(target.url).port);
  const expected = (r: Reply) => {
    assert.equal(r.status, 200, r.text);
    return r.body;
  };
  const endpoints = expected(await api.get("/api/v1/namespaces/default/endpoints/kubernetes"));
  assert.equal(endpoints.metadata.labels["endpointslice.kubernetes.io/skip-mirror"], "true");
  assert.equal(endpoints.subsets.length, 1);
  const [subset] = endpoints.subsets;
  assert.deepEqual(subset.ports, [{ name: "https", port, protocol: "TCP" }]);
  assert.equal(subset.addresses.length, 1);
  const ip = subset.addresses[0].ip;
  assert.match(ip, /^\d+\.\d+\.\d+\.\d+$/);
  assert.ok(!ip.startsWith("127."), `a loopback address: ${ip}`);

  const slices = expected(
    await api.get(
      "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes",
    ),
  );
  assert.equal(slices.items.length, 1);
  const [slice] = slices.items;
  assert.equal(slice.metadata.name, "kubernetes");
  assert.equal(slice.addressType, "IPv4");
  assert.deepEqual(slice.endpoints, [{ addresses: [ip], conditions: { ready: true } }]);
  assert.deepEqual(slice.ports, [{ name: "https", port, protocol: "TCP" }]);
});
