// The built-in kinds an operator creates besides workloads, served as kube-apiserver serves them:
// discovery, kube's defaults and what its storage adds, and the subresources that are not
// status or scale (a Pod's binding and ephemeral containers, a CSR's approval, an RC's scale).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { versionDifference } from "../support/environment.js";
import { Api, startTarget, type Target } from "./harness.js";
import { type KindCase, servedKinds } from "./served-kinds.js";

let target: Target;
let api: Api;
let ns: string;
let cases: Record<string, KindCase>;
let minor: number;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("kinds");
  cases = await servedKinds();
  minor = Number.parseInt((await api.get("/version")).body.minor, 10);
});
after(() => target.close());

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
async function create(kind: string): Promise<any> {
  const c = cases[kind];
  const body = JSON.parse(JSON.stringify(c.body).replaceAll("{ns}", ns));
  const r = await api.post(c.path.replace("{ns}", ns), body);
  assert.equal(r.status, 201, `${kind}: ${r.text}`);
  return r.body;
}

test("discovery lists every kind with kube's verbs, short names and subresources", async () => {
  const resources = async (gv: string) => {
    const r = await api.get(gv === "v1" ? "/api/v1" : `/apis/${gv}`);
    assert.equal(r.status, 200, `${gv}: ${r.text}`);
    // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
    return new Map<string, any>(r.body.resources.map((x: { name: string }) => [x.name, x]));
  };
  const core = await resources("v1");
  // biome-ignore lint/suspicious/noExplicitAny: discovery JSON
  const verbs = (m: Map<unknown, any>, name: string) => m.get(name)?.verbs.slice().sort().join(",");
  assert.equal(verbs(core, "bindings"), "create");
  assert.equal(verbs(core, "pods/binding"), "create");
  assert.equal(verbs(core, "pods/ephemeralcontainers"), "get,patch,update");
  assert.equal(verbs(core, "replicationcontrollers/scale"), "get,patch,update");
  assert.deepEqual(core.get("limitranges")?.shortNames, ["limits"]);
  assert.deepEqual(core.get("resourcequotas")?.shortNames, ["quota"]);
  assert.equal(core.get("persistentvolumes")?.namespaced, false);
  assert.ok(core.has("podtemplates") && core.has("persistentvolumes/status"));
  const csr = await resources("certificates.k8s.io/v1");
  assert.equal(verbs(csr, "certificatesigningrequests/approval"), "get,patch,update");
  const hpa = await resources("autoscaling/v2");
  assert.deepEqual(hpa.get("horizontalpodautoscalers")?.categories, ["all"]);
  for (const [gv, name] of [
    ["policy/v1", "poddisruptionbudgets"],
    ["networking.k8s.io/v1", "ingresses"],
    ["networking.k8s.io/v1", "ingressclasses"],
    ["networking.k8s.io/v1", "networkpolicies"],
    ["discovery.k8s.io/v1", "endpointslices"],
    ["scheduling.k8s.io/v1", "priorityclasses"],
    ["node.k8s.io/v1", "runtimeclasses"],
    ["storage.k8s.io/v1", "storageclasses"],
    ["storage.k8s.io/v1", "csidrivers"],
    ["storage.k8s.io/v1", "volumeattachments/status"],
    ["batch/v1", "cronjobs/status"],
    ["apps/v1", "controllerrevisions"],
  ]) {
    assert.ok((await resources(gv)).has(name), `${gv} ${name}`);
  }
  if (minor < 37) return;
  // What 1.37 serves by default beyond 1.32.
  assert.equal(verbs(core, "pods/resize"), "get,patch,update");
  const admission = await resources("admissionregistration.k8s.io/v1");
  for (const name of ["mutatingadmissionpolicies", "mutatingadmissionpolicybindings"]) {
    assert.deepEqual(admission.get(name)?.categories, ["api-extensions"], name);
    assert.equal(admission.get(name)?.namespaced, false, name);
  }
  assert.equal(csr.get("clustertrustbundles")?.namespaced, false);
  assert.equal(csr.get("podcertificaterequests")?.namespaced, true);
  assert.equal(verbs(csr, "podcertificaterequests/status"), "get,patch,update");
  const networking = await resources("networking.k8s.io/v1");
  assert.deepEqual(networking.get("ipaddresses")?.shortNames, ["ip"]);
  assert.ok(networking.has("servicecidrs/status"));
  const storage = await resources("storage.k8s.io/v1");
  assert.deepEqual(storage.get("volumeattributesclasses")?.shortNames, ["vac"]);
  assert.equal(verbs(storage, "csinodes/status"), "get,patch,update");
  const dra = await resources("resource.k8s.io/v1");
  assert.deepEqual([...dra.keys()].sort(), [
    "deviceclasses",
    "devicetaintrules",
    "devicetaintrules/status",
    "resourceclaims",
    "resourceclaims/status",
    "resourceclaimtemplates",
    "resourceslices",
  ]);
  assert.equal(dra.get("resourceclaims")?.namespaced, true);
  assert.equal(dra.get("resourceslices")?.namespaced, false);
  const migration = await resources("storagemigration.k8s.io/v1");
  assert.ok(migration.has("storageversionmigrations/status"));
});

