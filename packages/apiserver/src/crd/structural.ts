// The structural-schema rules a CRD's openAPIV3Schema must follow (apiextensions-apiserver's
// ValidateStructural plus the OpenAPI features CRDs forbid), and validation of its defaults. The
// walks recurse through a trampoline: kube takes schemas nested as deep as its JSON decoder does.
import { trampoline, type Walk } from "../object/trampoline.js";
import type { FieldError, Schema } from "../schema/index.js";
import { findUnknownFields, isObject, patternError, validateValue } from "../schema/index.js";

type Level = "root" | "item" | "field";

const FORBIDDEN: [keyof Schema, string][] = [
  ["$ref", "$ref is not supported"],
  ["definitions", "definitions is not supported"],
  ["id" as keyof Schema, "id is not supported"],
  ["patternProperties" as keyof Schema, "patternProperties is not supported"],
  ["dependencies" as keyof Schema, "dependencies is not supported"],
  ["additionalItems" as keyof Schema, "additionalItems is not supported"],
];

/** Every structural-schema problem of `schema`, sorted by message as kube sorts them. */
export function structuralErrors(schema: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  trampoline(walk(schema, "root", path, errs));
  return errs.sort((a, b) => line(a).localeCompare(line(b)));
}

const line = (e: FieldError) => `${e.field}: ${e.detail ?? ""}`;

function* walk(s: Schema, level: Level, path: string, errs: FieldError[]): Walk<void> {
  const at = (k: string) => `${path}.${k}`;
  for (const [key, message] of FORBIDDEN) {
    if ((s as Record<string, unknown>)[key] !== undefined)
      errs.push({ type: "FieldValueForbidden", field: at(key), detail: message });
  }
  if (s.uniqueItems === true) {
    errs.push({
      type: "FieldValueForbidden",
      field: at("uniqueItems"),
      detail: "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
    });
  }
  if (s.type === "null")
    errs.push({ type: "FieldValueForbidden", field: at("type"), detail: "type cannot be set to null" });
  if (Array.isArray(s.items)) {
    errs.push({
      type: "FieldValueForbidden",
      field: at("items"),
      detail: "items must be a schema object and not an array",
    });
  }
  const props = s.properties ?? {};
  const ap = s.additionalProperties;
  if (ap !== undefined && Object.keys(props).length > 0 && (ap === false || typeof ap === "object")) {
    errs.push({
      type: "FieldValueForbidden",
      field: at("additionalProperties"),
      detail: "additionalProperties and properties are mutual exclusive",
    });
  }
  if (ap !== undefined && level === "root") {
    errs.push({
      type: "FieldValueForbidden",
      field: at("additionalProperties"),
      detail: "must not be used at the root",
    });
  }
  const patternInvalid = s.pattern === undefined ? undefined : patternError(s.pattern);
  if (patternInvalid !== undefined) {
    errs.push({
      type: "FieldValueInvalid",
      field: at("pattern"),
      value: s.pattern,
      detail: `must be a valid regular expression, but isn't: ${patternInvalid}`,
    });
  }
  typeRules(s, level, path, errs);
  if (s.type === "array" && s.items === undefined) {
    errs.push({ type: "FieldValueRequired", field: at("items"), detail: "must be specified" });
  }
  if (s.items !== undefined && !Array.isArray(s.items)) yield walk(s.items, "item", at("items"), errs);
  for (const [k, v] of Object.entries(props)) yield walk(v, "field", `${path}.properties[${k}]`, errs);
  if (typeof ap === "object") yield walk(ap, "field", at("additionalProperties"), errs);
  // int-or-string may say `anyOf: [{type: integer}, {type: string}]`, directly or first in allOf.
  if (!isIntOrStringAnyOf(s.anyOf)) {
    for (const [i, n] of (s.anyOf ?? []).entries()) yield nested(n, `${path}.anyOf[${i}]`, errs);
  }
  for (const [i, n] of (s.allOf ?? []).entries()) {
    yield nested(
      i === 0 && isIntOrStringAnyOf(n.anyOf) ? { ...n, anyOf: undefined } : n,
      `${path}.allOf[${i}]`,
      errs,
    );
  }
  for (const [i, n] of (s.oneOf ?? []).entries()) yield nested(n, `${path}.oneOf[${i}]`, errs);
  if (s.not !== undefined) yield nested(s.not, at("not"), errs);
}

