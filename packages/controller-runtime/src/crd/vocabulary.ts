// Kubernetes' schema vocabulary on TypeBox: each helper returns a TypeBox schema, so `Static<>`
// gives the TypeScript type, and carries the OpenAPI keywords a CRD needs (int-or-string, list
// types and map keys, embedded resources, preserved unknown fields, CEL rules), which
// structural.ts turns into the schema kube-apiserver takes.
import Type, {
  type Static,
  type TArray,
  type TObject,
  type TProperties,
  type TSchema,
  type TUnsafe,
} from "typebox";
import type { Condition, ObjectMeta } from "kubernetes-types/meta/v1.js";
import { conditionSchema } from "../api/conditions.js";
import type { KubeObject } from "../api/object.js";

/** A CEL validation rule (`x-kubernetes-validations`), as kube-apiserver evaluates it. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  /** `FieldValueInvalid` (the default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`. */
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  /** Where the error points, relative to the schema the rule is on: `.spec.replicas`. */
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** `x-kubernetes-int-or-string`: a number or a string (ports, percentages). */
export function intOrString(
  opts: { description?: string; default?: number | string } = {},
): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({
    ...opts,
    anyOf: [{ type: "integer" }, { type: "string" }],
    "x-kubernetes-int-or-string": true,
  });
}

/** A `resource.Quantity` (`500m`, `1Gi`, `2`), with the pattern controller-gen writes for it. */
export function quantity(
  opts: { description?: string; default?: number | string } = {},
): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({
    ...intOrString(opts),
    pattern:
      "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
  });
}

/** A map from string keys to `value` (`additionalProperties`; Go's `map[string]T`). */
export function map<V extends TSchema>(
  value: V,
  opts: { description?: string; maxProperties?: number } = {},
) {
  return Type.Record(Type.String(), value, opts);
}

/** A string that is one of `values`. */
export function stringEnum<const V extends readonly [string, ...string[]]>(
  values: V,
  opts: { description?: string; default?: V[number] } = {},
): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ ...opts, type: "string", enum: [...values] });
}

/** `schema`, or null (`nullable: true`). */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, nullable: true });
}

/** An object whose fields beyond `properties` are kept as sent (`x-kubernetes-preserve-unknown-fields`). */
export function preserveUnknownFields<P extends TProperties = Record<string, never>>(
  properties?: P,
  opts: { description?: string } = {},
): TUnsafe<Static<TObject<P>> & Record<string, unknown>> {
  const obj = Type.Object(properties ?? ({} as P), opts);
  return Type.Unsafe<Static<TObject<P>> & Record<string, unknown>>({
    ...obj,
    "x-kubernetes-preserve-unknown-fields": true,
  });
}

/** Any JSON value, kept as sent (a free-form field: `x-kubernetes-preserve-unknown-fields`). */
export function anyJSON(opts: { description?: string } = {}): TUnsafe<unknown> {
  return Type.Unsafe<unknown>({ ...opts, "x-kubernetes-preserve-unknown-fields": true });
}

/**
 * An object embedded in another's spec: its own data, so its metadata is a plain (mutable)
 * ObjectMeta, as the types generated from a CRD spell it.
 */
export type EmbeddedObject = {
  apiVersion?: string | undefined;
  kind?: string | undefined;
  metadata?: ObjectMeta | undefined;
} & Record<string, unknown>;

/** A whole Kubernetes object inside this one (a Pod template, say): `x-kubernetes-embedded-resource`. */
export function embeddedResource<T extends KubeObject = EmbeddedObject>(
  opts: { description?: string } = {},
): TUnsafe<T> {
  return Type.Unsafe<T>({
    ...opts,
    type: "object",
    "x-kubernetes-embedded-resource": true,
    "x-kubernetes-preserve-unknown-fields": true,
  });
}

/** A list of objects keyed by `keys` (`x-kubernetes-list-type: map`): merged item by item by apply. */
export function listMap<T extends TObject>(
  items: T,
  keys: readonly [keyof Static<T> & string, ...(keyof Static<T> & string)[]],
  opts: { description?: string; maxItems?: number; minItems?: number } = {},
): TArray<T> {
  return Type.Array(items, {
    ...opts,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": [...keys],
  });
}

/** A list of distinct scalars (`x-kubernetes-list-type: set`). */
export function listSet<T extends TSchema>(
  items: T,
  opts: { description?: string; maxItems?: number; minItems?: number } = {},
): TArray<T> {
  return Type.Array(items, { ...opts, "x-kubernetes-list-type": "set" });
}

/** A list replaced whole by apply (`x-kubernetes-list-type: atomic`). */
export function atomicList<T extends TSchema>(
  items: T,
  opts: { description?: string; maxItems?: number; minItems?: number } = {},
): TArray<T> {
  return Type.Array(items, { ...opts, "x-kubernetes-list-type": "atomic" });
}

/** `status.conditions` as kubebuilder declares `[]metav1.Condition`: a list map keyed by type. */
export function conditions(opts: { description?: string } = {}): TUnsafe<Condition[]> {
  return Type.Unsafe<Condition[]>({
    description: "Conditions of the object's current state.",
    ...opts,
    type: "array",
    items: structuredClone(conditionSchema),
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": ["type"],
  });
}

/** `schema` with CEL validation rules added (`x-kubernetes-validations`). */
export function withRules<T extends TSchema>(schema: T, rules: readonly ValidationRule[]): T {
  const existing =
    ((schema as Record<string, unknown>)["x-kubernetes-validations"] as ValidationRule[]) ?? [];
  // Every own property, TypeBox's hidden markers too (`~optional` decides `required`).
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T;
  (copy as Record<string, unknown>)["x-kubernetes-validations"] = [...existing, ...rules];
  return copy;
}

/** The Kubernetes vocabulary, as `k.quantity()`, `k.listMap(...)`, ... */
export const k = Object.freeze({
  intOrString,
  quantity,
  map,
  stringEnum,
  nullable,
  preserveUnknownFields,
  anyJSON,
  embeddedResource,
  listMap,
  listSet,
  atomicList,
  conditions,
  withRules,
});
