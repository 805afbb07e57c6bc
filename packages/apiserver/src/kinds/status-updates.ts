// What kube's status strategies check on a write through /status (ValidateXStatusUpdate in
// pkg/apis/*/validation): counts not negative nor past the replicas they count, a collision
// count never decremented, load balancer addresses, conditions. A controller writing a status
// kube refuses must be refused here too, or its tests pass and production fails. A status
// write's metadata is checked as any update's; its spec is the stored one.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { dns1035LabelErrors } from "../object/names.js";
import { parseQuantity } from "../object/quantity.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { metaConditionCauses } from "./conditions.js";
import { isIntegerResourceName } from "./resource-names.js";
import {
  persistentVolumeClaimStatusCauses,
  prepareNodeStatus,
  preparePersistentVolumeClaimStatus,
  preparePersistentVolumeStatus,
} from "./core-status.js";
import { jobStatusCauses } from "./job-status.js";
import { podStatusCauses, preparePodStatus } from "./pod-status.js";
import { resourceClaimStatusCauses } from "./resource-claim-status.js";
import { ingressStatus, serviceStatus } from "./load-balancer-status.js";
import {
  daemonSet,
  deployment,
  horizontalPodAutoscaler,
  NEGATIVE,
  podDisruptionBudget,
  replicaSet,
  type StatusRule,
  statefulSet,
} from "./workload-status.js";

const namespace: StatusRule = (s, _old, obj) => {
  const deleting = !!(obj.metadata as Obj | undefined)?.deletionTimestamp;
  const phase = typeof s.phase === "string" ? s.phase : "";
  if (!deleting && phase !== "Active")
    return [cause.invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  if (deleting && phase !== "Terminating")
    return [
      cause.invalid("status.Phase", phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"),
    ];
  return [];
};

const QUOTA_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.storage",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "persistentvolumeclaims",
  "configmaps",
  "services.nodeports",
  "services.loadbalancers",
]);
/** ValidateResourceQuotaResourceName and ValidateResourceQuantityValue of one quota entry. */
function quotaEntryCauses(name: string, value: unknown, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const nameErrors = qualifiedNameErrors(name);
  for (const m of nameErrors) causes.push(cause.invalid(at, name, m));
  const standard =
    QUOTA_RESOURCES.has(name) || name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
  if (nameErrors.length === 0 && !name.includes("/") && !standard) {
    if (name !== "storage" && name !== "requests.storage")
      causes.push(cause.invalid(at, name, "must be a standard resource type or fully qualified"));
    causes.push(cause.invalid(at, name, "must be a standard resource for quota"));
  }
  const text = String(value);
  let amount: ReturnType<typeof parseQuantity> | undefined;
  try {
    amount = parseQuantity(text);
  } catch {
    return causes;
  }
  if (amount.n < 0n) causes.push(cause.invalid(at, text, NEGATIVE));
  const integer = isIntegerResourceName(name);
  // Normalized, an amount with a negative scale has a fraction.
  if (integer && amount.scale < 0) causes.push(cause.invalid(at, text, "must be an integer"));
  return causes;
}

const resourceQuota: StatusRule = (s) => {
  const causes: StatusCause[] = [];
  for (const part of ["hard", "used"]) {
    const m = s[part];
    if (m === null || typeof m !== "object") continue;
    for (const [k, v] of Object.entries(m as Obj))
      causes.push(...quotaEntryCauses(k, v, `status.${part}[${k}]`));
  }
  return causes;
};

/** ValidateCustomResourceDefinitionNames of a CRD's accepted names. */
const customResourceDefinition: StatusRule = (s) => {
  const causes: StatusCause[] = [];
  const names = (s.acceptedNames ?? {}) as Obj;
  const at = "status.acceptedNames";
  const label = (value: unknown, field: string, mixedCase = false) => {
    if (typeof value !== "string" || value === "") return;
    const errors = dns1035LabelErrors(mixedCase ? value.toLowerCase() : value);
    if (errors.length === 0) return;
    const detail = errors.join(",");
    causes.push(
      cause.invalid(
        `${at}.${field}`,
        value,
        mixedCase ? `may have mixed case, but should otherwise match: ${detail}` : detail,
      ),
    );
  };
  label(names.plural, "plural");
  label(names.singular, "singular");
  label(names.kind, "kind", true);
  label(names.listKind, "listKind", true);
  const each = (v: unknown) => (Array.isArray(v) ? v : []);
  for (const [i, n] of each(names.shortNames).entries()) label(n, `shortNames[${i}]`);
  if (names.kind && names.kind === names.listKind)
    causes.push(cause.invalid(`${at}.listKind`, names.listKind, "kind and listKind may not be the same"));
  for (const [i, n] of each(names.categories).entries()) label(n, `categories[${i}]`);
  return causes;
};