describe("kube's defaults and what its storage adds", () => {
  test("every kind is created, read back and listed", async () => {
    for (const kind of Object.keys(cases)) {
      const created = await create(kind);
      const path = cases[kind].path.replace("{ns}", ns);
      const got = await api.get(`${path}/${created.metadata.name}`);
      assert.equal(got.status, 200, `${kind}: ${got.text}`);
      assert.deepEqual(got.body, created, kind);
      const list = await api.get(path);
      assert.ok(
        list.body.items.some(
          (o: { metadata: { name: string } }) => o.metadata.name === created.metadata.name,
        ),
        kind,
      );
    }
  });

  test("volumes: protection finalizers, Pending phase, reclaim policies and modes", async () => {
    const pv = (await api.get(`/api/v1/persistentvolumes/pv-${ns}`)).body;
    assert.deepEqual(pv.metadata.finalizers, ["kubernetes.io/pv-protection"]);
    assert.equal(pv.status.phase, "Pending");
    assert.equal(pv.spec.persistentVolumeReclaimPolicy, "Retain");
    assert.equal(pv.spec.volumeMode, "Filesystem");
    assert.equal(pv.spec.hostPath.type, "");
    // The finalizer and phase come after the field manager: nobody owns them.
    assert.equal(JSON.stringify(pv.metadata.managedFields).includes("finalizers"), false);
    const claim = await api.post(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "claim" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    });
    assert.equal(claim.status, 201, claim.text);
    assert.deepEqual(claim.body.metadata.finalizers, ["kubernetes.io/pvc-protection"]);
    assert.equal(claim.body.spec.volumeMode, "Filesystem");
    assert.equal(claim.body.status.phase, "Pending");
    const sc = (await api.get(`/apis/storage.k8s.io/v1/storageclasses/sc-${ns}`)).body;
    assert.equal(sc.reclaimPolicy, "Delete");
    assert.equal(sc.volumeBindingMode, "Immediate");
    const driver = (await api.get(`/apis/storage.k8s.io/v1/csidrivers/csi-${ns}.example.com`)).body.spec;
    assert.equal(driver.attachRequired, true);
    assert.equal(driver.fsGroupPolicy, "ReadWriteOnceWithFSType");
    assert.deepEqual(driver.volumeLifecycleModes, ["Persistent"]);
    // SELinuxMountReadWriteOncePod (beta, on, since 1.28) defaults seLinuxMount.
    assert.equal(driver.seLinuxMount, minor >= 28 ? false : undefined);
    // A list without omitempty comes back from etcd's protobuf as null when empty.
    const node = (await api.get(`/apis/storage.k8s.io/v1/csinodes/node-${ns}`)).body;
    assert.equal(node.spec.drivers, null);
  });

  test("workloads beyond apps: RCs, pod templates and CronJobs get pod and controller defaults", async () => {
    const rc = (await api.get(`/api/v1/namespaces/${ns}/replicationcontrollers/rc`)).body;
    assert.equal(rc.spec.replicas, 1);
    assert.deepEqual(rc.spec.selector, { app: "rc" });
    assert.deepEqual(rc.metadata.labels, { app: "rc" });
    assert.equal(rc.metadata.generation, 1);
    assert.equal(rc.spec.template.spec.restartPolicy, "Always");
    // By 1.37 ObjectMeta's creationTimestamp is omitzero: a template's is left out, not null.
    assert.equal(rc.spec.template.metadata.creationTimestamp, minor >= 37 ? undefined : null);
    const fields = rc.metadata.managedFields[0].fieldsV1;
    assert.deepEqual(fields["f:spec"]["f:selector"], {}, "an RC's selector is an atomic map");
    const pt = (await api.get(`/api/v1/namespaces/${ns}/podtemplates/pt`)).body;
    assert.equal(pt.template.spec.containers[0].imagePullPolicy, "Always");
    assert.equal(pt.metadata.generation, 1);
    const cj = (await api.get(`/apis/batch/v1/namespaces/${ns}/cronjobs/cj`)).body;
    assert.equal(cj.spec.concurrencyPolicy, "Allow");
    assert.equal(cj.spec.suspend, false);
    assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
    assert.equal(cj.spec.failedJobsHistoryLimit, 1);
    assert.equal(cj.spec.jobTemplate.spec.template.spec.dnsPolicy, "ClusterFirst");
    const revision = (await api.get(`/apis/apps/v1/namespaces/${ns}/controllerrevisions/cr`)).body;
    assert.deepEqual(revision.metadata.managedFields[0].fieldsV1["f:data"], {}, "a RawExtension is atomic");
  });

  test("policy, scheduling and networking defaults", async () => {
    const lr = (await api.get(`/api/v1/namespaces/${ns}/limitranges/lr`)).body;
    assert.deepEqual(lr.spec.limits[0].defaultRequest, { cpu: "500m" });
    const hpa = (await api.get(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers/hpa`)).body;
    assert.equal(hpa.spec.minReplicas, 1);
    const pc = (await api.get(`/apis/scheduling.k8s.io/v1/priorityclasses/pc-${ns}`)).body;
    assert.equal(pc.preemptionPolicy, "PreemptLowerPriority");
    assert.equal(pc.metadata.generation, 1);
    const np = (await api.get(`/apis/networking.k8s.io/v1/namespaces/${ns}/networkpolicies/np`)).body;
    assert.deepEqual(np.spec.policyTypes, ["Ingress"]);
    const es = (await api.get(`/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices/es`)).body;
    assert.deepEqual(es.ports, [{ name: "", protocol: "TCP", port: 80 }]);
  });

  test("the kinds new since 1.32: kube's defaults, and what it refuses", async () => {
    if (minor < 37) return;
    const claim = (await api.get(`/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims/claim`)).body;
    const request = claim.spec.devices.requests[0].exactly;
    assert.equal(request.allocationMode, "ExactCount");
    assert.equal(request.count, 1);
    const changed = await api.patch(`/apis/resource.k8s.io/v1/namespaces/${ns}/resourceclaims/claim`, {
      spec: { devices: { requests: [{ name: "gpu", exactly: { deviceClassName: "other.example.com" } }] } },
    });
    assert.equal(changed.status, 422, changed.text);
    assert.deepEqual(changed.body.details.causes, [
      { reason: "FieldValueInvalid", message: "Invalid value: null: field is immutable", field: "spec" },
    ]);
    const rule = (await api.get(`/apis/resource.k8s.io/v1/devicetaintrules/dtr-${ns}`)).body;
    assert.match(rule.spec.taint.timeAdded, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const vac = (await api.get(`/apis/storage.k8s.io/v1/volumeattributesclasses/vac-${ns}`)).body;
    assert.deepEqual(vac.metadata.finalizers, ["kubernetes.io/vac-protection"]);
    const retuned = await api.patch(`/apis/storage.k8s.io/v1/volumeattributesclasses/vac-${ns}`, {
      parameters: { iops: "6000" },
    });
    assert.equal(retuned.status, 422, retuned.text);
    assert.equal(retuned.body.details.causes[0].message, "Forbidden: updates to parameters are forbidden.");
    const policy = (
      await api.get(`/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies/map-${ns}`)
    ).body.spec;
    assert.equal(policy.failurePolicy, "Fail");
    assert.equal(policy.matchConstraints.matchPolicy, "Equivalent");
    assert.equal(policy.matchConstraints.resourceRules[0].scope, "*");
    const migration = (await api.get(`/apis/storagemigration.k8s.io/v1/storageversionmigrations/svm-${ns}`))
      .body;
    assert.deepEqual(migration.spec.resource, { group: "", resource: "configmaps" });
    const address = await api.post("/apis/networking.k8s.io/v1/ipaddresses", {
      metadata: { name: `ip-${ns}` },
      spec: { parentRef: { resource: "services", name: "s" } },
    });
    assert.equal(address.status, 422, address.text);
    assert.equal(
      address.body.details.causes[0].message,
      `Invalid value: "ip-${ns}": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
    );
    const range = await api.post("/apis/networking.k8s.io/v1/servicecidrs", {
      metadata: { name: `bits-${ns}` },
      spec: { cidrs: ["10.1.2.3/24"] },
    });
    assert.equal(range.status, 422, range.text);
    assert.deepEqual(range.body.details.causes, [
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "10.1.2.3/24": must not have bits set beyond the prefix length',
        field: "spec.cidrs[0]",
      },
    ]);
    const slice = await api.post("/apis/resource.k8s.io/v1/resourceslices", {
      metadata: { name: `nowhere-${ns}` },
      spec: { driver: "gpu.example.com", pool: { name: "p", resourceSliceCount: 1 } },
    });
    assert.equal(slice.status, 422, slice.text);
    assert.equal(
      slice.body.message,
      `ResourceSlice.resource.k8s.io "nowhere-${ns}" is invalid: spec: Required value: exactly one of \`nodeName\`, \`nodeSelector\`, \`allNodes\`, \`perDeviceNodeSelection\` is required`,
    );
  });

  test("an HPA's behavior, once given, is filled with kube's scaling rules", async () => {
    const r = await api.post(`/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers`, {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "behaved" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "d" },
        maxReplicas: 5,
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.spec.metrics, [
      {
        type: "Resource",
        resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } },
      },
    ]);
    assert.deepEqual(r.body.spec.behavior, {
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: "Max",
        policies: [
          { type: "Pods", value: 4, periodSeconds: 15 },
          { type: "Percent", value: 100, periodSeconds: 15 },
        ],
      },
      scaleDown: {
        stabilizationWindowSeconds: 60,
        selectPolicy: "Max",
        policies: [{ type: "Percent", value: 100, periodSeconds: 15 }],
      },
    });
  });
});

