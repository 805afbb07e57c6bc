// Validation of a CustomResourceDefinition on create and update, as apiextensions-apiserver
// does it: names, group, scope, versions, schemas, subresources and printer columns.
import { celRules } from "../lazy.js";
import { schemaHasRules } from "../schema/has-rules.js";
import type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionVersion,
} from "kubernetes-types/apiextensions/v1.js";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { FieldError, Schema } from "../schema/index.js";
import { toStatusCause } from "../schema/index.js";
import { jsonEqual } from "../object/deep-json.js";
import { dns1035LabelErrors, dns1123SubdomainErrors } from "./names.js";
import { defaultErrors, structuralErrors } from "./structural.js";

const COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];

/**
 * The problems of a CRD as 422 causes; [] when it is valid. With `old`, also the rules of an
 * update: `group` and `names.plural` never change, `scope` and `names.kind` not once established.
 */
export function validateCRD(crd: CustomResourceDefinition, old?: CustomResourceDefinition): StatusCause[] {
  const errs: FieldError[] = [];
  const spec = crd.spec ?? ({} as CustomResourceDefinition["spec"]);
  const names = spec.names ?? ({} as CustomResourceDefinitionNames);
  const name = crd.metadata?.name ?? "";
  // The name is checked on create only: an update's metadata rules leave the name be.
  if (old !== undefined) {
    // The name cannot change; the rules of an update are below.
  } else if (!name) {
    errs.push({
      type: "FieldValueRequired",
      field: "metadata.name",
      detail: "name or generateName is required",
    });
  } else {
    const msgs = dns1123SubdomainErrors(name);
    if (name !== `${names.plural ?? ""}.${spec.group ?? ""}`)
      msgs.push('must be spec.names.plural+"."+spec.group');
    for (const m of msgs)
      errs.push({ type: "FieldValueInvalid", field: "metadata.name", value: name, detail: m });
  }
  validateSpec(spec, errs);
  storedVersionErrors(crd, old, errs);
  if (old !== undefined) validateUpdate(crd, old, errs);
  return errs.map(toStatusCause);
}

/**
 * ValidateCustomResourceDefinitionStoredVersions: on create, of the stored versions kube's
 * PrepareForCreate gives (the first storage version); on update, of the stored ones and the
 * storage version. Each
 * storage version must be stored, each stored version still in spec.versions.
 */