function typeRules(s: Schema, level: Level, path: string, errs: FieldError[]): void {
  const at = (k: string) => `${path}.${k}`;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  if (embedded && s.type !== "object") {
    errs.push(
      s.type
        ? {
            type: "FieldValueInvalid",
            field: at("type"),
            value: s.type,
            detail: "must be object if x-kubernetes-embedded-resource is true",
          }
        : {
            type: "FieldValueRequired",
            field: at("type"),
            detail: "must be object if x-kubernetes-embedded-resource is true",
          },
    );
  } else if (!s.type && !s["x-kubernetes-int-or-string"] && !s["x-kubernetes-preserve-unknown-fields"]) {
    const detail =
      level === "root"
        ? "must not be empty at the root"
        : level === "item"
          ? "must not be empty for specified array items"
          : "must not be empty for specified object fields";
    errs.push({ type: "FieldValueRequired", field: at("type"), detail });
  }
  if (embedded && s.additionalProperties !== undefined) {
    errs.push({
      type: "FieldValueForbidden",
      field: at("additionalProperties"),
      detail: "must not be used if x-kubernetes-embedded-resource is set",
    });
  }
  if (level === "root" && s.type && s.type !== "object") {
    errs.push({
      type: "FieldValueInvalid",
      field: at("type"),
      value: s.type,
      detail: "must be object at the root",
    });
  }
  if (s["x-kubernetes-int-or-string"] && s["x-kubernetes-preserve-unknown-fields"]) {
    errs.push({
      type: "FieldValueInvalid",
      field: at("x-kubernetes-preserve-unknown-fields"),
      value: true,
      detail: "must be false if x-kubernetes-int-or-string is true",
    });
  }
  const props = s.properties ?? {};
  if (level === "root" || embedded) {
    for (const [k, want] of [
      ["kind", "string"],
      ["apiVersion", "string"],
      ["metadata", "object"],
    ] as const) {
      const p = props[k];
      if (p !== undefined && p.type !== want) {
        errs.push({
          type: "FieldValueInvalid",
          field: `${path}.properties[${k}].type`,
          value: p.type ?? "",
          detail: `must be ${want}`,
        });
      }
    }
  }
  const meta = props.metadata;
  if (level === "root" && meta !== undefined && !onlyNameRestrictions(meta)) {
    errs.push({
      type: "FieldValueForbidden",
      field: `${path}.properties[metadata]`,
      detail:
        "must not specify anything other than name and generateName, but metadata is implicitly specified",
    });
  }
  if (embedded && !s["x-kubernetes-preserve-unknown-fields"] && Object.keys(props).length === 0) {
    errs.push({
      type: "FieldValueRequired",
      field: at("properties"),
      detail:
        "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
    });
  }
}

function isIntOrStringAnyOf(anyOf: Schema[] | undefined): boolean {
  if (anyOf?.length !== 2) return false;
  const only = (x: Schema, t: string) => Object.keys(x).length === 1 && x.type === t;
  return only(anyOf[0], "integer") && only(anyOf[1], "string");
}

/** Root metadata may carry a type and schemas for `name` / `generateName`, nothing else. */
function onlyNameRestrictions(meta: Schema): boolean {
  const { type: _t, properties, description: _d, ...rest } = meta;
  if (Object.keys(rest).length > 0) return false;
  return Object.keys(properties ?? {}).every((k) => k === "name" || k === "generateName");
}

/** Inside allOf/anyOf/oneOf/not only value validations are allowed. */
function* nested(s: Schema, path: string, errs: FieldError[]): Walk<void> {
  for (const [k, list] of [
    ["allOf", s.allOf],
    ["anyOf", s.anyOf],
    ["oneOf", s.oneOf],
  ] as const) {
    for (const [i, n] of (list ?? []).entries()) yield nested(n, `${path}.${k}[${i}]`, errs);
  }
  const forbid = (k: string, detail: string) =>
    errs.push({ type: "FieldValueForbidden", field: `${path}.${k}`, detail });
  if (s.type) forbid("type", "must be empty to be structural");
  if (s.additionalProperties !== undefined)
    forbid("additionalProperties", "must be undefined to be structural");
  if (s.default !== undefined) forbid("default", "must be undefined to be structural");
  if (s.title) forbid("title", "must be empty to be structural");
  if (s.description) forbid("description", "must be empty to be structural");
  if (s.nullable) forbid("nullable", "must be false to be structural");
  if (s["x-kubernetes-preserve-unknown-fields"])
    forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
  if (s["x-kubernetes-embedded-resource"])
    forbid("x-kubernetes-embedded-resource", "must be false to be structural");
  if (s["x-kubernetes-int-or-string"]) forbid("x-kubernetes-int-or-string", "must be false to be structural");
  if (s.properties?.metadata !== undefined)
    forbid("properties[metadata]", "must not be specified in a nested context");
  for (const [k, v] of Object.entries(s.properties ?? {})) yield nested(v, `${path}.properties[${k}]`, errs);
  if (s.items !== undefined && !Array.isArray(s.items)) yield nested(s.items, `${path}.items`, errs);
}

/**
 * Each `default` must be valid for its schema and survive pruning unchanged; defaults under
 * root metadata are not allowed.
 */
export function defaultErrors(schema: Schema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const visit = function* (s: Schema, p: string, underMetadata: boolean): Walk<void> {
    if (s.default !== undefined) {
      if (underMetadata) {
        errs.push({
          type: "FieldValueForbidden",
          field: `${p}.default`,
          detail: "must not be set inside metadata",
        });
      } else {
        for (const e of validateValue(s, s.default)) errs.push({ ...e, field: `${p}.default` });
        const wrapper: Schema = { type: "object", properties: { v: s } };
        if (
          isObject(s.default) &&
          findUnknownFields({ schema: wrapper as object }, { v: s.default }).length > 0
        ) {
          errs.push({
            type: "FieldValueInvalid",
            field: `${p}.default`,
            value: s.default,
            detail: "must not have unknown fields",
          });
        }
      }
    }
    for (const [k, v] of Object.entries(s.properties ?? {})) {
      yield visit(v, `${p}.properties[${k}]`, underMetadata || (p === path && k === "metadata"));
    }
    if (s.items !== undefined && !Array.isArray(s.items)) yield visit(s.items, `${p}.items`, underMetadata);
    if (typeof s.additionalProperties === "object")
      yield visit(s.additionalProperties, `${p}.additionalProperties`, underMetadata);
  };
  trampoline(visit(schema, path, false));
  return errs;
}
