// Top-level fields of built-in kinds: a decoder for a Go struct drops anything else, and strict
// field validation reports it. (Nested fields need the kinds' full schemas.)
import type { ResourceDefinition } from "../registry/index.js";

const common = ["apiVersion", "kind", "metadata"];
const specStatus = ["spec", "status"];

const byKind: Record<string, string[]> = {
  "/ConfigMap": ["data", "binaryData", "immutable"],
  "/Secret": ["data", "stringData", "type", "immutable"],
  "/Endpoints": ["subsets"],
  "/ServiceAccount": ["secrets", "imagePullSecrets", "automountServiceAccountToken"],
  "/Event": [
    "involvedObject",
    "reason",
    "message",
    "source",
    "firstTimestamp",
    "lastTimestamp",
    "count",
    "type",
    "eventTime",
    "series",
    "action",
    "related",
    "reportingComponent",
    "reportingInstance",
  ],
  "events.k8s.io/Event": [
    "eventTime",
    "series",
    "reportingController",
    "reportingInstance",
    "action",
    "reason",
    "regarding",
    "related",
    "note",
    "type",
    "deprecatedSource",
    "deprecatedFirstTimestamp",
    "deprecatedLastTimestamp",
    "deprecatedCount",
  ],
  "rbac.authorization.k8s.io/Role": ["rules"],
  "rbac.authorization.k8s.io/ClusterRole": ["rules", "aggregationRule"],
  "rbac.authorization.k8s.io/RoleBinding": ["subjects", "roleRef"],
  "rbac.authorization.k8s.io/ClusterRoleBinding": ["subjects", "roleRef"],
  "admissionregistration.k8s.io/MutatingWebhookConfiguration": ["webhooks"],
  "admissionregistration.k8s.io/ValidatingWebhookConfiguration": ["webhooks"],
};

/** The top-level fields a built-in kind knows. */
export function knownTopLevelFields(def: ResourceDefinition): Set<string> {
  return new Set([...common, ...(byKind[`${def.group}/${def.kind}`] ?? specStatus)]);
}

/** Unknown top-level fields of a built-in object (none for custom resources). */
export function unknownTopLevelFields(def: ResourceDefinition, obj: Record<string, unknown>): string[] {
  if (def.crdName) return [];
  const known = knownTopLevelFields(def);
  return Object.keys(obj).filter((k) => !known.has(k));
}