describe("subresources", () => {
  async function pod(name: string) {
    const r = await api.post(`/api/v1/namespaces/${ns}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: { containers: [{ name: "c", image: "nginx" }] },
    });
    assert.equal(r.status, 201, r.text);
    return r.body;
  }

  test("a Binding assigns a Pod to a node once, through pods/binding or bindings", async () => {
    await pod("bound");
    const binding = (name: string, node: string) => ({
      apiVersion: "v1",
      kind: "Binding",
      metadata: { name, annotations: { "scheduled-by": "test" } },
      target: { kind: "Node", name: node },
    });
    const r = await api.post(`/api/v1/namespaces/${ns}/pods/bound/binding`, binding("bound", "n1"));
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      code: 201,
    });
    const got = (await api.get(`/api/v1/namespaces/${ns}/pods/bound`)).body;
    assert.equal(got.spec.nodeName, "n1");
    assert.equal(got.metadata.annotations["scheduled-by"], "test");
    const scheduled = got.status.conditions.find((c: { type: string }) => c.type === "PodScheduled");
    assert.equal(scheduled.status, "True");

    const again = await api.post(`/api/v1/namespaces/${ns}/bindings`, binding("bound", "n2"));
    assert.equal(again.status, 409, again.text);
    assert.equal(
      again.body.message,
      'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "n1"',
    );
    const mismatch = await api.post(`/api/v1/namespaces/${ns}/pods/bound/binding`, binding("other", "n1"));
    assert.equal(mismatch.status, 400, mismatch.text);
    assert.equal(mismatch.body.message, "name in URL does not match name in Binding object");

    await pod("bound-too");
    const viaCollection = await api.post(`/api/v1/namespaces/${ns}/bindings`, binding("bound-too", "n2"));
    assert.equal(viaCollection.status, 201, viaCollection.text);
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/pods/bound-too`)).body.spec.nodeName, "n2");
  });

  test("ephemeral containers are added through their subresource, and only they change", async () => {
    const created = await pod("debugged");
    const r = await api.patch(
      `/api/v1/namespaces/${ns}/pods/debugged/ephemeralcontainers`,
      {
        metadata: { labels: { ignored: "yes" } },
        spec: { ephemeralContainers: [{ name: "debug", image: "busybox", targetContainerName: "c" }] },
      },
      "application/strategic-merge-patch+json",
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.spec.ephemeralContainers[0].name, "debug");
    assert.equal(r.body.metadata.labels, undefined);
    assert.deepEqual(r.body.spec.containers, created.spec.containers);
  });

  test("a resize changes the containers' resources and nothing else", async () => {
    if (minor < 35) return;
    const created = await pod("resized");
    const r = await api.patch(
      `/api/v1/namespaces/${ns}/pods/resized/resize`,
      {
        metadata: { labels: { ignored: "yes" } },
        spec: { containers: [{ name: "c", image: "ignored", resources: { requests: { cpu: "100m" } } }] },
      },
      "application/strategic-merge-patch+json",
    );
    assert.equal(r.status, 200, r.text);
    // A strategic merge into what the Pod had (the namespace's LimitRange defaults, where applied).
    const had = created.spec.containers[0].resources ?? {};
    assert.deepEqual(r.body.spec.containers[0].resources, {
      ...had,
      requests: { ...(had.requests ?? {}), cpu: "100m" },
    });
    assert.equal(r.body.spec.containers[0].image, created.spec.containers[0].image);
    assert.equal(r.body.metadata.labels, undefined);
  });

  test("a CSR records who asked, and is approved through /approval", async () => {
    const csr = (await api.get(`/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-${ns}`)).body;
    assert.equal(typeof csr.spec.username, "string");
    assert.ok(csr.spec.groups.includes("system:authenticated"));
    const path = `/apis/certificates.k8s.io/v1/certificatesigningrequests/csr-${ns}/approval`;
    const approved = await api.put(path, {
      ...csr,
      status: { conditions: [{ type: "Approved", status: "True", reason: "Test", message: "ok" }] },
    });
    assert.equal(approved.status, 200, approved.text);
    const condition = approved.body.status.conditions[0];
    assert.equal(condition.type, "Approved");
    assert.match(condition.lastUpdateTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(condition.lastTransitionTime, condition.lastUpdateTime);
  });

  test("an RC scales through /scale", async () => {
    const path = `/api/v1/namespaces/${ns}/replicationcontrollers/rc/scale`;
    const scale = await api.get(path);
    assert.equal(scale.status, 200, scale.text);
    assert.equal(scale.body.spec.replicas, 1);
    assert.equal(scale.body.status.selector, "app=rc");
    const r = await api.patch(path, { spec: { replicas: 4 } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await api.get(`/api/v1/namespaces/${ns}/replicationcontrollers/rc`)).body.spec.replicas, 4);
  });
});

