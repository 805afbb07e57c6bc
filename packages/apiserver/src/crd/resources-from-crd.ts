// What a CustomResourceDefinition serves: one ResourceDefinition per served version.
import type {
  CustomResourceDefinition,
  CustomResourceDefinitionVersion,
} from "kubernetes-types/apiextensions/v1.js";
import { cloneJson } from "../object/deep-json.js";
import type { PrinterColumn, ResourceDefinition } from "../registry/resource.js";
import type { Schema } from "../schema/index.js";
import { asJSONSchemaProps, jsonPathText, parseJSONPath } from "../schema/index.js";

/** The verbs discovery lists for custom resources, in kube's order. */
export const CUSTOM_RESOURCE_VERBS: readonly string[] = [
  "delete",
  "deletecollection",
  "get",
  "list",
  "patch",
  "create",
  "update",
  "watch",
];

/** kube's printer column when a version declares none. */
const AGE_COLUMN: PrinterColumn = {
  name: "Age",
  type: "date",
  jsonPath: ".metadata.creationTimestamp",
  description:
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
};

/**
 * The resources a CRD serves: one per served version, in the CRD's order. Assumes the CRD
 * passed `validateCRD`; the storage version is the one marked `storage`.
 */
export function resourcesFromCRD(crd: CustomResourceDefinition): ResourceDefinition[] {
  const { group, names, scope, versions } = crd.spec;
  const storageVersion = versions.find((v) => v.storage)?.name ?? versions[0]?.name ?? "";
  const kind = names.kind;
  return versions
    .filter((v) => v.served)
    .map((v) => {
      const schema = objectSchema(v);
      const scale = v.subresources?.scale;
      return {
        group,
        version: v.name,
        kind,
        listKind: names.listKind || `${kind}List`,
        plural: names.plural,
        singular: names.singular || kind.toLowerCase(),
        namespaced: scope === "Namespaced",
        shortNames: [...(names.shortNames ?? [])],
        categories: [...(names.categories ?? [])],
        verbs: [...CUSTOM_RESOURCE_VERBS],
        statusSubresource: v.subresources?.status !== undefined,
        scale: scale
          ? {
              specReplicasPath: scale.specReplicasPath,
              statusReplicasPath: scale.statusReplicasPath,
              ...(scale.labelSelectorPath ? { labelSelectorPath: scale.labelSelectorPath } : {}),
            }
          : undefined,
        storageVersion,
        schema: asJSONSchemaProps(schema),
        preserveUnknownFields:
          crd.spec.preserveUnknownFields === true || schema["x-kubernetes-preserve-unknown-fields"] === true,
        selectableFields: selectableFields(v),
        printerColumns: printerColumns(v),
        crdName: crd.metadata?.name ?? `${names.plural}.${group}`,
      } satisfies ResourceDefinition;
    });
}

/**
 * The version's schema with the fields every object has: `apiVersion` and `kind` strings and
 * `metadata` an object (a CRD may only restrict `metadata.name`/`generateName`; the rest of
 * ObjectMeta is kube's, checked by the server and pruned to ObjectMeta's fields).
 */
function objectSchema(v: CustomResourceDefinitionVersion): Schema {
  // A copy (the stored CRD is frozen) that shares strings, made without recursion: a schema may
  // nest 10 000 levels, and an enum hold 100 000 values (structuredClone held the server then).
  const given = cloneJson(v.schema?.openAPIV3Schema ?? {}) as Schema;
  if (v.schema?.openAPIV3Schema === undefined) given["x-kubernetes-preserve-unknown-fields"] = true;
  given.type ??= "object";
  const props = { ...(given.properties ?? {}) };
  props.apiVersion ??= { type: "string" };
  props.kind ??= { type: "string" };
  props.metadata = { type: "object", ...(props.metadata ?? {}) };
  given.properties = props;
  return given;
}

function printerColumns(v: CustomResourceDefinitionVersion): PrinterColumn[] {
  const columns = v.additionalPrinterColumns ?? [];
  if (columns.length === 0) return [{ ...AGE_COLUMN }];
  return columns.map((c) => ({
    name: c.name,
    type: c.type,
    jsonPath: c.jsonPath,
    ...(c.description !== undefined ? { description: c.description } : {}),
    ...(c.priority !== undefined ? { priority: c.priority } : {}),
    ...(c.format !== undefined ? { format: c.format } : {}),
  }));
}

/** `spec.versions[].selectableFields`: `spec.color` selects by the value at `.spec.color`. */
function selectableFields(v: CustomResourceDefinitionVersion): ResourceDefinition["selectableFields"] {
  const out: ResourceDefinition["selectableFields"] = {};
  for (const f of v.selectableFields ?? []) {
    const path = parseJSONPath(f.jsonPath);
    const name = f.jsonPath.replace(/^\./, "");
    out[name] = (obj) => {
      const [value] = path.find(obj);
      return value === undefined || value === null ? "" : jsonPathText(value);
    };
  }
  return out;
}
