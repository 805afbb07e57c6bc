// defineCRD: one definition of a custom resource. Its TypeBox schemas give the TypeScript type of
// the objects (Static), and the same definition emits the CustomResourceDefinition that kube takes;
// the returned value is the storage version's Kind, so `client.get(Memcached, key)` is typed.
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
  JSONSchemaProps,
} from "kubernetes-types/apiextensions/v1.js";
import type { ObjectMeta } from "kubernetes-types/meta/v1.js";
import type { Static, TSchema } from "typebox";
import { defineKind, type Kind, pluralize } from "../api/kind.js";
import { CRDDefinitionError, toStructural } from "./structural.js";
import type { ValidationRule } from "./vocabulary.js";

/** A printer column (`kubectl get`), as `additionalPrinterColumns`. */
export interface PrinterColumn {
  name: string;
  type: "integer" | "number" | "string" | "boolean" | "date";
  jsonPath: string;
  description?: string;
  format?: string;
  /** 0 shows in `kubectl get`; above 0 only with `-o wide`. */
  priority?: number;
}

/** One version of the resource: its spec and status schemas and how it is served. */
export interface VersionDefinition<
  Spec extends TSchema | undefined = TSchema | undefined,
  Status extends TSchema | undefined = TSchema | undefined,
> {
  spec?: Spec;
  status?: Status;
  /** CEL rules on the whole object (`self.spec`, `self.metadata.name`, ...). */
  validations?: readonly ValidationRule[];
  printerColumns?: readonly PrinterColumn[];
  /** The scale subresource (`kubectl scale`, the HorizontalPodAutoscaler). */
  scale?: { specReplicasPath: string; statusReplicasPath: string; labelSelectorPath?: string };
  /** The status subresource. Default: on when there is a status schema. */
  statusSubresource?: boolean;
  /** Default: true. */
  served?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
}

export interface CRDDefinition<V extends Record<string, VersionDefinition>> {
  /** The API group: a DNS subdomain with at least one dot (`cache.example.com`). */
  group: string;
  /** CamelCase, singular: `Memcached`. */
  kind: string;
  /** Default: the kind lower-cased and made plural (`memcacheds`). */
  plural?: string;
  /** Default: the kind lower-cased. */
  singular?: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  /** Default: Namespaced. */
  scope?: "Namespaced" | "Cluster";
  /** The versions, by name (`v1`, `v1beta1`), each with its schemas. */
  versions: V;
  /** The version objects are stored as. Default: the only version. */
  storage?: keyof V & string;
  /** `spec` required on every object (kube refuses an object without one). Default: true. */
  specRequired?: boolean;
}

type Schema<T> = T extends TSchema ? Static<T> : never;

/** The object type of one version: the TypeScript type of what the API server stores and returns. */
export type CustomObject<D extends VersionDefinition, SpecRequired extends boolean = true> = {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
} & (D["spec"] extends TSchema
  ? SpecRequired extends true
    ? { spec: Schema<D["spec"]> }
    : { spec?: Schema<D["spec"]> | undefined }
  : unknown) &
  (D["status"] extends TSchema ? { status?: Schema<D["status"]> | undefined } : unknown);

// With no storage named there is one version (defineCRD checks), so V[keyof V] is it.
type StorageOf<V extends Record<string, VersionDefinition>, S> = [S] extends [never]
  ? V[keyof V]
  : S extends keyof V
    ? V[S]
    : never;

/** What defineCRD returns: the storage version's Kind, the CRD, and a Kind for every version. */
export type DefinedCRD<V extends Record<string, VersionDefinition>, S> = Kind<
  CustomObject<StorageOf<V, S>>
> & {
  /** The CustomResourceDefinition to install (envtest's `crds`, `controller-runtime generate crds`). */
  readonly crd: CustomResourceDefinition;
  /** A Kind per version, for clients that speak a version other than the storage one. */
  readonly versions: { readonly [N in keyof V]: Kind<CustomObject<V[N]>> };
};

const VERSION_NAME = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const GROUP = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;

/**
 * One definition of a custom resource: `defineCRD({ group, kind, versions: { v1: { spec, status } } })`.
 * The schemas are TypeBox schemas (with the vocabulary in `k`); the result is a Kind typed by them,
 * with the CRD kube takes in `.crd`. Throws a CRDDefinitionError for what kube would refuse.
 */