test("componentstatuses: the control plane's parts as kube-apiserver alone reports them", async () => {
  const list = await api.get("/api/v1/componentstatuses");
  assert.equal(list.status, 200, list.text);
  // kube lists them from a Go map: in any order.
  assert.deepEqual(list.body.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), [
    "controller-manager",
    "etcd-0",
    "scheduler",
  ]);
  const etcd = await api.get("/api/v1/componentstatuses/etcd-0");
  assert.equal(etcd.status, 200, etcd.text);
  assert.equal(etcd.body.conditions[0].type, "Healthy");
  assert.equal(etcd.body.conditions[0].status, "True");
  const scheduler = list.body.items.find(
    (i: { metadata: { name: string } }) => i.metadata.name === "scheduler",
  ).conditions[0];
  assert.equal(scheduler.status, "False");
  assert.match(scheduler.message, /connect: connection refused$/);
  const unknown = await api.get("/api/v1/componentstatuses/nope");
  assert.deepEqual(
    unknown.body,
    versionDifference("kube 1.26 answers an unknown component with a plain 500 'Component not found: nope'")
      ? {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'componentstatus "nope" not found',
          reason: "NotFound",
          details: { name: "nope", kind: "componentstatus" },
          code: 404,
        }
      : {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "Component not found: nope",
          code: 500,
        },
  );
  const discovery = (await api.get("/api/v1")).body.resources.find(
    (r: { name: string }) => r.name === "componentstatuses",
  );
  assert.deepEqual(discovery.verbs.slice().sort(), ["get", "list"]);
  assert.deepEqual(discovery.shortNames, ["cs"]);
});

