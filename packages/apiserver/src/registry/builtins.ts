// The built-in resources the embedded server serves, described as kube-apiserver's discovery
// describes them (verbs, short names, categories, subresources) plus the per-kind facts the
// handlers need (selectable fields, name rules, whether generation is tracked).
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import { asJSONSchemaProps, builtinSchema } from "../schema/index.js";
import type { FieldLabels, ResourceDefinition } from "./resource.js";

const allVerbs = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

type Obj = Record<string, unknown>;

/** Reads a dotted path such as `spec.nodeName` as the string kube compares in field selectors. */
export function fieldAt(obj: Obj, path: string): string | undefined {
  let cur: unknown = obj;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Obj)[part];
  }
  if (cur === undefined || cur === null) return "";
  return typeof cur === "object" ? JSON.stringify(cur) : String(cur);
}

function fields(...paths: string[]): ResourceDefinition["selectableFields"] {
  const out: ResourceDefinition["selectableFields"] = {};
  for (const p of paths) out[p] = (obj) => fieldAt(obj, p);
  return out;
}

/**
 * Fields of Go types that are never absent there: a missing one reads as its zero value, as kube's
 * ToSelectableFields print it (strconv.FormatBool, strconv.Itoa).
 */
function zeroValued(zeros: Record<string, string>): ResourceDefinition["selectableFields"] {
  const out: ResourceDefinition["selectableFields"] = {};
  for (const [p, zero] of Object.entries(zeros)) out[p] = (obj) => fieldAt(obj, p) || zero;
  return out;
}

const META = ["metadata.name", "metadata.namespace"];

/** A kind's field label conversion taking `accepted` (kube's AddFieldLabelConversionFunc). */
function labels(
  accepted: readonly string[],
  opts: { renamed?: Record<string, string>; refusal?: (label: string) => string } = {},
): FieldLabels {
  return {
    accepted: [...accepted, ...Object.keys(opts.renamed ?? {})],
    renamed: opts.renamed,
    refusal: opts.refusal ?? ((label) => `field label not supported: ${label}`),
  };
}

interface Spec {
  group: string;
  /** Default: v1. */
  version?: string;
  kind: string;
  plural?: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  verbs?: string[];
  status?: boolean;
  scale?: boolean;
  generation?: boolean;
  nameValidation?: ResourceDefinition["nameValidation"];
  selectableFields?: ResourceDefinition["selectableFields"];
  fieldLabels?: FieldLabels;
  review?: boolean;
  storeName?: string;
}

/**
 * Gives `def` the kind's generated schema, built on first use: expanding every kind's
 * definitions costs about 100 ms, too much for each server start when most kinds are never
 * written.
 */
function withBuiltinSchema(def: ResourceDefinition): ResourceDefinition {
  let schema: JSONSchemaProps | undefined;
  let built = false;
  Object.defineProperty(def, "schema", {
    enumerable: true,
    configurable: true,
    get() {
      if (!built) {
        const s = builtinSchema(def.group, def.version, def.kind);
        schema = s === undefined ? undefined : asJSONSchemaProps(s);
        built = true;
      }
      return schema;
    },
    set(value: JSONSchemaProps | undefined) {
      schema = value;
      built = true;
    },
  });
  return def;
}

/**
 * The resources whose DELETE answers the deleted object rather than a Status: kube's registries
 * with `ReturnDeletedObject: true` (their storage.go under pkg/registry in v1.37).
 */
const RETURNS_DELETED_OBJECT = new Set([
  "/pods",
  "/services",
  "/namespaces",
  "/serviceaccounts",
  "/podtemplates",
  "/persistentvolumes",
  "/persistentvolumeclaims",
  "/resourcequotas",
  "storage.k8s.io/storageclasses",
  "storage.k8s.io/csidrivers",
  "storage.k8s.io/csinodes",
  "storage.k8s.io/volumeattachments",
  "storage.k8s.io/volumeattributesclasses",
  "resource.k8s.io/resourceclaims",
  "resource.k8s.io/resourceclaimtemplates",
  "resource.k8s.io/deviceclasses",
  "resource.k8s.io/resourceslices",
  "resource.k8s.io/resourcepoolstatusrequests",
]);

