// Zero values of omitempty fields in built-in objects, as kube-apiserver 1.37.2 treats them: it
// decodes a write into its Go struct before admission, defaulting and managedFields, and Go's
// encoder leaves out an omitempty scalar at its zero value (a container's `stdin: false`,
// `workingDir: ""`, a port's `hostPort: 0`) and an omitempty list or map left empty (a webhook's
// `rules: []`). So they are not in the answer, not in a later GET, and no manager owns them: a PUT
// or patch that only sends zeros changes nothing. A pointer (`*bool`: enableServiceLinks,
// automountServiceAccountToken, a ConfigMap's immutable) keeps its zero; a zero string is
// defaulted as a missing one (`restartPolicy: ""` becomes Always). Server-side apply is the
// exception kube makes: the applier owns what its configuration names, zeros included. The
// literals are kube's answers, recorded from kube-apiserver 1.37.2 with these bodies.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import {
  Api,
  startTarget,
  type Target,
  MUTATING_POLICIES_NOT_SERVED,
  servesMutatingPolicies,
} from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const cleanup: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("zeros");
});
after(async () => {
  for (const path of cleanup) await api.delete(path);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

// biome-ignore lint/suspicious/noExplicitAny: objects as JSON
const fieldsOf = (body: any, manager: string) =>
  // biome-ignore lint/suspicious/noExplicitAny: managedFields entries as JSON
  body.metadata.managedFields.find((e: any) => e.manager === manager)?.fieldsV1;
// biome-ignore lint/suspicious/noExplicitAny: objects as JSON
const managers = (body: any) => body.metadata.managedFields.map((e: { manager: string }) => e.manager);

test("a Pod's zero omitempty fields, in lists too, are gone before defaulting and managedFields", async () => {
  const container = {
    name: "c",
    image: "i",
    stdin: false,
    stdinOnce: false,
    tty: false,
    workingDir: "",
    terminationMessagePath: "",
    ports: [{ containerPort: 80, hostPort: 0, name: "", hostIP: "", protocol: "" }],
    env: [{ name: "E", value: "" }],
  };
  const spec = {
    containers: [container],
    volumes: [{ name: "v", emptyDir: { medium: "" } }],
    hostNetwork: false,
    hostPID: false,
    hostIPC: false,
    nodeName: "",
    enableServiceLinks: false,
    automountServiceAccountToken: false,
    restartPolicy: "",
    dnsPolicy: "",
    schedulerName: "",
    serviceAccountName: "",
    hostname: "",
    subdomain: "",
    shareProcessNamespace: false,
    terminationGracePeriodSeconds: 0,
  };
  const path = `/api/v1/namespaces/${ns}/pods`;
  const created = await api.post(`${path}?fieldManager=creator`, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", generateName: "", labels: { a: "b" } },
    spec,
  });
  assert.equal(created.status, 201, created.text);
  const kubeSpec =
    '{"volumes":[{"name":"v","emptyDir":{}}],"containers":[{"name":"c","image":"i","ports":[{"containerPort":80,"protocol":"TCP"}],"env":[{"name":"E"}],"resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":0,"dnsPolicy":"ClusterFirst","automountServiceAccountToken":false,"shareProcessNamespace":false,"securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":false,"preemptionPolicy":"PreemptLowerPriority"}';
  assert.equal(JSON.stringify(created.body.spec), kubeSpec);
  assert.equal(JSON.stringify((await api.get(`${path}/p`)).body.spec), kubeSpec);
  assert.deepEqual(fieldsOf(created.body, "creator"), {
    "f:metadata": { "f:labels": { ".": {}, "f:a": {} } },
    "f:spec": {
      "f:automountServiceAccountToken": {},
      "f:containers": {
        'k:{"name":"c"}': {
          ".": {},
          "f:env": { ".": {}, 'k:{"name":"E"}': { ".": {}, "f:name": {} } },
          "f:image": {},
          "f:imagePullPolicy": {},
          "f:name": {},
          "f:ports": {
            ".": {},
            'k:{"containerPort":80,"protocol":"TCP"}': { ".": {}, "f:containerPort": {}, "f:protocol": {} },
          },
          "f:resources": {},
          "f:terminationMessagePath": {},
          "f:terminationMessagePolicy": {},
        },
      },
      "f:dnsPolicy": {},
      "f:enableServiceLinks": {},
      "f:restartPolicy": {},
      "f:schedulerName": {},
      "f:securityContext": {},
      "f:shareProcessNamespace": {},
      "f:terminationGracePeriodSeconds": {},
      "f:volumes": { ".": {}, 'k:{"name":"v"}': { ".": {}, "f:emptyDir": {}, "f:name": {} } },
    },
  });
});

const kubeDeploymentSpec =
  '{"replicas":1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler"}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600}';

test("a Deployment's zeros sent by update and every patch change nothing; apply owns the zeros it names", async () => {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const created = await api.post(`${path}?fieldManager=creator`, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: {
      paused: false,
      minReadySeconds: 0,
      selector: { matchLabels: { a: "b" } },
      strategy: { type: "" },
      template: {
        metadata: { labels: { a: "b" } },
        spec: { containers: [{ name: "c", image: "i", tty: false }] },
      },
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(JSON.stringify(created.body.spec), kubeDeploymentSpec);
  const creatorFields = fieldsOf(created.body, "creator");
  assert.equal(
    JSON.stringify(creatorFields),
    '{"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"c\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}',
  );

  const current = (await api.get(`${path}/d`)).body;
  current.spec.paused = false;
  current.spec.template.spec.containers[0].stdin = false;
  current.spec.template.spec.containers[0].workingDir = "";
  const writes = [
    ["PUT", "putter", current, "application/json"],
    [
      "PATCH",
      "merger",
      { spec: { minReadySeconds: 0, template: { spec: { hostNetwork: false } } } },
      "application/merge-patch+json",
    ],
    [
      "PATCH",
      "strategic",
      { spec: { template: { spec: { containers: [{ name: "c", stdinOnce: false, tty: false }] } } } },
      "application/strategic-merge-patch+json",
    ],
    [
      "PATCH",
      "jsonpatch",
      [
        { op: "add", path: "/spec/paused", value: false },
        { op: "add", path: "/spec/template/spec/nodeName", value: "" },
      ],
      "application/json-patch+json",
    ],
  ] as const;
  for (const [method, manager, body, contentType] of writes) {
    const r = await api.call(method, `${path}/d?fieldManager=${manager}`, body, { contentType });
    assert.equal(r.status, 200, `${manager}: ${r.text}`);
    assert.equal(JSON.stringify(r.body.spec), kubeDeploymentSpec, manager);
    // Nothing changed: no generation bump, no entry for the writer.
    assert.equal(r.body.metadata.generation, 1, manager);
    assert.deepEqual(managers(r.body), ["creator"], manager);
  }

  const applied = await api.call(
    "PATCH",
    `${path}/d?fieldManager=applier&force=true`,
    JSON.stringify({
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: {
        paused: false,
        minReadySeconds: 0,
        selector: { matchLabels: { a: "b" } },
        template: {
          metadata: { labels: { a: "b" } },
          spec: {
            hostIPC: false,
            containers: [{ name: "c", image: "i", tty: false, ports: [{ containerPort: 80, hostPort: 0 }] }],
          },
        },
      },
    }),
    { contentType: "application/apply-patch+yaml" },
  );
  assert.equal(applied.status, 200, applied.text);
  // The object has no zeros; the applier's entry names them all.
  assert.equal(
    JSON.stringify(applied.body.spec),
    kubeDeploymentSpec.replace(
      '"image":"i","resources"',
      '"image":"i","ports":[{"containerPort":80,"protocol":"TCP"}],"resources"',
    ),
  );
  assert.deepEqual(managers(applied.body), ["applier", "creator"]);
  assert.deepEqual(fieldsOf(applied.body, "applier"), {
    "f:spec": {
      "f:minReadySeconds": {},
      "f:paused": {},
      "f:selector": {},
      "f:template": {
        "f:metadata": { "f:labels": { "f:a": {} } },
        "f:spec": {
          "f:containers": {
            'k:{"name":"c"}': {
              ".": {},
              "f:image": {},
              "f:name": {},
              "f:ports": {
                'k:{"containerPort":80,"protocol":"TCP"}': {
                  ".": {},
                  "f:containerPort": {},
                  "f:hostPort": {},
                },
              },
              "f:tty": {},
            },
          },
          "f:hostIPC": {},
        },
      },
    },
  });
  assert.deepEqual(fieldsOf(applied.body, "creator"), creatorFields);
  const got = (await api.get(`${path}/d`)).body;
  assert.equal(JSON.stringify(got.spec), JSON.stringify(applied.body.spec));
});

test("zeros of other kinds: Service, ConfigMap, Secret, Node, Event, webhook configuration", async () => {
  // biome-ignore lint/suspicious/noExplicitAny: objects as JSON
  const create = async (path: string, obj: any) => {
    const r = await api.post(`${path}?fieldManager=creator`, obj);
    assert.equal(r.status, 201, r.text);
    const { metadata, ...rest } = r.body;
    return { rest, fields: fieldsOf(r.body, "creator") };
  };
  const svc = await create(`/api/v1/namespaces/${ns}/services`, {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "s" },
    spec: {
      publishNotReadyAddresses: false,
      sessionAffinity: "",
      externalName: "",
      ports: [{ name: "", port: 80, nodePort: 0, protocol: "" }],
      selector: { a: "b" },
    },
  });
  const { clusterIP: _ip, clusterIPs: _ips, ...svcSpec } = svc.rest.spec;
  assert.equal(
    JSON.stringify(svcSpec),
    '{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"selector":{"a":"b"},"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","internalTrafficPolicy":"Cluster"}',
  );
  assert.deepEqual(svc.fields, {
    "f:spec": {
      "f:internalTrafficPolicy": {},
      "f:ports": {
        ".": {},
        'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {}, "f:protocol": {}, "f:targetPort": {} },
      },
      "f:selector": {},
      "f:sessionAffinity": {},
      "f:type": {},
    },
  });

  // immutable is a *bool: its false stays.
  const cm = await create(`/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cm", generation: 0 },
    immutable: false,
    data: { a: "" },
  });
  assert.equal(
    JSON.stringify(cm.rest),
    '{"kind":"ConfigMap","apiVersion":"v1","immutable":false,"data":{"a":""}}',
  );
  assert.deepEqual(cm.fields, { "f:data": { ".": {}, "f:a": {} }, "f:immutable": {} });

  const secret = await create(`/api/v1/namespaces/${ns}/secrets`, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "sec" },
    type: "",
    stringData: { a: "" },
  });
  assert.equal(
    JSON.stringify(secret.rest),
    '{"kind":"Secret","apiVersion":"v1","data":{"a":""},"type":"Opaque"}',
  );
  assert.deepEqual(secret.fields, { "f:data": { ".": {}, "f:a": {} }, "f:type": {} });

  const nodeName = `zeros-${ns}`;
  cleanup.push(`/api/v1/nodes/${nodeName}`);
  const nodeReply = await api.post("/api/v1/nodes?fieldManager=creator", {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: nodeName },
    spec: { unschedulable: false, podCIDR: "", providerID: "" },
  });
  assert.equal(nodeReply.status, 201, nodeReply.text);
  // Nothing the creator sent survives: it has no entry at all.
  assert.equal(nodeReply.body.metadata.managedFields, undefined);
  assert.equal(
    JSON.stringify(nodeReply.body.spec),
    '{"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]}',
  );

  const event = await create(`/api/v1/namespaces/${ns}/events`, {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "e" },
    involvedObject: { kind: "Pod", name: "p", namespace: ns, fieldPath: "" },
    reason: "",
    message: "m",
    count: 0,
    type: "Normal",
    source: { component: "", host: "" },
  });
  assert.equal(
    JSON.stringify(event.rest),
    `{"kind":"Event","apiVersion":"v1","involvedObject":{"kind":"Pod","namespace":"${ns}","name":"p"},"message":"m","source":{},"firstTimestamp":null,"lastTimestamp":null,"type":"Normal","eventTime":null,"reportingComponent":"","reportingInstance":""}`,
  );
  assert.deepEqual(event.fields, { "f:involvedObject": {}, "f:message": {}, "f:type": {} });

  const vwcName = `zeros-${ns}`;
  const vwcPath = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
  cleanup.push(`${vwcPath}/${vwcName}`);
  const vwc = await create(vwcPath, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: vwcName },
    webhooks: [
      {
        name: "a.b.c",
        clientConfig: { url: "https://x.example.com/" },
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        rules: [],
      },
    ],
  });
  assert.equal(
    JSON.stringify(vwc.rest.webhooks),
    '[{"name":"a.b.c","clientConfig":{"url":"https://x.example.com/"},"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1"]}]',
  );
  assert.deepEqual(vwc.fields, {
    "f:webhooks": {
      ".": {},
      'k:{"name":"a.b.c"}': {
        ".": {},
        "f:admissionReviewVersions": {},
        "f:clientConfig": { ".": {}, "f:url": {} },
        "f:failurePolicy": {},
        "f:matchPolicy": {},
        "f:name": {},
        "f:namespaceSelector": {},
        "f:objectSelector": {},
        "f:sideEffects": {},
        "f:timeoutSeconds": {},
      },
    },
  });
});

test("admission sees the decoded object: a policy finds no paused: false", async (t) => {
  if (!(await servesMutatingPolicies(api))) return t.skip(MUTATING_POLICIES_NOT_SERVED);
  const name = `zeros-${ns}`;
  const policies = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies";
  const bindings = "/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicybindings";
  for (const [collection, obj] of [
    [
      policies,
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicy",
        metadata: { name },
        spec: {
          matchConstraints: {
            resourceRules: [
              {
                apiGroups: ["apps"],
                apiVersions: ["v1"],
                operations: ["CREATE"],
                resources: ["deployments"],
              },
            ],
            objectSelector: { matchLabels: { zeros: ns } },
          },
          reinvocationPolicy: "Never",
          // What the policy sees of the fields sent as zeros.
          mutations: [
            {
              patchType: "ApplyConfiguration",
              applyConfiguration: {
                expression: `Object{metadata: Object.metadata{annotations: {
                  "paused": string(has(object.spec.paused)),
                  "tty": string(has(object.spec.template.spec.containers[0].tty)),
                  "restartPolicy": string(object.spec.template.spec.restartPolicy)}}}`,
              },
            },
          ],
        },
      },
    ],
    [
      bindings,
      {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "MutatingAdmissionPolicyBinding",
        metadata: { name },
        spec: { policyName: name },
      },
    ],
  ] as const) {
    const r = await api.post(collection, obj);
    assert.equal(r.status, 201, r.text);
    cleanup.push(`${collection}/${name}`);
  }
  const deployment = (paused: boolean) => ({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: paused ? "paused" : "zeros", labels: { zeros: ns } },
    spec: {
      paused,
      selector: { matchLabels: { a: "b" } },
      template: {
        metadata: { labels: { a: "b" } },
        spec: { restartPolicy: "", containers: [{ name: "c", image: "i", tty: paused }] },
      },
    },
  });
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  // The policy takes effect once the server has seen it (kube: from an informer, a moment later).
  await eventually(
    "the policy annotates deployments",
    async () => {
      const r = await api.post(`${path}?dryRun=All`, deployment(true));
      return r.body?.metadata?.annotations?.paused === "true";
    },
    { timeoutMs: 30_000 },
  );
  const r = await api.post(path, deployment(false));
  assert.equal(r.status, 201, r.text);
  // Decoded (no zeros) and defaulted (restartPolicy Always) before the policy ran.
  assert.deepEqual(r.body.metadata.annotations, { paused: "false", restartPolicy: "Always", tty: "false" });
});

test("a Deployment's replicas: 0 is kept (a pointer); its Scale's is not (an omitempty int32)", async () => {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const created = await api.post(path, {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "none" },
    spec: {
      replicas: 0,
      selector: { matchLabels: { a: "b" } },
      template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "i" }] } },
    },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.spec.replicas, 0);
  const scale = await api.get(`${path}/none/scale`);
  assert.equal(scale.status, 200, scale.text);
  assert.deepEqual(scale.body.spec, {});
  const put = await api.put(`${path}/none/scale`, {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: { name: "none" },
    spec: { replicas: 0 },
  });
  assert.equal(put.status, 200, put.text);
  assert.equal(JSON.stringify(put.body.spec), "{}");
  assert.equal(JSON.stringify(put.body.status), '{"replicas":0,"selector":"a=b"}');
});