test("connect subresources answer as kube-apiserver does with no kubelet to reach", async () => {
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const pod = (name: string, extra: object = {}) =>
    api.post(pods, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: { containers: [{ name: "c", image: "nginx" }], ...extra },
    });
  assert.equal((await pod("unscheduled")).status, 201);
  assert.equal((await pod("on-nowhere", { nodeName: `missing-${ns}` })).status, 201);
  const log = await api.get(`${pods}/unscheduled/log`);
  assert.equal(log.status, 204, "a Pod on no node has no logs yet");
  assert.equal(log.text, "");
  const badContainer = await api.get(`${pods}/unscheduled/log?container=zz`);
  assert.equal(badContainer.status, 400);
  assert.equal(badContainer.body.message, "container zz is not valid for pod unscheduled");
  for (const sub of ["exec?command=ls&stdout=true", "attach?stdout=true", "portforward?ports=80"]) {
    const r = await api.post(`${pods}/unscheduled/${sub}`, undefined);
    assert.equal(r.status, 400, `${sub}: ${r.text}`);
    assert.equal(r.body.message, "pod unscheduled does not have a host assigned");
  }
  const nowhere = await api.get(`${pods}/on-nowhere/log`);
  assert.equal(nowhere.status, 404);
  assert.equal(nowhere.body.message, `pods "missing-${ns}" not found`);
  const proxy = await api.get(`${pods}/unscheduled/proxy/healthz`);
  assert.equal(proxy.status, 400);
  assert.equal(proxy.body.message, "address not allowed");
  assert.equal((await api.get(`${pods}/no-such-pod/log`)).status, 404);
});

test("an APIService for each built-in group version, local and available, with kube's priorities", async () => {
  const path = "/apis/apiregistration.k8s.io/v1/apiservices";
  const apps = await api.get(`${path}/v1.apps`);
  assert.equal(apps.status, 200, apps.text);
  assert.deepEqual(apps.body.metadata.labels, { "kube-aggregator.kubernetes.io/automanaged": "onstart" });
  assert.deepEqual(apps.body.spec, {
    group: "apps",
    version: "v1",
    groupPriorityMinimum: 17800,
    versionPriority: 15,
  });
  const available = apps.body.status.conditions[0];
  assert.deepEqual(
    { type: available.type, status: available.status, reason: available.reason, message: available.message },
    { type: "Available", status: "True", reason: "Local", message: "Local APIServices are always available" },
  );
  const names = (await api.get(path)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
  for (const name of ["v1.", "v2.autoscaling", "v1.rbac.authorization.k8s.io", "v1.storage.k8s.io"]) {
    assert.ok(names.includes(name), name);
  }
  const core = (await api.get(`${path}/v1.`)).body.spec;
  assert.deepEqual(core, { version: "v1", groupPriorityMinimum: 18000, versionPriority: 1 });
});
