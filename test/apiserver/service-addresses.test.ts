// Service addresses as kube-apiserver 1.37 keeps them with its IPAddress allocator (GA and the
// only one): a ServiceCIDR `kubernetes` holding the service range, Ready; an IPAddress object per
// address a Service holds, made before the Service and gone with it; an IPAddress anyone creates
// blocks its address; addresses come from every ServiceCIDR; headless Services without a
// selector list both IP families.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("addr");
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const IPS = "/apis/networking.k8s.io/v1/ipaddresses";
const CIDRS = "/apis/networking.k8s.io/v1/servicecidrs";
const services = () => `/api/v1/namespaces/${ns}/services`;
const service = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { ports: [{ port: 80 }], ...spec },
});

/** The IPAddress kube's allocator writes for `ip` held by `namespace/name`. */
function assertAllocated(
  ip: { metadata: Record<string, unknown>; spec: unknown },
  namespace: string,
  name: string,
) {
  assert.deepEqual(ip.metadata.labels, {
    "ipaddress.kubernetes.io/ip-family": "IPv4",
    "ipaddress.kubernetes.io/managed-by": "ipallocator.k8s.io",
  });
  assert.deepEqual(ip.spec, { parentRef: { resource: "services", namespace, name } });
  const managed = ip.metadata.managedFields as { manager: string; operation: string }[];
  assert.deepEqual(
    managed.map((m) => [m.manager, m.operation]),
    [["kube-apiserver", "Update"]],
  );
}

