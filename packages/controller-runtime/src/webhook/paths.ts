// The paths controller-runtime's webhook builder registers webhooks on, so that kubebuilder's
// `+kubebuilder:webhook:path=...` markers and generated manifests keep working unchanged.
import type { GroupVersionKind } from "../api/index.js";

/** `/mutate-<group with dots as dashes>-<version>-<lower-case kind>`: `/mutate--v1-pod` for core. */
export function mutatePath(gvk: GroupVersionKind): string {
  return `/mutate-${pathSuffix(gvk)}`;
}

/** `/validate-<group with dots as dashes>-<version>-<lower-case kind>`. */
export function validatePath(gvk: GroupVersionKind): string {
  return `/validate-${pathSuffix(gvk)}`;
}

/** Where the conversion webhook of every kind is served. */
export const convertPath = "/convert";

function pathSuffix(gvk: GroupVersionKind): string {
  return `${gvk.group.replaceAll(".", "-")}-${gvk.version}-${gvk.kind.toLowerCase()}`;
}