/** SVM's ValidateStorageVersionMigrationStatusUpdate: a resource version once set, and final conditions. */
const storageVersionMigration: StatusRule = (s, old) => {
  const causes = metaConditionCauses(s.conditions, "status.conditions");
  const rv = typeof s.resourceVersion === "string" ? s.resourceVersion : "";
  if (rv !== "" && !/^\d+$/.test(rv))
    causes.push(cause.invalid("status.resourceVersion", rv, `resource version is not well formed: ${rv}`));
  const oldRV = typeof old.resourceVersion === "string" ? old.resourceVersion : "";
  if (oldRV !== "" && oldRV !== rv)
    causes.push(cause.invalid("status.resourceVersion", rv, "field is immutable"));
  const isTrue = (st: Obj, type: string) =>
    Array.isArray(st.conditions) &&
    (st.conditions as (Obj | null)[]).find((c) => c?.type === type)?.status === "True";
  if (isTrue(s, "Succeeded") && isTrue(s, "Failed"))
    causes.push(
      cause.invalid(
        "status.conditions",
        s.conditions,
        "Both success and failed conditions cannot be true at the same time",
      ),
    );
  if (isTrue(old, "Succeeded") && !isTrue(s, "Succeeded"))
    causes.push(
      cause.invalid(
        "status.conditions",
        s.conditions,
        "Success condition cannot be set to false once it is true",
      ),
    );
  if (isTrue(old, "Failed") && !isTrue(s, "Failed"))
    causes.push(
      cause.invalid(
        "status.conditions",
        s.conditions,
        "Failed condition cannot be set to false once it is true",
      ),
    );
  return causes;
};

const DEVICE_TAINT_RULE_MAX_CONDITIONS = 8;

const deviceTaintRule: StatusRule = (s) => {
  const causes = metaConditionCauses(s.conditions, "status.conditions");
  const n = Array.isArray(s.conditions) ? s.conditions.length : 0;
  if (n > DEVICE_TAINT_RULE_MAX_CONDITIONS)
    causes.push({
      reason: "FieldValueTooMany",
      message: `Too many: ${n}: must have at most ${DEVICE_TAINT_RULE_MAX_CONDITIONS} items`,
      field: "status.conditions",
    });
  return causes;
};

/**
 * validateValidatingAdmissionPolicyStatus: the type checker's warnings name a field and say
 * something, and the conditions are metav1's.
 */
const validatingAdmissionPolicy: StatusRule = (s) => {
  const causes: StatusCause[] = [];
  const warnings = (s.typeChecking as Obj | undefined)?.expressionWarnings;
  if (Array.isArray(warnings)) {
    warnings.forEach((w, i) => {
      const at = `status.typeChecking.expressionWarnings[${i}]`;
      const warning = (w ?? {}) as Obj;
      if (typeof warning.warning !== "string" || warning.warning === "")
        causes.push(cause.required(`${at}.warning`));
      if (typeof warning.fieldRef !== "string" || warning.fieldRef.trim() === "")
        causes.push(cause.required(`${at}.fieldRef`));
    });
  }
  causes.push(...metaConditionCauses(s.conditions, "status.conditions"));
  return causes;
};

/** The status rules by kind (`group/Kind`, core's group ""). */
export const statusRules: Record<string, StatusRule> = {
  "apps/Deployment": deployment,
  "apps/StatefulSet": statefulSet,
  "apps/DaemonSet": daemonSet,
  "apps/ReplicaSet": replicaSet,
  "/ReplicationController": replicaSet,
  "autoscaling/HorizontalPodAutoscaler": horizontalPodAutoscaler,
  "policy/PodDisruptionBudget": podDisruptionBudget,
  "/Namespace": namespace,
  "/ResourceQuota": resourceQuota,
  "/Service": serviceStatus,
  "networking.k8s.io/Ingress": ingressStatus,
  "/Pod": (_s, _old, obj, old) => podStatusCauses(obj, old),
  "batch/Job": (_s, _old, obj, old) => jobStatusCauses(obj, old),
  "/PersistentVolumeClaim": (_s, _old, obj) => persistentVolumeClaimStatusCauses(obj),
  "apiextensions.k8s.io/CustomResourceDefinition": customResourceDefinition,
  "storagemigration.k8s.io/StorageVersionMigration": storageVersionMigration,
  "resource.k8s.io/DeviceTaintRule": deviceTaintRule,
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy": validatingAdmissionPolicy,
  "resource.k8s.io/ResourceClaim": (_s, _old, obj, old) => resourceClaimStatusCauses(obj, old),
};

/** What kube's status strategies (PrepareForUpdate) keep of the stored status, by kind. */
const statusPrepares: Record<string, (obj: Obj, old: Readonly<Obj>) => void> = {
  "/Pod": preparePodStatus,
  "/PersistentVolumeClaim": preparePersistentVolumeClaimStatus,
  "/PersistentVolume": preparePersistentVolumeStatus,
  "/Node": prepareNodeStatus,
};

/** A write through /status of `obj` over `old`, after defaulting: what the status strategy keeps. */
export function prepareStatusWrite(key: string, obj: Obj, old: Readonly<Obj>): void {
  statusPrepares[key]?.(obj, old);
}

/** The causes kube's status strategy finds in a write through /status of `obj` over `old`. */
export function statusUpdateCauses(key: string, obj: Obj, old: Readonly<Obj>): StatusCause[] {
  const rule = statusRules[key];
  if (!rule) return [];
  const status = (obj.status ?? {}) as Obj;
  const oldStatus = (old.status ?? {}) as Obj;
  return rule(status, oldStatus, obj, old);
}
