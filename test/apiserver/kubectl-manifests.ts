// Manifests of every built-in kind the embedded server serves (and a CRD with a custom
// resource), each with what kubectl's client-side validation and the server's checks require.
// `ns` is the namespace of namespaced objects; `id` makes cluster-scoped names unique.

export function builtinManifests(ns: string, id: string): object[] {
  const meta = (name: string) => ({ name, namespace: ns });
  const labels = { app: "web" };
  const podSpec = { containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }] }] };
  const template = { metadata: { labels }, spec: podSpec };
  const webhook = {
    name: `hook.${id}.example.com`,
    clientConfig: { url: "https://127.0.0.1:9443/hook" },
    sideEffects: "None",
    admissionReviewVersions: ["v1"],
  };
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: meta("cm"), data: { a: "1" } },
    { apiVersion: "v1", kind: "Secret", metadata: meta("secret"), data: { password: "eA==" } },
    { apiVersion: "v1", kind: "ServiceAccount", metadata: meta("sa") },
    {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: meta("ep"),
      // The protocol given: kube defaults it, and a re-apply of the (atomic) subsets without it
      // is "configured" against kube-apiserver too.
      subsets: [{ addresses: [{ ip: "10.0.0.1" }], ports: [{ port: 80, protocol: "TCP" }] }],
    },
    {
      apiVersion: "v1",
      kind: "Event",
      metadata: meta("ev"),
      involvedObject: { kind: "ConfigMap", name: "cm", namespace: ns },
      reason: "Tested",
      message: "by kubectl apply",
      type: "Normal",
    },
    { apiVersion: "v1", kind: "Node", metadata: { name: `node-${id}` }, spec: { unschedulable: true } },
    {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: meta("pvc"),
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
    },
    { apiVersion: "v1", kind: "Pod", metadata: meta("pod"), spec: podSpec },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: meta("svc"),
      spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: meta("deploy"),
      spec: { replicas: 1, selector: { matchLabels: labels }, template },
    },
    {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: meta("rs"),
      spec: { replicas: 1, selector: { matchLabels: labels }, template },
    },
    {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: meta("sts"),
      spec: { serviceName: "svc", replicas: 1, selector: { matchLabels: labels }, template },
    },
    {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: meta("ds"),
      spec: { selector: { matchLabels: labels }, template },
    },
    {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: meta("job"),
      spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } },
    },
    {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: meta("lease"),
      spec: { holderIdentity: "me", leaseDurationSeconds: 15 },
    },
    {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: meta("ev2"),
      eventTime: "2024-01-01T00:00:00.000000Z",
      reportingController: "example.com/test",
      reportingInstance: "test-1",
      action: "Testing",
      reason: "Tested",
      type: "Normal",
      regarding: { kind: "ConfigMap", name: "cm", namespace: ns },
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta("role"),
      rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta("rb"),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "role" },
      subjects: [{ kind: "ServiceAccount", name: "sa", namespace: ns }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name: `cr-${id}` },
      rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["list"] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name: `crb-${id}` },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `cr-${id}` },
      subjects: [{ kind: "ServiceAccount", name: "sa", namespace: ns }],
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: `vwc-${id}` },
      webhooks: [webhook],
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: `mwc-${id}` },
      webhooks: [webhook],
    },
  ];
}

/** A CRD with a printer column, in group `<id>.example.com`. */
export function printerCrd(id: string): object {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `dials.${id}.example.com` },
    spec: {
      group: `${id}.example.com`,
      names: { kind: "Dial", plural: "dials", shortNames: [`dl${id}`] },
      scope: "Namespaced",
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Setting", type: "integer", jsonPath: ".spec.setting" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: { setting: { type: "integer", minimum: 0 }, label: { type: "string" } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export function dial(ns: string, id: string, name: string, spec: Record<string, unknown>): object {
  return { apiVersion: `${id}.example.com/v1`, kind: "Dial", metadata: { name, namespace: ns }, spec };
}

/** Several manifests as one JSON document stream (a `kind: List`), which every kubectl reads. */
export function list(items: object[]): string {
  return JSON.stringify({ apiVersion: "v1", kind: "List", items });
}
