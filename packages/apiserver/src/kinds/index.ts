// kinds: per-kind behaviour of built-in resources (defaults, validation, deletion rules).
import { apiServiceBehaviour } from "./apiservice.js";
import {
  validatingAdmissionPolicyBehaviour,
  validatingAdmissionPolicyBindingBehaviour,
} from "./admission-policies.js";
import { validateCRD } from "../crd/index.js";
import {
  deviceClassBehaviour,
  deviceTaintRuleBehaviour,
  resourceClaimBehaviour,
  resourceClaimTemplateBehaviour,
  resourceSliceBehaviour,
} from "./dynamic-resources.js";
import {
  mutatingAdmissionPolicyBehaviour,
  mutatingAdmissionPolicyBindingBehaviour,
} from "./mutating-admission-policies.js";
import { ipAddressBehaviour, serviceCIDRBehaviour } from "./service-cidrs.js";
import { storageVersionMigrationBehaviour } from "./storage-version-migration.js";
import { clusterTrustBundleBehaviour, podCertificateRequestBehaviour } from "./trust-bundles.js";
import { volumeAttributesClassBehaviour } from "./volume-attributes-class.js";
import type { ResourceDefinition } from "../registry/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { configMapBehaviour, secretBehaviour } from "./config-data.js";
import { crdBehaviour } from "./crd.js";
import { eventBehaviour, eventsV1Behaviour } from "./event.js";
import { endpointsBehaviour } from "./endpoints.js";
import { flowSchemaBehaviour, priorityLevelConfigurationBehaviour } from "./flowcontrol.js";
import { leaseBehaviour } from "./lease.js";
import { podDisruptionBudgetBehaviour, runtimeClassBehaviour } from "./policy.js";
import { canonicalizeQuantities } from "./quantities.js";
import { namespaceBehaviour } from "./namespace.js";
import { nodeBehaviour, podBehaviour } from "./pod.js";
import { rbacBehaviours } from "./rbac.js";
import { serviceBehaviour } from "./service.js";
import { prepareStatusWrite, statusUpdateCauses } from "./status-updates.js";
import {
  mutatingWebhookConfigurationBehaviour,
  validatingWebhookConfigurationBehaviour,
} from "./webhook-configurations.js";
import {
  controllerRevisionBehaviour,
  cronJobBehaviour,
  daemonSetBehaviour,
  deploymentBehaviour,
  jobBehaviour,
  podTemplateBehaviour,
  replicaSetBehaviour,
  replicationControllerBehaviour,
  statefulSetBehaviour,
} from "./workloads.js";
import { certificateSigningRequestBehaviour } from "./certificates.js";
import {
  endpointSliceBehaviour,
  ingressBehaviour,
  ingressClassBehaviour,
  networkPolicyBehaviour,
} from "./networking.js";
import {
  horizontalPodAutoscalerBehaviour,
  horizontalPodAutoscalerV1Behaviour,
  limitRangeBehaviour,
  priorityClassBehaviour,
} from "./scheduling.js";
import {
  csiDriverBehaviour,
  csiStorageCapacityBehaviour,
  persistentVolumeBehaviour,
  persistentVolumeClaimBehaviour,
  storageClassBehaviour,
  volumeAttachmentBehaviour,
} from "./storage.js";

export type { KindBehaviour } from "./behaviour.js";
export { crdCleanupFinalizer } from "./crd.js";
export { knownTopLevelFields, unknownTopLevelFields } from "./fields.js";

const none: KindBehaviour = {};

