// Descriptors of the built-in kinds, typed with kubernetes-types. Custom resources use defineKind().
import type * as admissionv1 from "kubernetes-types/admissionregistration/v1.js";
import type * as apiextv1 from "kubernetes-types/apiextensions/v1.js";
import type * as appsv1 from "kubernetes-types/apps/v1.js";
import type * as batchv1 from "kubernetes-types/batch/v1.js";
import type * as coordv1 from "kubernetes-types/coordination/v1.js";
import type * as corev1 from "kubernetes-types/core/v1.js";
import type * as eventsv1 from "kubernetes-types/events/v1.js";
import type * as rbacv1 from "kubernetes-types/rbac/v1.js";
import { defineKind } from "./kind.js";

const core = (kind: string, namespaced = true, plural?: string) =>
  ({ group: "", version: "v1", kind, namespaced, plural }) as const;

export const Pod = defineKind<corev1.Pod>(core("Pod"));
export const ConfigMap = defineKind<corev1.ConfigMap>(core("ConfigMap"));
export const Secret = defineKind<corev1.Secret>(core("Secret"));
export const Service = defineKind<corev1.Service>(core("Service"));
export const ServiceAccount = defineKind<corev1.ServiceAccount>(core("ServiceAccount"));
export const Endpoints = defineKind<corev1.Endpoints>(core("Endpoints", true, "endpoints"));
export const PersistentVolumeClaim = defineKind<corev1.PersistentVolumeClaim>(core("PersistentVolumeClaim"));
export const Namespace = defineKind<corev1.Namespace>(core("Namespace", false));
export const Node = defineKind<corev1.Node>(core("Node", false));
/** core/v1 Event, the one `kubectl get events` and client-go's recorder use. */
export const Event = defineKind<corev1.Event>(core("Event"));
/** events.k8s.io/v1 Event. */
export const EventsV1Event = defineKind<eventsv1.Event>({
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
});

const apps = (kind: string) => ({ group: "apps", version: "v1", kind }) as const;
export const Deployment = defineKind<appsv1.Deployment>(apps("Deployment"));
export const ReplicaSet = defineKind<appsv1.ReplicaSet>(apps("ReplicaSet"));
export const StatefulSet = defineKind<appsv1.StatefulSet>(apps("StatefulSet"));
export const DaemonSet = defineKind<appsv1.DaemonSet>(apps("DaemonSet"));

export const Job = defineKind<batchv1.Job>({ group: "batch", version: "v1", kind: "Job" });
export const CronJob = defineKind<batchv1.CronJob>({ group: "batch", version: "v1", kind: "CronJob" });
export const Lease = defineKind<coordv1.Lease>({
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
});

export const CustomResourceDefinition = defineKind<apiextv1.CustomResourceDefinition>({
  group: "apiextensions.k8s.io",
  version: "v1",
  kind: "CustomResourceDefinition",
  namespaced: false,
});

const admission = (kind: string) =>
  ({ group: "admissionregistration.k8s.io", version: "v1", kind, namespaced: false }) as const;
export const MutatingWebhookConfiguration = defineKind<admissionv1.MutatingWebhookConfiguration>(
  admission("MutatingWebhookConfiguration"),
);
export const ValidatingWebhookConfiguration = defineKind<admissionv1.ValidatingWebhookConfiguration>(
  admission("ValidatingWebhookConfiguration"),
);

const rbac = (kind: string, namespaced: boolean) =>
  ({ group: "rbac.authorization.k8s.io", version: "v1", kind, namespaced }) as const;
export const Role = defineKind<rbacv1.Role>(rbac("Role", true));
export const RoleBinding = defineKind<rbacv1.RoleBinding>(rbac("RoleBinding", true));
export const ClusterRole = defineKind<rbacv1.ClusterRole>(rbac("ClusterRole", false));
export const ClusterRoleBinding = defineKind<rbacv1.ClusterRoleBinding>(rbac("ClusterRoleBinding", false));
