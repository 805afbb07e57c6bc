// Resource names as kube's core helpers classify them (pkg/apis/core/helper): native ones (no
// domain, or one of kubernetes.io), extended ones (any other qualified domain), and the ones
// counted in whole units.
import { qualifiedNameErrors } from "controller-runtime/api";

/** IsNativeResource: no domain, or a kubernetes.io one. */
export const isNativeResource = (name: string): boolean =>
  !name.includes("/") || name.includes("kubernetes.io/");

/** IsExtendedResourceName: not native, not a quota's requests., and a qualified name once prefixed so. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith("requests.")) return false;
  return qualifiedNameErrors(`requests.${name}`).length === 0;
}

/** What IsIntegerResourceName counts in units besides extended resources. */
const INTEGER_RESOURCES = new Set([
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
  "services.nodeports",
  "services.loadbalancers",
]);

/** IsIntegerResourceName: a resource that can only be counted in whole units. */
export const isIntegerResourceName = (name: string): boolean =>
  INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);