const byKind: Record<string, KindBehaviour> = {
  "/Namespace": namespaceBehaviour,
  "/Pod": podBehaviour,
  "/Node": nodeBehaviour,
  "/Service": serviceBehaviour,
  "/Secret": secretBehaviour,
  "/ConfigMap": configMapBehaviour,
  "/Event": eventBehaviour,
  "events.k8s.io/Event": eventsV1Behaviour,
  "apps/Deployment": deploymentBehaviour,
  "apps/ReplicaSet": replicaSetBehaviour,
  "apps/StatefulSet": statefulSetBehaviour,
  "apps/DaemonSet": daemonSetBehaviour,
  "batch/Job": jobBehaviour,
  "batch/CronJob": cronJobBehaviour,
  "/ReplicationController": replicationControllerBehaviour,
  "/PodTemplate": podTemplateBehaviour,
  "/LimitRange": limitRangeBehaviour,
  "networking.k8s.io/Ingress": ingressBehaviour,
  "networking.k8s.io/IngressClass": ingressClassBehaviour,
  "node.k8s.io/RuntimeClass": runtimeClassBehaviour,
  "policy/PodDisruptionBudget": podDisruptionBudgetBehaviour,
  "storage.k8s.io/CSIStorageCapacity": csiStorageCapacityBehaviour,
  "storage.k8s.io/VolumeAttachment": volumeAttachmentBehaviour,
  "/Endpoints": endpointsBehaviour,
  "apps/ControllerRevision": controllerRevisionBehaviour,
  "coordination.k8s.io/Lease": leaseBehaviour,
  "/PersistentVolume": persistentVolumeBehaviour,
  "/PersistentVolumeClaim": persistentVolumeClaimBehaviour,
  "autoscaling/HorizontalPodAutoscaler": horizontalPodAutoscalerBehaviour,
  "certificates.k8s.io/CertificateSigningRequest": certificateSigningRequestBehaviour,
  "discovery.k8s.io/EndpointSlice": endpointSliceBehaviour,
  "networking.k8s.io/NetworkPolicy": networkPolicyBehaviour,
  "scheduling.k8s.io/PriorityClass": priorityClassBehaviour,
  "storage.k8s.io/CSIDriver": csiDriverBehaviour,
  "storage.k8s.io/StorageClass": storageClassBehaviour,
  "apiextensions.k8s.io/CustomResourceDefinition": crdBehaviour(validateCRD),
  "apiregistration.k8s.io/APIService": apiServiceBehaviour,
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": mutatingWebhookConfigurationBehaviour,
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": validatingWebhookConfigurationBehaviour,
  "admissionregistration.k8s.io/ValidatingAdmissionPolicy": validatingAdmissionPolicyBehaviour,
  "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": validatingAdmissionPolicyBindingBehaviour,
  "admissionregistration.k8s.io/MutatingAdmissionPolicy": mutatingAdmissionPolicyBehaviour,
  "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding": mutatingAdmissionPolicyBindingBehaviour,
  "certificates.k8s.io/ClusterTrustBundle": clusterTrustBundleBehaviour,
  "certificates.k8s.io/PodCertificateRequest": podCertificateRequestBehaviour,
  "networking.k8s.io/IPAddress": ipAddressBehaviour,
  "networking.k8s.io/ServiceCIDR": serviceCIDRBehaviour,
  "resource.k8s.io/DeviceClass": deviceClassBehaviour,
  "resource.k8s.io/DeviceTaintRule": deviceTaintRuleBehaviour,
  "resource.k8s.io/ResourceClaim": resourceClaimBehaviour,
  "resource.k8s.io/ResourceClaimTemplate": resourceClaimTemplateBehaviour,
  "resource.k8s.io/ResourceSlice": resourceSliceBehaviour,
  "storage.k8s.io/VolumeAttributesClass": volumeAttributesClassBehaviour,
  "storagemigration.k8s.io/StorageVersionMigration": storageVersionMigrationBehaviour,
  "flowcontrol.apiserver.k8s.io/FlowSchema": flowSchemaBehaviour,
  "flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": priorityLevelConfigurationBehaviour,
  ...rbacBehaviours,
};

/** Each definition's behaviour, built once: every write asks for it several times. */
const behaviours = new WeakMap<ResourceDefinition, KindBehaviour>();

export function kindBehaviour(def: ResourceDefinition): KindBehaviour {
  if (def.crdName) return none;
  let found = behaviours.get(def);
  if (found === undefined) {
    found = builtinBehaviour(def);
    behaviours.set(def, found);
  }
  return found;
}

function builtinBehaviour(def: ResourceDefinition): KindBehaviour {
  const b =
    def.group === "autoscaling" && def.version === "v1"
      ? horizontalPodAutoscalerV1Behaviour
      : (byKind[`${def.group}/${def.kind}`] ?? none);
  const key = `${def.group}/${def.kind}`;
  // Every built-in kind also stores numeric quantities as kube's canonical strings; a write
  // through /status is checked by the kind's status strategy besides.
  return {
    ...b,
    defaults(obj, ctx) {
      canonicalizeQuantities(def, obj);
      b.defaults?.(obj, ctx);
      if (ctx.subresource === "status" && ctx.old) prepareStatusWrite(key, obj, ctx.old);
    },
    validate(obj, old, server, subresource) {
      const causes = b.validate?.(obj, old, server, subresource) ?? [];
      if (subresource === "status" && old) causes.push(...statusUpdateCauses(key, obj, old));
      return causes;
    },
  };
}
