// Structural pruning as apiextensions-apiserver does it: fields the schema does not specify are
// dropped unless `x-kubernetes-preserve-unknown-fields` (or a map's `additionalProperties`)
// keeps them. The object root and `x-kubernetes-embedded-resource` objects keep `apiVersion`
// and `kind`, and their `metadata` is pruned to ObjectMeta's fields.
import { trampoline, type Walk } from "../object/trampoline.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { OBJECT_META, schemaForDefinition } from "./builtin-schemas.js";
import type { Schema } from "./schema-types.js";
import { isObject, preservesUnknown, SchemaResolver, schemaOf } from "./schema-types.js";

/** Options of the unknown-field walk. */
export interface UnknownFieldOptions {
  /**
   * Schema of `metadata` at the root and in embedded resources, with the definitions it needs.
   * Default: the built-in ObjectMeta schema (pass one in to build it once).
   */
  objectMeta?: Schema;
}

/**
 * Drops unknown fields from `obj` in place and returns their paths (`spec.junk`,
 * `spec.items[0].junk`): what kube reports in `unknown field "..."` warnings. Objects without a
 * schema are left alone.
 */
export function pruneObject(
  def: Pick<ResourceDefinition, "schema">,
  obj: unknown,
  options: UnknownFieldOptions = {},
): string[] {
  const root = schemaOf(def);
  if (root === undefined) return [];
  return new UnknownFieldWalk(root, true, options).run(obj);
}

/**
 * The paths of fields the schema does not know, without changing `obj`. For custom resources
 * these are the fields pruning drops; for built-in kinds, the ones strict decoding rejects.
 */
export function findUnknownFields(
  def: Pick<ResourceDefinition, "schema">,
  obj: unknown,
  options: UnknownFieldOptions = {},
): string[] {
  const root = schemaOf(def);
  if (root === undefined) return [];
  return new UnknownFieldWalk(root, false, options).run(obj);
}

const child = (path: string, key: string) => (path ? `${path}.${key}` : key);

class UnknownFieldWalk {
  readonly #r: SchemaResolver;
  readonly #root: Schema;
  readonly #mutate: boolean;
  readonly #objectMeta: Schema;
  readonly #metaResolver: SchemaResolver;
  readonly #found: string[] = [];

  constructor(root: Schema, mutate: boolean, options: UnknownFieldOptions) {
    this.#root = root;
    this.#r = new SchemaResolver(root);
    this.#mutate = mutate;
    this.#objectMeta = options.objectMeta ?? objectMetaSchema();
    this.#metaResolver = new SchemaResolver(this.#objectMeta);
  }

  run(obj: unknown): string[] {
    trampoline(this.#walk(obj, this.#root, "", true, this.#r));
    return this.#found;
  }

  // Recursion through a trampoline: kube takes schemas and objects 10 000 levels deep. Scalars
  // hold no fields and are not walked.
  *#walk(
    value: unknown,
    schema0: Schema,
    path: string,
    resourceRoot: boolean,
    r: SchemaResolver,
  ): Walk<void> {
    const schema = r.resolve(schema0);
    if (schema === undefined) return;
    if (Array.isArray(value)) {
      const items = r.items(schema);
      if (items === undefined) return;
      for (let i = 0; i < value.length; i++) {
        // Only objects hold fields to prune: a scalar needs no path (an enum of 100 000 values
        // would build as many strings).
        const item = value[i];
        if (typeof item === "object" && item !== null)
          yield this.#walk(item, items, `${path}[${i}]`, false, r);
      }
      return;
    }
    if (!isObject(value)) return;
    const embedded = resourceRoot || schema["x-kubernetes-embedded-resource"] === true;
    const preserve = preservesUnknown(schema);
    for (const key of Object.keys(value)) {
      const v = value[key];
      const p = child(path, key);
      if (embedded && (key === "apiVersion" || key === "kind") && typeof v === "string") continue;
      if (embedded && key === "metadata" && isObject(v)) {
        // A built-in kind's own ObjectMeta schema is complete; a CRD's lists name at most.
        const own = r.property(schema, "metadata");
        if (own?.properties?.labels !== undefined) yield this.#walk(v, own, p, false, r);
        else yield this.#walk(v, this.#objectMeta, p, false, this.#metaResolver);
        continue;
      }
      const sub = r.property(schema, key);
      if (sub !== undefined) {
        if (typeof v === "object" && v !== null) yield this.#walk(v, sub, p, false, r);
      } else if (!preserve) {
        this.#found.push(p);
        if (this.#mutate) delete value[key];
      }
    }
  }
}

/** ObjectMeta's schema with its definitions: what `metadata` of any object may hold. */
export function objectMetaSchema(): Schema {
  return schemaForDefinition(OBJECT_META)!;
}