test("the default ServiceCIDR holds the service range, Ready, as kube-apiserver's controller left it", async () => {
  // kube-apiserver's controllers make both after it is ready: under load, seconds later.
  const r = await eventually(
    "the default ServiceCIDR, Ready",
    async () => {
      const got = await api.get(`${CIDRS}/kubernetes`);
      return got.status === 200 && got.body.status?.conditions?.length === 1 ? got : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  assert.deepEqual(r.body.spec, { cidrs: ["10.0.0.0/24"] });
  assert.equal(r.body.status.conditions.length, 1);
  const { lastTransitionTime, ...ready } = r.body.status.conditions[0];
  assert.deepEqual(ready, {
    type: "Ready",
    status: "True",
    reason: "",
    message: "Kubernetes default Service CIDR is ready",
  });
  assert.match(lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual(
    r.body.metadata.managedFields.map((m: Record<string, unknown>) => [
      m.manager,
      m.operation,
      m.subresource,
    ]),
    [
      ["kubernetes-service-cidr-controller", "Apply", "status"],
      ["kube-apiserver", "Update", undefined],
    ],
  );
  // The kubernetes Service's address is allocated like any other.
  const kubernetes = await eventually(
    "the kubernetes Service's IPAddress",
    async () => {
      const got = await api.get(`${IPS}/10.0.0.1`);
      return got.status === 200 ? got : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  assertAllocated(kubernetes.body, "default", "kubernetes");
});

test("a Service's address is an IPAddress naming it, released when the Service goes", async () => {
  const created = await api.post(services(), service("a"));
  assert.equal(created.status, 201, created.text);
  const ip = created.body.spec.clusterIP as string;
  const got = await api.get(`${IPS}/${ip}`);
  assert.equal(got.status, 200, got.text);
  assertAllocated(got.body, ns, "a");
  // Made before the Service was stored.
  assert.ok(Number(got.body.metadata.resourceVersion) < Number(created.body.metadata.resourceVersion));
  assert.equal((await api.delete(`${services()}/a`)).status, 200);
  await eventually(
    `the IPAddress ${ip} is released`,
    async () => (await api.get(`${IPS}/${ip}`)).status === 404,
  );
  // A dry run allocates nothing.
  const dry = await api.post(`${services()}?dryRun=All`, service("dry", { clusterIP: "10.0.0.9" }));
  assert.equal(dry.status, 201, dry.text);
  assert.equal((await api.get(`${IPS}/10.0.0.9`)).status, 404);
});

test("an IPAddress anyone creates blocks its address; a Service refused keeps none", async () => {
  const manual = await api.post(IPS, {
    apiVersion: "networking.k8s.io/v1",
    kind: "IPAddress",
    metadata: { name: "10.0.0.77" },
    spec: { parentRef: { group: "", resource: "services", namespace: ns, name: "someone" } },
  });
  assert.equal(manual.status, 201, manual.text);
  // ParentReference.group is omitempty.
  assert.deepEqual(manual.body.spec.parentRef, { resource: "services", namespace: ns, name: "someone" });
  const taken = await api.post(services(), service("c", { clusterIP: "10.0.0.77" }));
  assert.equal(taken.status, 422, taken.text);
  assert.equal(
    taken.body.message,
    'Service "c" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.77"]: failed to allocate IP 10.0.0.77: provided IP is already allocated',
  );
  // An address taken before the Service fails validation is given back.
  const bad = await api.post(services(), service("bad", { clusterIP: "10.0.0.78", ports: [{ port: 0 }] }));
  assert.equal(bad.status, 422, bad.text);
  assert.equal((await api.get(`${IPS}/10.0.0.78`)).status, 404);
  assert.equal((await api.delete(`${IPS}/10.0.0.77`)).status, 200);
});

test("addresses come from every ServiceCIDR; the network and broadcast addresses from none", async () => {
  const extra = await api.post(CIDRS, {
    apiVersion: "networking.k8s.io/v1",
    kind: "ServiceCIDR",
    metadata: { name: `extra-${ns}` },
    spec: { cidrs: ["10.1.0.0/24"] },
  });
  assert.equal(extra.status, 201, extra.text);
  try {
    // kube's allocator learns of the range from its informer.
    const inExtra = await eventually("an address of the new ServiceCIDR is allocated", async () => {
      const r = await api.post(services(), service("in-extra", { clusterIP: "10.1.0.5" }));
      return r.status === 201 ? r : undefined;
    });
    assertAllocated((await api.get(`${IPS}/10.1.0.5`)).body, ns, "in-extra");
    assert.deepEqual(inExtra.body.spec.clusterIPs, ["10.1.0.5"]);
    for (const [name, ip] of [
      ["outside", "10.2.0.5"],
      ["network", "10.0.0.0"],
      ["broadcast", "10.0.0.255"],
    ]) {
      const r = await api.post(services(), service(name, { clusterIP: ip }));
      assert.equal(r.status, 422, r.text);
      assert.equal(
        r.body.message,
        `Service "${name}" is invalid: spec.clusterIPs: Invalid value: ["${ip}"]: failed to allocate IP ${ip}: the provided network does not match the current range`,
      );
    }
    assert.equal((await api.delete(`${services()}/in-extra`)).status, 200);
  } finally {
    await api.delete(`${CIDRS}/extra-${ns}`);
  }
});

test("a Service turned ExternalName gives its address back; turned back, it gets one", async () => {
  const created = await api.post(
    services(),
    service("en", { type: "ExternalName", externalName: "x.example.com" }),
  );
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.spec.clusterIP, undefined);
  const toClusterIP = await api.patch(`${services()}/en`, {
    spec: { type: "ClusterIP", externalName: null },
  });
  assert.equal(toClusterIP.status, 200, toClusterIP.text);
  const ip = toClusterIP.body.spec.clusterIP as string;
  assert.match(ip, /^10\.0\.0\.\d+$/);
  assert.deepEqual(
    [toClusterIP.body.spec.ipFamilies, toClusterIP.body.spec.ipFamilyPolicy],
    [["IPv4"], "SingleStack"],
  );
  assertAllocated((await api.get(`${IPS}/${ip}`)).body, ns, "en");
  // The fields only a ClusterIP Service needs go with the type, unless the update set them.
  const toExternal = await api.patch(`${services()}/en`, {
    spec: { type: "ExternalName", externalName: "y.example.com" },
  });
  assert.equal(toExternal.status, 200, toExternal.text);
  assert.deepEqual(toExternal.body.spec, {
    ports: [{ protocol: "TCP", port: 80, targetPort: 80 }],
    type: "ExternalName",
    sessionAffinity: "None",
    externalName: "y.example.com",
  });
  await eventually(
    `the IPAddress ${ip} is released`,
    async () => (await api.get(`${IPS}/${ip}`)).status === 404,
  );
});

test("a headless Service without a selector lists both families; with one, its cluster's", async () => {
  const bare = await api.post(services(), {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "headless" },
    spec: { clusterIP: "None" },
  });
  assert.equal(bare.status, 201, bare.text);
  assert.deepEqual(
    [bare.body.spec.clusterIPs, bare.body.spec.ipFamilies, bare.body.spec.ipFamilyPolicy],
    [["None"], ["IPv4", "IPv6"], "RequireDualStack"],
  );
  const selecting = await api.post(
    services(),
    service("headless-selecting", { clusterIP: "None", selector: { a: "b" } }),
  );
  assert.equal(selecting.status, 201, selecting.text);
  assert.deepEqual(
    [selecting.body.spec.ipFamilies, selecting.body.spec.ipFamilyPolicy],
    [["IPv4"], "SingleStack"],
  );
  const dual = await api.post(services(), service("dual", { ipFamilyPolicy: "RequireDualStack" }));
  assert.equal(dual.status, 422, dual.text);
  assert.equal(
    dual.body.message,
    'Service "dual" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
  );
});

test("the default ServiceCIDR deleted is made again by kube-apiserver's controller", async () => {
  const before = (await api.get(`${CIDRS}/kubernetes`)).body.metadata.uid;
  assert.equal((await api.delete(`${CIDRS}/kubernetes`)).status, 200);
  // Its sync runs every 10 s.
  const again = await eventually(
    "the default ServiceCIDR is back",
    async () => {
      const r = await api.get(`${CIDRS}/kubernetes`);
      return r.status === 200 && r.body.status?.conditions ? r : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.notEqual(again.body.metadata.uid, before);
  assert.deepEqual(again.body.spec, { cidrs: ["10.0.0.0/24"] });
  assert.equal(again.body.status.conditions[0].status, "True");
});