function storedVersionErrors(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition | undefined,
  errs: FieldError[],
): void {
  const versions = crd.spec?.versions ?? [];
  const storage = versions.find((v) => v.storage);
  const first = storage === undefined ? [] : [storage.name ?? ""];
  // An update's PrepareForUpdate adds the new storage version to the stored ones.
  const before = old?.status?.storedVersions ?? [];
  const stored = old === undefined ? first : [...before, ...first.filter((v) => !before.includes(v))];
  const field = "status.storedVersions";
  if (stored.length === 0) {
    errs.push({
      type: "FieldValueInvalid",
      field,
      value: stored,
      detail: "must have at least one stored version",
    });
    return;
  }
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions) {
    const name = v.name ?? "";
    if (v.storage && !left.has(name))
      errs.push({
        type: "FieldValueInvalid",
        field,
        value: stored,
        detail: `must have the storage version ${name}`,
      });
    left.delete(name);
  }
  for (const [v, i] of left)
    errs.push({
      type: "FieldValueInvalid",
      field: `${field}[${i}]`,
      value: v,
      detail: `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
    });
}

const OPENAPI_TYPES = ["array", "boolean", "integer", "number", "object", "string"];

/**
 * requireValidPropertyType: every schema's type, if set, one of OpenAPI's, at every depth. Walked
 * with a stack of its own: a schema may nest 10 000 levels.
 */
function propertyTypeErrors(root: Schema, path: string, errs: FieldError[]): void {
  const stack: [unknown, string][] = [[root, path]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, at] = next;
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    const s = node as Record<string, unknown>;
    if (typeof s.type === "string" && s.type !== "" && !OPENAPI_TYPES.includes(s.type))
      errs.push({
        type: "FieldValueNotSupported",
        field: `${at}.type`,
        value: s.type,
        detail: `supported values: ${OPENAPI_TYPES.map((t) => JSON.stringify(t)).join(", ")}`,
      });
    const children: [unknown, string][] = [];
    for (const key of ["properties", "patternProperties", "definitions"]) {
      const m = s[key];
      if (m && typeof m === "object")
        for (const [k, v] of Object.entries(m as Record<string, unknown>))
          children.push([v, `${at}.${key}[${k}]`]);
    }
    if (Array.isArray(s.items))
      for (const [i, v] of s.items.entries()) children.push([v, `${at}.items[${i}]`]);
    else if (s.items !== undefined) children.push([s.items, `${at}.items`]);
    for (const key of ["allOf", "anyOf", "oneOf"])
      if (Array.isArray(s[key]))
        for (const [i, v] of (s[key] as unknown[]).entries()) children.push([v, `${at}.${key}[${i}]`]);
    for (const key of ["not", "additionalProperties", "additionalItems"])
      if (s[key] !== null && typeof s[key] === "object") children.push([s[key], `${at}.${key}`]);
    stack.push(...children.reverse());
  }
}

function validateSpec(spec: CustomResourceDefinition["spec"], errs: FieldError[]): void {
  const group = spec.group ?? "";
  if (!group) {
    errs.push({ type: "FieldValueRequired", field: "spec.group" });
  } else {
    const msgs = dns1123SubdomainErrors(group);
    if (msgs.length > 0)
      errs.push({ type: "FieldValueInvalid", field: "spec.group", value: group, detail: msgs.join(",") });
    else if (group.split(".").length < 2) {
      errs.push({
        type: "FieldValueInvalid",
        field: "spec.group",
        value: group,
        detail: "should be a domain with at least one dot",
      });
    }
  }
  if (!spec.scope) errs.push({ type: "FieldValueRequired", field: "spec.scope" });
  else if (spec.scope !== "Cluster" && spec.scope !== "Namespaced") {
    errs.push({
      type: "FieldValueNotSupported",
      field: "spec.scope",
      value: spec.scope,
      detail: 'supported values: "Cluster", "Namespaced"',
    });
  }
  const versions = spec.versions ?? [];
  const shared = sharedParts(versions);
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    if (seen.has(v.name)) unique = false;
    seen.add(v.name);
    const msgs = dns1035LabelErrors(v.name ?? "");
    if (msgs.length > 0) {
      errs.push({
        type: "FieldValueInvalid",
        field: `spec.versions[${i}].name`,
        value: v.name ?? "",
        detail: msgs.join(","),
      });
      // kube's internal form has spec.version, the first version's name, checked again.
      if (i === 0 && v.name)
        errs.push({
          type: "FieldValueInvalid",
          field: "spec.version",
          value: v.name,
          detail: msgs.join(","),
        });
    }
    validateVersion(v, i, shared, spec.preserveUnknownFields === true, errs);
  });
  if (!unique) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.versions",
      value: versions,
      detail: "must contain unique version names",
    });
  }
  if (versions.filter((v) => v.storage).length !== 1) {
    errs.push({
      type: "FieldValueInvalid",
      field: "spec.versions",
      value: versions,
      detail: "must have exactly one version marked as storage version",
    });
  }
  // kube requires no served version: a CRD may be installed with all its versions off.
  const names = spec.names ?? ({} as CustomResourceDefinitionNames);
  for (const key of ["plural", "singular", "kind", "listKind"] as const) {
    // singular and listKind are defaulted from kind before validation.
    const defaulted = key === "singular" || key === "listKind" ? names.kind : undefined;
    if (!names[key] && !defaulted) errs.push({ type: "FieldValueRequired", field: `spec.names.${key}` });
  }
  validateNames(names, "spec.names", errs);
  const conversion = spec.conversion?.strategy;
  if (conversion !== undefined && conversion !== "None" && conversion !== "Webhook") {
    errs.push({
      type: "FieldValueNotSupported",
      field: "spec.conversion.strategy",
      value: conversion,
      detail: 'supported values: "None", "Webhook"',
    });
  }
}

function validateNames(names: CustomResourceDefinitionNames, path: string, errs: FieldError[]): void {
  const label = (value: string | undefined, field: string, mixedCase: boolean) => {
    if (!value) return;
    const msgs = dns1035LabelErrors(mixedCase ? value.toLowerCase() : value);
    if (msgs.length === 0) return;
    const detail = mixedCase
      ? `may have mixed case, but should otherwise match: ${msgs.join(",")}`
      : msgs.join(",");
    errs.push({ type: "FieldValueInvalid", field: `${path}.${field}`, value, detail });
  };
  label(names.plural, "plural", false);
  label(names.singular, "singular", false);
  label(names.kind, "kind", true);
  label(names.listKind, "listKind", true);
  (names.shortNames ?? []).forEach((s, i) => {
    label(s, `shortNames[${i}]`, false);
  });
  if (names.kind && names.kind === names.listKind) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${path}.listKind`,
      value: names.listKind,
      detail: "kind and listKind may not be the same",
    });
  }
  (names.categories ?? []).forEach((c, i) => {
    label(c, `categories[${i}]`, false);
  });
}

/**
 * Which of a CRD's per-version parts every version has alike. kube converts v1 CRDs to its
 * internal form by hoisting those to spec.validation, spec.subresources and
 * spec.additionalPrinterColumns, validates them there once, and reports errors at those paths.
 */
interface SharedParts {
  schema: boolean;
  subresources: boolean;
  columns: boolean;
}

