// The built-in groups kube serves in protobuf, on their own so that the client can tell a
// built-in kind from a custom one without loading the descriptors.

/**
 * The k8s.io/api package of each built-in group whose messages the descriptors hold. A group is
 * looked up by its full name, so that a custom resource's group that merely starts like a
 * built-in one (`apps.example.com`) never borrows a built-in message.
 */
export const PACKAGES: Readonly<Record<string, string>> = {
  "": "core",
  "admission.k8s.io": "admission",
  "admissionregistration.k8s.io": "admissionregistration",
  "apidiscovery.k8s.io": "apidiscovery",
  apps: "apps",
  "authentication.k8s.io": "authentication",
  "authorization.k8s.io": "authorization",
  autoscaling: "autoscaling",
  batch: "batch",
  "certificates.k8s.io": "certificates",
  "coordination.k8s.io": "coordination",
  "discovery.k8s.io": "discovery",
  "events.k8s.io": "events",
  "flowcontrol.apiserver.k8s.io": "flowcontrol",
  "networking.k8s.io": "networking",
  "node.k8s.io": "node",
  policy: "policy",
  "rbac.authorization.k8s.io": "rbac",
  "resource.k8s.io": "resource",
  "scheduling.k8s.io": "scheduling",
  "storage.k8s.io": "storage",
  "storagemigration.k8s.io": "storagemigration",
};

/** Whether `group` is a built-in group with protobuf messages. */
export function isProtobufGroup(group: string): boolean {
  return Object.hasOwn(PACKAGES, group);
}