function define(s: Spec): ResourceDefinition {
  const plural = s.plural ?? `${s.kind.toLowerCase()}s`;
  const version = s.version ?? "v1";
  return withBuiltinSchema({
    group: s.group,
    version,
    kind: s.kind,
    listKind: `${s.kind}List`,
    plural,
    singular: s.kind.toLowerCase(),
    namespaced: s.namespaced ?? true,
    shortNames: s.shortNames ?? [],
    categories: s.categories ?? [],
    verbs: s.verbs ?? allVerbs,
    statusSubresource: s.status ?? false,
    scale: s.scale
      ? {
          specReplicasPath: ".spec.replicas",
          statusReplicasPath: ".status.replicas",
          labelSelectorPath: ".spec.selector",
        }
      : undefined,
    storageVersion: version,
    selectableFields: s.selectableFields ?? {},
    ...(s.fieldLabels ? { fieldLabels: s.fieldLabels } : {}),
    ...(s.storeName ? { storeName: s.storeName } : {}),
    printerColumns: [],
    tracksGeneration: s.generation ?? false,
    nameValidation: s.nameValidation ?? "subdomain",
    ...(s.review ? { review: true } : {}),
    ...(RETURNS_DELETED_OBJECT.has(`${s.group}/${plural}`) ? { returnDeletedObject: true } : {}),
  });
}

const eventFields = fields(
  "involvedObject.kind",
  "involvedObject.namespace",
  "involvedObject.name",
  "involvedObject.uid",
  "involvedObject.apiVersion",
  "involvedObject.resourceVersion",
  "involvedObject.fieldPath",
  "reason",
  "reportingComponent",
  "type",
);
// kube's ToSelectableFields: the source is the component, or the reporting controller without one.
eventFields.source = (obj) => fieldAt(obj, "source.component") || fieldAt(obj, "reportingComponent");
const eventLabels = labels([...Object.keys(eventFields), ...META]);
// The same fields (under core's names, as kube's ToSelectableFields has them) read from an
// events.k8s.io/v1 Event.
const eventsV1Fields: ResourceDefinition["selectableFields"] = {};
for (const f of Object.keys(eventFields)) {
  const path = f
    .replace(/^involvedObject\./, "regarding.")
    .replace(/^reportingComponent$/, "reportingController");
  eventsV1Fields[f] = (obj) => fieldAt(obj, path);
}
eventsV1Fields.source = (obj) =>
  fieldAt(obj, "deprecatedSource.component") || fieldAt(obj, "reportingController");

