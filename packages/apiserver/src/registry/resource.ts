// A served resource: what the API server knows about one group/version/resource. Built-in kinds
// are described in a table; each CRD version becomes one of these when the CRD is established.
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import type { PatchMeta } from "controller-runtime/patch";

/** A printer column, as in a CRD's `additionalPrinterColumns`: what `kubectl get` shows. */
export interface PrinterColumn {
  name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  type: string;
  /** A simple JSONPath such as `.spec.replicas`. */
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** Which field labels a kind's version takes, as kube's field label conversion decides. */
export interface FieldLabels {
  accepted: readonly string[];
  /** Labels taken under another field's name (events.k8s.io's `regarding.name`, Pod's `spec.host`). */
  renamed?: Readonly<Record<string, string>>;
  /** The 400's message for any other label. */
  refusal(label: string): string;
}

export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** Plural name used in URLs: `deployments`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** The verbs discovery advertises. */
  verbs: string[];
  /** Whether `/status` is served and the main endpoint ignores `status`. */
  statusSubresource: boolean;
  /** `/scale` for CRDs with a scale subresource, or built-ins such as Deployments. */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** The version objects are stored in; other served versions are converted (CRDs only). */
  storageVersion: string;
  /**
   * The storage this resource shares with another group's (`/events` for events.k8s.io's Events).
   * Default: its own, `<group>/<plural>`.
   */
  storeName?: string;
  /** Structural schema of the whole object: for validation, pruning, defaulting and OpenAPI. */
  schema?: JSONSchemaProps;
  /** Whether unknown fields are kept at the root (`x-kubernetes-preserve-unknown-fields`). */
  preserveUnknownFields?: boolean;
  /** The values field selectors compare, by kube's field name, besides `metadata.name` / `metadata.namespace`. */
  selectableFields: Record<string, (obj: Record<string, unknown>) => string | undefined>;
  /**
   * The kind's field label conversion (kube's AddFieldLabelConversionFunc for its version): the
   * labels a selector may use and their refusal. Default: apimachinery's, `metadata.name` and
   * `metadata.namespace` only.
   */
  fieldLabels?: FieldLabels;
  /** Strategic-merge-patch metadata (merge keys); absent for CRDs, which take merge patches. */
  patchMeta?: PatchMeta;
  printerColumns: PrinterColumn[];
  /** Set for resources served from a CustomResourceDefinition. */
  crdName?: string;
  /** Whether `metadata.generation` is kept (1 at create, +1 on changes outside metadata and status).
   * Default: true for custom resources, per kind for built-ins (ConfigMaps have none). */
  tracksGeneration?: boolean;
  /** The rule for `metadata.name`: RFC 1123 subdomain, RFC 1123 label, RFC 1035 label, or any
   * path segment (no `/`, `%`, `.`, `..`). Default: `subdomain`. */
  nameValidation?: "subdomain" | "label" | "dns1035" | "path";
  /** Answered at create and never stored: the access and token reviews. Default: false. */
  review?: boolean;
  /** Whether DELETE answers the object rather than a `Status`, as custom resources do.
   * Default: false. */
  returnDeletedObject?: boolean;
}
