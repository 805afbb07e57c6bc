// The structural schema model: OpenAPI v3 as CRDs write it, plus Kubernetes' `x-kubernetes-*`
// extensions, which kubernetes-types' JSONSchemaProps leaves out.
import type { JSONSchemaProps } from "kubernetes-types/apiextensions/v1.js";
import type { ResourceDefinition } from "../registry/resource.js";

export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  description?: string;
  title?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema | Schema[];
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  /** Named schemas that `$ref: "#/definitions/<name>"` points to (only read at the root). */
  definitions?: Record<string, Schema>;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: string;
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: string;
  "x-kubernetes-validations"?: unknown[];
  "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[];
  "x-kubernetes-patch-merge-key"?: string;
  "x-kubernetes-patch-strategy"?: string;
}

const REF_PREFIX = "#/definitions/";

/** The schema of a resource, typed with the extensions; undefined when it has none. */
export function schemaOf(def: Pick<ResourceDefinition, "schema">): Schema | undefined {
  return def.schema as Schema | undefined;
}

/** Widens a schema to the registry's JSONSchemaProps type (the extensions ride along). */
export function asJSONSchemaProps(schema: Schema): JSONSchemaProps {
  return schema as unknown as JSONSchemaProps;
}

/**
 * Follows `$ref`s against the root's `definitions`. Built-in schemas are shared graphs by name
 * (some are recursive, like JSONSchemaProps), so walkers resolve each node through this.
 */
export class SchemaResolver {
  readonly #definitions: Record<string, Schema>;

  constructor(root: Schema) {
    this.#definitions = root.definitions ?? {};
  }

  resolve(schema: Schema | undefined): Schema | undefined {
    let s = schema;
    // A bounded loop: a ref to a ref is legal, a cycle of pure refs is not.
    for (let i = 0; s?.$ref !== undefined && i < 16; i++) {
      const name = s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref;
      s = this.#definitions[name];
    }
    return s;
  }

  /** The schema of an object's property `key`, or of its additional properties. */
  property(schema: Schema, key: string): Schema | undefined {
    const prop = schema.properties?.[key];
    if (prop !== undefined) return this.resolve(prop);
    const ap = schema.additionalProperties;
    return typeof ap === "object" ? this.resolve(ap) : undefined;
  }

  /** The schema of an array's elements. */
  items(schema: Schema): Schema | undefined {
    const items = schema.items;
    if (items === undefined || Array.isArray(items)) return undefined;
    return this.resolve(items);
  }
}

/** Plain JSON object test (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a schema keeps fields it does not list. */
export function preservesUnknown(schema: Schema): boolean {
  return schema["x-kubernetes-preserve-unknown-fields"] === true || schema.additionalProperties === true;
}

/** A shallow copy of `s` without allOf, oneOf, anyOf and not, which swagger 2.0 cannot say. */
export function withoutCombinators(s: Schema): Schema {
  const { allOf: _all, oneOf: _one, anyOf: _any, not: _not, ...rest } = s;
  return rest;
}