/** Every built-in resource, in discovery order within each group/version. */
export function builtinResources(): ResourceDefinition[] {
  const podFields = fields(
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
  );
  podFields["spec.hostNetwork"] = (obj) => String(fieldAt(obj, "spec.hostNetwork") === "true");
  const podLabels = labels(
    [
      ...META,
      "spec.nodeName",
      "spec.restartPolicy",
      "spec.schedulerName",
      "spec.serviceAccountName",
      "spec.hostNetwork",
      "status.phase",
      "status.podIP",
      "status.podIPs",
      "status.nominatedNodeName",
    ],
    { renamed: { "spec.host": "spec.nodeName" } },
  );
  // events.k8s.io/v1 selects on core's fields under its own names (its field label conversion).
  const eventsV1Labels = labels([], {
    renamed: {
      "regarding.kind": "involvedObject.kind",
      "regarding.namespace": "involvedObject.namespace",
      "regarding.name": "involvedObject.name",
      "regarding.uid": "involvedObject.uid",
      "regarding.apiVersion": "involvedObject.apiVersion",
      "regarding.resourceVersion": "involvedObject.resourceVersion",
      "regarding.fieldPath": "involvedObject.fieldPath",
      reason: "reason",
      reportingController: "reportingComponent",
      type: "type",
      "metadata.namespace": "metadata.namespace",
      "metadata.name": "metadata.name",
    },
  });
  return [
    define({ group: "", kind: "Binding", verbs: ["create"], review: true }),
    define({
      group: "",
      kind: "ComponentStatus",
      plural: "componentstatuses",
      namespaced: false,
      shortNames: ["cs"],
      verbs: ["get", "list"],
      review: true,
    }),
    define({ group: "", kind: "ConfigMap", shortNames: ["cm"] }),
    define({ group: "", kind: "Endpoints", plural: "endpoints", shortNames: ["ep"] }),
    define({
      group: "",
      kind: "Event",
      shortNames: ["ev"],
      nameValidation: "path",
      selectableFields: eventFields,
      fieldLabels: eventLabels,
    }),
    define({
      group: "",
      kind: "Namespace",
      namespaced: false,
      shortNames: ["ns"],
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
      status: true,
      nameValidation: "label",
      selectableFields: fields("status.phase"),
      fieldLabels: labels(["status.phase", "metadata.name"]),
    }),
    define({
      group: "",
      kind: "Node",
      namespaced: false,
      shortNames: ["no"],
      status: true,
      selectableFields: zeroValued({ "spec.unschedulable": "false" }),
      fieldLabels: labels(["metadata.name", "spec.unschedulable"]),
    }),
    define({ group: "", kind: "LimitRange", shortNames: ["limits"] }),
    define({ group: "", kind: "PersistentVolumeClaim", shortNames: ["pvc"], status: true }),
    define({
      group: "",
      kind: "PersistentVolume",
      namespaced: false,
      shortNames: ["pv"],
      status: true,
    }),
    define({
      group: "",
      kind: "Pod",
      shortNames: ["po"],
      categories: ["all"],
      status: true,
      // PodObservedGenerationTracking: a Pod's generation counts its spec's changes.
      generation: true,
      selectableFields: podFields,
      fieldLabels: podLabels,
    }),
    define({ group: "", kind: "PodTemplate", generation: true }),
    define({
      group: "",
      kind: "ReplicationController",
      shortNames: ["rc"],
      categories: ["all"],
      status: true,
      scale: true,
      generation: true,
      selectableFields: zeroValued({ "status.replicas": "0" }),
      fieldLabels: labels([...META, "status.replicas"]),
    }),
    define({ group: "", kind: "ResourceQuota", shortNames: ["quota"], status: true }),
    define({
      group: "",
      kind: "Secret",
      selectableFields: fields("type"),
      fieldLabels: labels([...META, "type"]),
    }),
    define({ group: "", kind: "ServiceAccount", shortNames: ["sa"] }),
    define({
      group: "",
      kind: "Service",
      shortNames: ["svc"],
      categories: ["all"],
      status: true,
      nameValidation: "dns1035",
      selectableFields: fields("spec.clusterIP", "spec.type"),
      fieldLabels: labels([...META, "spec.clusterIP", "spec.type"]),
    }),
    define({ group: "apps", kind: "ControllerRevision" }),
    define({
      group: "apps",
      kind: "DaemonSet",
      shortNames: ["ds"],
      categories: ["all"],
      status: true,
      generation: true,
    }),
    define({
      group: "apps",
      kind: "Deployment",
      shortNames: ["deploy"],
      categories: ["all"],
      status: true,
      scale: true,
      generation: true,
    }),
    define({
      group: "apps",
      kind: "ReplicaSet",
      shortNames: ["rs"],
      categories: ["all"],
      status: true,
      scale: true,
      generation: true,
    }),
    define({
      group: "apps",
      kind: "StatefulSet",
      shortNames: ["sts"],
      categories: ["all"],
      status: true,
      scale: true,
      generation: true,
    }),
    define({
      group: "batch",
      kind: "Job",
      categories: ["all"],
      status: true,
      generation: true,
      selectableFields: zeroValued({ "status.successful": "0" }),
      fieldLabels: labels([...META, "status.successful"], {
        refusal: (label) => `field label ${JSON.stringify(label)} not supported for Job`,
      }),
    }),
    define({
      group: "batch",
      kind: "CronJob",
      shortNames: ["cj"],
      categories: ["all"],
      status: true,
      generation: true,
    }),
    define({
      group: "autoscaling",
      version: "v2",
      kind: "HorizontalPodAutoscaler",
      shortNames: ["hpa"],
      categories: ["all"],
      status: true,
      // HPAGeneration, on by default: the generation counts the spec's changes.
      generation: true,
    }),
    // autoscaling/v1 shares v2's storage (autoscaling/horizontalpodautoscalers), converted.
    define({
      group: "autoscaling",
      version: "v1",
      kind: "HorizontalPodAutoscaler",
      shortNames: ["hpa"],
      categories: ["all"],
      status: true,
      // HPAGeneration, on by default: the generation counts the spec's changes.
      generation: true,
    }),
    define({
      group: "certificates.k8s.io",
      kind: "CertificateSigningRequest",
      namespaced: false,
      shortNames: ["csr"],
      status: true,
      nameValidation: "path",
      selectableFields: fields("spec.signerName"),
      fieldLabels: labels(["metadata.name", "spec.signerName"]),
    }),
    define({
      group: "certificates.k8s.io",
      kind: "ClusterTrustBundle",
      namespaced: false,
      // kube checks the name against the signer (ValidateClusterTrustBundle), nothing more.
      nameValidation: "path",
    }),
    define({ group: "certificates.k8s.io", kind: "PodCertificateRequest", status: true }),
    define({ group: "coordination.k8s.io", kind: "Lease" }),
    define({ group: "discovery.k8s.io", kind: "EndpointSlice", generation: true }),
    define({
      group: "flowcontrol.apiserver.k8s.io",
      kind: "FlowSchema",
      namespaced: false,
      status: true,
      generation: true,
    }),
    define({
      group: "flowcontrol.apiserver.k8s.io",
      kind: "PriorityLevelConfiguration",
      namespaced: false,
      status: true,
      generation: true,
    }),
    define({
      group: "networking.k8s.io",
      kind: "IngressClass",
      plural: "ingressclasses",
      namespaced: false,
      generation: true,
    }),
    define({
      group: "networking.k8s.io",
      kind: "Ingress",
      plural: "ingresses",
      shortNames: ["ing"],
      status: true,
      generation: true,
    }),
    define({
      group: "networking.k8s.io",
      kind: "IPAddress",
      plural: "ipaddresses",
      namespaced: false,
      shortNames: ["ip"],
      // The name is the address itself, checked by the kind (ValidateIPAddressName).
      nameValidation: "path",
    }),
    define({ group: "networking.k8s.io", kind: "ServiceCIDR", namespaced: false, status: true }),
    define({
      group: "networking.k8s.io",
      kind: "NetworkPolicy",
      plural: "networkpolicies",
      shortNames: ["netpol"],
      generation: true,
    }),
    define({ group: "node.k8s.io", kind: "RuntimeClass", plural: "runtimeclasses", namespaced: false }),
    define({
      group: "policy",
      kind: "PodDisruptionBudget",
      shortNames: ["pdb"],
      status: true,
      generation: true,
      // kube checks a budget's name as a path segment only (as a CSR's).
      nameValidation: "path",
    }),
    define({
      group: "scheduling.k8s.io",
      kind: "PriorityClass",
      plural: "priorityclasses",
      namespaced: false,
      shortNames: ["pc"],
      generation: true,
    }),
    define({ group: "storage.k8s.io", kind: "CSIDriver", namespaced: false }),
    define({ group: "storage.k8s.io", kind: "CSINode", namespaced: false, status: true }),
    define({
      group: "storage.k8s.io",
      kind: "CSIStorageCapacity",
      plural: "csistoragecapacities",
    }),
    define({
      group: "storage.k8s.io",
      kind: "StorageClass",
      plural: "storageclasses",
      namespaced: false,
      shortNames: ["sc"],
    }),
    define({ group: "storage.k8s.io", kind: "VolumeAttachment", namespaced: false, status: true }),
    define({
      group: "storage.k8s.io",
      kind: "VolumeAttributesClass",
      plural: "volumeattributesclasses",
      namespaced: false,
      shortNames: ["vac"],
    }),
    ...dynamicResources(),
    define({
      group: "storagemigration.k8s.io",
      kind: "StorageVersionMigration",
      namespaced: false,
      status: true,
    }),
    define({
      group: "events.k8s.io",
      kind: "Event",
      shortNames: ["ev"],
      nameValidation: "path",
      selectableFields: eventsV1Fields,
      fieldLabels: eventsV1Labels,
      // kube serves events.k8s.io from core's Event storage (converted on the way).
      storeName: "/events",
    }),
    define({
      group: "apiextensions.k8s.io",
      kind: "CustomResourceDefinition",
      namespaced: false,
      shortNames: ["crd", "crds"],
      categories: ["api-extensions"],
      status: true,
      generation: true,
    }),
    define({
      group: "apiregistration.k8s.io",
      kind: "APIService",
      namespaced: false,
      categories: ["api-extensions"],
      status: true,
    }),
    define({
      group: "admissionregistration.k8s.io",
      kind: "MutatingAdmissionPolicy",
      plural: "mutatingadmissionpolicies",
      namespaced: false,
      categories: ["api-extensions"],
      generation: true,
    }),
    define({
      group: "admissionregistration.k8s.io",
      kind: "MutatingAdmissionPolicyBinding",
      namespaced: false,
      categories: ["api-extensions"],
      generation: true,
    }),
    define({
      group: "admissionregistration.k8s.io",
      kind: "MutatingWebhookConfiguration",
      namespaced: false,
      categories: ["api-extensions"],
      generation: true,
    }),
    define({
      group: "admissionregistration.k8s.io",
      kind: "ValidatingAdmissionPolicy",
      plural: "validatingadmissionpolicies",
      namespaced: false,
      categories: ["api-extensions"],
      status: true,
      generation: true,
    }),
    define({
      group: "admissionregistration.k8s.io",
      kind: "ValidatingAdmissionPolicyBinding",
      namespaced: false,
      categories: ["api-extensions"],
      generation: true,
    }),
    define({
      group: "admissionregistration.k8s.io",
      kind: "ValidatingWebhookConfiguration",
      namespaced: false,
      categories: ["api-extensions"],
      generation: true,
    }),
    define({
      group: "rbac.authorization.k8s.io",
      kind: "ClusterRoleBinding",
      namespaced: false,
      nameValidation: "path",
    }),
    define({
      group: "rbac.authorization.k8s.io",
      kind: "ClusterRole",
      namespaced: false,
      nameValidation: "path",
    }),
    define({ group: "rbac.authorization.k8s.io", kind: "RoleBinding", nameValidation: "path" }),
    define({ group: "rbac.authorization.k8s.io", kind: "Role", nameValidation: "path" }),
    ...reviews(),
  ];
}

/** resource.k8s.io (dynamic resource allocation, GA in 1.34). */
function dynamicResources(): ResourceDefinition[] {
  const group = "resource.k8s.io";
  return [
    define({ group, kind: "DeviceClass", plural: "deviceclasses", namespaced: false, generation: true }),
    define({ group, kind: "DeviceTaintRule", namespaced: false, status: true, generation: true }),
    define({ group, kind: "ResourceClaim", status: true }),
    define({ group, kind: "ResourceClaimTemplate" }),
    define({ group, kind: "ResourceSlice", namespaced: false, generation: true }),
  ];
}

/** The create-only review resources (answered, never stored). */
function reviews(): ResourceDefinition[] {
  const review = (group: string, kind: string, namespaced = false) =>
    define({ group, kind, namespaced, verbs: ["create"], review: true });
  return [
    review("authentication.k8s.io", "SelfSubjectReview"),
    review("authentication.k8s.io", "TokenReview"),
    review("authorization.k8s.io", "LocalSubjectAccessReview", true),
    review("authorization.k8s.io", "SelfSubjectAccessReview"),
    review("authorization.k8s.io", "SelfSubjectRulesReview"),
    review("authorization.k8s.io", "SubjectAccessReview"),
  ];
}