export function defineCRD<
  const V extends Record<string, VersionDefinition>,
  const S extends keyof V & string = never,
>(def: CRDDefinition<V> & { storage?: S }): DefinedCRD<V, S> {
  const names = Object.keys(def.versions);
  if (!/^[A-Z][A-Za-z0-9]*$/.test(def.kind ?? "")) {
    throw new CRDDefinitionError(
      "kind",
      `must be CamelCase letters and digits, got ${JSON.stringify(def.kind)}`,
    );
  }
  if (!GROUP.test(def.group ?? "") || def.group.length > 253) {
    throw new CRDDefinitionError(
      "group",
      `must be a DNS subdomain with at least one dot (cache.example.com), got ${JSON.stringify(def.group)}`,
    );
  }
  if (names.length === 0) throw new CRDDefinitionError("versions", "at least one version is needed");
  for (const name of names) {
    if (!VERSION_NAME.test(name)) {
      throw new CRDDefinitionError(`versions.${name}`, "a version is v1, v2beta1, v1alpha2, ...");
    }
  }
  const storage = def.storage ?? (names.length === 1 ? names[0] : undefined);
  if (storage === undefined || !names.includes(storage)) {
    throw new CRDDefinitionError(
      "storage",
      storage === undefined
        ? `with several versions, name the storage one (one of ${names.join(", ")})`
        : `${JSON.stringify(storage)} is not one of the versions (${names.join(", ")})`,
    );
  }
  const plural = def.plural ?? pluralize(def.kind);
  const scope = def.scope ?? "Namespaced";
  const specRequired = def.specRequired ?? true;
  const versions = names.map((name) =>
    versionOf(name, def.versions[name] as VersionDefinition, name === storage, specRequired),
  );
  const crd: CustomResourceDefinition = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${def.group}` },
    spec: {
      group: def.group,
      names: {
        kind: def.kind,
        listKind: `${def.kind}List`,
        plural,
        singular: def.singular ?? def.kind.toLowerCase(),
        ...(def.shortNames ? { shortNames: [...def.shortNames] } : {}),
        ...(def.categories ? { categories: [...def.categories] } : {}),
      },
      scope,
      versions,
    },
  };
  const kindOf = (version: string) =>
    defineKind({ group: def.group, version, kind: def.kind, plural, namespaced: scope === "Namespaced" });
  const perVersion = Object.freeze(Object.fromEntries(names.map((n) => [n, kindOf(n)])));
  return Object.freeze({
    ...kindOf(storage),
    crd: deepFreeze(crd),
    versions: perVersion,
  }) as unknown as DefinedCRD<V, S>;
}

function versionOf(
  name: string,
  v: VersionDefinition,
  storage: boolean,
  specRequired: boolean,
): CustomResourceDefinitionVersion {
  const at = `versions.${name}`;
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: {
      type: "string",
      description:
        "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.",
    },
    kind: {
      type: "string",
      description:
        "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to.",
    },
    metadata: { type: "object" },
  };
  if (v.spec) properties.spec = toStructural(v.spec, `${at}.spec`);
  if (v.status) properties.status = toStructural(v.status, `${at}.status`);
  const root: JSONSchemaProps = { type: "object", properties };
  if (v.spec && specRequired) root.required = ["spec"];
  if (v.validations?.length) {
    (root as Record<string, unknown>)["x-kubernetes-validations"] = v.validations.map((r) => ({ ...r }));
  }
  const statusSubresource = v.statusSubresource ?? v.status !== undefined;
  if (statusSubresource && !v.status) {
    throw new CRDDefinitionError(`${at}.statusSubresource`, "the status subresource needs a status schema");
  }
  const out: CustomResourceDefinitionVersion = {
    name,
    served: v.served ?? true,
    storage,
    schema: { openAPIV3Schema: root },
  };
  if (statusSubresource || v.scale) {
    out.subresources = {
      ...(statusSubresource ? { status: {} } : {}),
      ...(v.scale ? { scale: { ...v.scale } } : {}),
    };
  }
  if (v.printerColumns?.length) {
    out.additionalPrinterColumns = v.printerColumns.map((c) => ({ ...c }) as CustomResourceColumnDefinition);
  }
  if (v.deprecated) out.deprecated = true;
  if (v.deprecationWarning) out.deprecationWarning = v.deprecationWarning;
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
