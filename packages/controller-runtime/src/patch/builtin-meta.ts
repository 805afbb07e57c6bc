// Strategic-merge metadata of the built-in kinds the embedded server serves: the patchStrategy and
// patchMergeKey struct tags of k8s.io/api, as one shared table per Go type (PodSpec, Container,
// ObjectMeta, ...) reused wherever that type appears.
import type { PatchMeta } from "./patch-meta.js";

const mergeBy = (mergeKey: string, items?: PatchMeta): PatchMeta =>
  items ? { strategy: "merge", mergeKey, items } : { strategy: "merge", mergeKey };
const mergeSet: PatchMeta = { strategy: "merge" };
const conditions = mergeBy("type");

function freeze(meta: PatchMeta): PatchMeta {
  if (meta.fields) for (const v of Object.values(meta.fields)) freeze(v);
  if (meta.items) freeze(meta.items);
  return Object.freeze(meta);
}

const OBJECT_META: PatchMeta = {
  fields: { ownerReferences: mergeBy("uid"), finalizers: mergeSet },
};

// Container and EphemeralContainer share these tags (EphemeralContainerCommon mirrors Container).
const CONTAINER: PatchMeta = {
  fields: {
    ports: mergeBy("containerPort"),
    env: mergeBy("name"),
    volumeMounts: mergeBy("mountPath"),
    volumeDevices: mergeBy("devicePath"),
  },
};

const POD_SPEC: PatchMeta = {
  fields: {
    volumes: { strategy: "merge,retainKeys", mergeKey: "name" },
    initContainers: mergeBy("name", CONTAINER),
    containers: mergeBy("name", CONTAINER),
    ephemeralContainers: mergeBy("name", CONTAINER),
    imagePullSecrets: mergeBy("name"),
    hostAliases: mergeBy("ip"),
    topologySpreadConstraints: mergeBy("topologyKey"),
    schedulingGates: mergeBy("name"),
    resourceClaims: { strategy: "merge,retainKeys", mergeKey: "name" },
  },
};

const POD_STATUS: PatchMeta = {
  fields: {
    conditions,
    podIPs: mergeBy("ip"),
    hostIPs: mergeBy("ip"),
    resourceClaimStatuses: { strategy: "merge,retainKeys", mergeKey: "name" },
  },
};

const POD_TEMPLATE_SPEC: PatchMeta = { fields: { metadata: OBJECT_META, spec: POD_SPEC } };
const STATUS_WITH_CONDITIONS: PatchMeta = { fields: { conditions } };

const object = (spec?: PatchMeta, status?: PatchMeta, more?: Record<string, PatchMeta>): PatchMeta => {
  const fields: Record<string, PatchMeta> = { metadata: OBJECT_META, ...more };
  if (spec) fields.spec = spec;
  if (status) fields.status = status;
  return { fields };
};

const withTemplate: PatchMeta = { fields: { template: POD_TEMPLATE_SPEC } };
const JOB_SPEC: PatchMeta = { fields: { template: POD_TEMPLATE_SPEC } };
const WEBHOOKS = { webhooks: mergeBy("name") };

const TABLE: Readonly<Record<string, PatchMeta>> = {
  "/v1/Pod": object(POD_SPEC, POD_STATUS),
  "/v1/PodTemplate": object(undefined, undefined, { template: POD_TEMPLATE_SPEC }),
  "/v1/ReplicationController": object(withTemplate, STATUS_WITH_CONDITIONS),
  "/v1/Service": object({ fields: { ports: mergeBy("port") } }, STATUS_WITH_CONDITIONS),
  "/v1/ConfigMap": object(),
  "/v1/Secret": object(),
  "/v1/ServiceAccount": object(undefined, undefined, { secrets: mergeBy("name") }),
  "/v1/Namespace": object(undefined, STATUS_WITH_CONDITIONS),
  "/v1/Node": object(
    { fields: { podCIDRs: mergeSet } },
    { fields: { conditions, addresses: mergeBy("type") } },
  ),
  "/v1/Event": object(),
  "/v1/Endpoints": object(),
  "/v1/PersistentVolumeClaim": object(undefined, STATUS_WITH_CONDITIONS),
  "apps/v1/Deployment": object(withTemplate, STATUS_WITH_CONDITIONS),
  "apps/v1/ReplicaSet": object(withTemplate, STATUS_WITH_CONDITIONS),
  "apps/v1/StatefulSet": object(withTemplate, STATUS_WITH_CONDITIONS),
  "apps/v1/DaemonSet": object(withTemplate, STATUS_WITH_CONDITIONS),
  "batch/v1/Job": object(JOB_SPEC, STATUS_WITH_CONDITIONS),
  "batch/v1/CronJob": object({
    fields: { jobTemplate: { fields: { metadata: OBJECT_META, spec: JOB_SPEC } } },
  }),
  "coordination.k8s.io/v1/Lease": object(),
  "events.k8s.io/v1/Event": object(),
  "admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": object(undefined, undefined, WEBHOOKS),
  "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration": object(undefined, undefined, WEBHOOKS),
  "rbac.authorization.k8s.io/v1/Role": object(),
  "rbac.authorization.k8s.io/v1/ClusterRole": object(),
  "rbac.authorization.k8s.io/v1/RoleBinding": object(),
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": object(),
  "apiextensions.k8s.io/v1/CustomResourceDefinition": object(),
};
for (const meta of Object.values(TABLE)) freeze(meta);

/**
 * The strategic-merge metadata of a built-in kind (`group` is "" for the core group), or
 * `undefined` for kinds that are not built in: kube-apiserver answers 415 to a strategic merge
 * patch of a custom resource. The result is frozen and shared.
 */
export function builtinPatchMeta(group: string, version: string, kind: string): PatchMeta | undefined {
  const key = `${group}/${version}/${kind}`;
  return Object.hasOwn(TABLE, key) ? TABLE[key] : undefined;
}