function sharedParts(versions: CustomResourceDefinitionVersion[]): SharedParts {
  const alike = (part: (v: CustomResourceDefinitionVersion) => unknown) =>
    // jsonEqual walks without recursion: a schema may nest 10 000 levels.
    versions.length > 0 && versions.every((v) => jsonEqual(part(v), part(versions[0])));
  return {
    schema: alike((v) => v.schema),
    subresources: alike((v) => v.subresources),
    columns: alike((v) => v.additionalPrinterColumns),
  };
}

function validateVersion(
  v: CustomResourceDefinitionVersion,
  index: number,
  shared: SharedParts,
  preserveUnknownFields: boolean,
  errs: FieldError[],
): void {
  const path = `spec.versions[${index}]`;
  const schema = v.schema?.openAPIV3Schema as Schema | undefined;
  if (schema === undefined) {
    if (!preserveUnknownFields) {
      const field = `${path}.schema.openAPIV3Schema`;
      errs.push({ type: "FieldValueRequired", field, detail: "schemas are required" });
    }
  } else if (!shared.schema || index === 0) {
    const schemaPath = shared.schema ? "spec.validation.openAPIV3Schema" : `${path}.schema.openAPIV3Schema`;
    const structural = structuralErrors(schema, schemaPath);
    errs.push(...structural);
    propertyTypeErrors(schema, schemaPath, errs);
    if (structural.length === 0)
      errs.push(
        ...defaultErrors(schema, schemaPath),
        ...(schemaHasRules(schema) ? celRules.get().ruleCompileErrors(schema, schemaPath) : []),
      );
  }
  const scale = v.subresources?.scale;
  if (scale !== undefined && (!shared.subresources || index === 0)) {
    const sp = shared.subresources ? "spec.subresources.scale" : `${path}.subresources.scale`;
    simplePath(scale.specReplicasPath, `${sp}.specReplicasPath`, ".spec.", errs);
    simplePath(scale.statusReplicasPath, `${sp}.statusReplicasPath`, ".status.", errs);
    if (scale.labelSelectorPath) {
      simplePath(scale.labelSelectorPath, `${sp}.labelSelectorPath`, [".spec.", ".status."], errs);
    }
  }
  if (shared.columns && index > 0) return;
  const columnsPath = shared.columns ? "spec.additionalPrinterColumns" : `${path}.additionalPrinterColumns`;
  (v.additionalPrinterColumns ?? []).forEach((c, i) => {
    validateColumn(c, `${columnsPath}[${i}]`, errs);
  });
}

function simplePath(
  value: string | undefined,
  field: string,
  under: string | string[],
  errs: FieldError[],
): void {
  const prefixes = Array.isArray(under) ? under : [under];
  if (!value) {
    errs.push({ type: "FieldValueRequired", field });
  } else if (!value.startsWith(".")) {
    errs.push({
      type: "FieldValueInvalid",
      field,
      value,
      detail: "must be a simple json path starting with .",
    });
  } else if (!prefixes.some((p) => value.startsWith(p))) {
    const where = prefixes.map((p) => p.slice(0, -1)).join(" or ");
    const detail = `should be a json path under ${prefixes.length > 1 ? "either " : ""}${where}`;
    errs.push({ type: "FieldValueInvalid", field, value, detail });
  }
}

function validateColumn(c: CustomResourceColumnDefinition, path: string, errs: FieldError[]): void {
  if (!c.name) errs.push({ type: "FieldValueRequired", field: `${path}.name` });
  const types = `must be one of ${COLUMN_TYPES.join(",")}`;
  if (!c.type) errs.push({ type: "FieldValueRequired", field: `${path}.type`, detail: types });
  else if (!COLUMN_TYPES.includes(c.type))
    errs.push({ type: "FieldValueInvalid", field: `${path}.type`, value: c.type, detail: types });
  if (c.format && !COLUMN_FORMATS.includes(c.format)) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${path}.format`,
      value: c.format,
      detail: `must be one of ${COLUMN_FORMATS.join(",")}`,
    });
  }
  if (!c.jsonPath) errs.push({ type: "FieldValueRequired", field: `${path}.jsonPath` });
  else if (!c.jsonPath.startsWith(".")) {
    errs.push({
      type: "FieldValueInvalid",
      field: `${path}.jsonPath`,
      value: c.jsonPath,
      detail: "must be a simple json path starting with .",
    });
  }
}

function validateUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
  errs: FieldError[],
): void {
  const immutable = (field: string, now: unknown, before: unknown) => {
    if (now !== before)
      errs.push({ type: "FieldValueInvalid", field, value: now, detail: "field is immutable" });
  };
  const established = (old.status?.conditions ?? []).some(
    (c) => c.type === "Established" && c.status === "True",
  );
  if (established) {
    immutable("spec.scope", crd.spec.scope, old.spec.scope);
    immutable("spec.names.kind", crd.spec.names?.kind, old.spec.names?.kind);
  }
  immutable("spec.group", crd.spec.group, old.spec.group);
  immutable("spec.names.plural", crd.spec.names?.plural, old.spec.names?.plural);
}
