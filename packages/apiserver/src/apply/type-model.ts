// The merge types of an object's fields, as structured-merge-diff's schema: maps (granular or
// atomic), lists (atomic, set, or map by keys) and scalars, read from a CRD's structural schema
// or a built-in kind's definitions plus its strategic-merge tags. Nodes resolve lazily: one walk
// visits only the fields an object has.
import { builtinPatchMeta, type PatchMeta } from "controller-runtime/patch";
import type { ResourceDefinition } from "../registry/index.js";
import { goFieldTable } from "../schema/go-fields.generated.js";
import { builtinDefinition, builtinDefinitionName, type Schema } from "../schema/index.js";
import { ATOMIC_FIELDS, LIST_MAP_KEYS, OBJECT_META_NAME, OBJECT_META_PATCH } from "./builtin-types.js";
import { ATOMIC_DEFINITIONS, FIELD_MAP_TYPES, LIST_TYPES } from "./merge-types.generated.js";
import type { Json } from "./path-element.js";

export interface ScalarType {
  readonly kind: "scalar";
  /** What SMD's schema says the scalar holds; untyped (int-or-string, unknown) when absent. */
  readonly scalar?: "string" | "numeric" | "boolean";
}

export interface MapType {
  readonly kind: "map";
  /** Owned and replaced as a whole (`x-kubernetes-map-type: atomic`). */
  readonly atomic: boolean;
  /** A struct that declares its fields and takes no others. */
  readonly closed: boolean;
  /** The type of a declared field, undefined for a key the schema does not name. */
  field(name: string): TypeNode | undefined;
  /** The type of keys the schema does not name (additionalProperties, or deduced). */
  element(): TypeNode;
}

export interface ListType {
  readonly kind: "list";
  readonly listType: "atomic" | "set" | "map";
  /** For `map` lists: the key fields. */
  readonly keys: readonly string[];
  /** Values of key fields an item may omit. */
  readonly keyDefaults: Readonly<Record<string, Json>>;
  element(): TypeNode;
}

/** No schema: the value's own shape decides (maps granular, lists atomic), as SMD's deduced type. */
export interface DeducedType {
  readonly kind: "deduced";
}

export type TypeNode = ScalarType | MapType | ListType | DeducedType;

export const SCALAR: ScalarType = Object.freeze({ kind: "scalar" });
const STRING: ScalarType = Object.freeze({ kind: "scalar", scalar: "string" });
const NUMERIC: ScalarType = Object.freeze({ kind: "scalar", scalar: "numeric" });
const BOOLEAN: ScalarType = Object.freeze({ kind: "scalar", scalar: "boolean" });

/** The typed scalar of a schema type (kube's OpenAPI to SMD conversion). */
function scalarOf(type: string | undefined): ScalarType {
  switch (type) {
    case "string":
      return STRING;
    case "integer":
    case "number":
      return NUMERIC;
    case "boolean":
      return BOOLEAN;
    default:
      return SCALAR;
  }
}
export const DEDUCED: DeducedType = Object.freeze({ kind: "deduced" });

const DEDUCED_MAP: MapType = Object.freeze({
  kind: "map",
  atomic: false,
  closed: false,
  field: () => undefined,
  element: () => DEDUCED,
});
/** Owned as a whole, whatever it holds: `+mapType=atomic` maps, RawExtensions. */
const ATOMIC_VALUE: MapType = Object.freeze({
  kind: "map",
  atomic: true,
  closed: false,
  field: () => undefined,
  element: () => DEDUCED,
});
const DEDUCED_LIST: ListType = Object.freeze({
  kind: "list",
  listType: "atomic",
  keys: [],
  keyDefaults: {},
  element: () => DEDUCED,
});

function isPlainObject(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * The type to walk `value` with: the declared type when the value has its shape, the value's own
 * shape for deduced fields, and a scalar (a leaf) when value and type disagree.
 */
export function typeFor(t: TypeNode, value: unknown): ScalarType | MapType | ListType {
  if (t.kind === "deduced") {
    if (isPlainObject(value)) return DEDUCED_MAP;
    if (Array.isArray(value)) return DEDUCED_LIST;
    return SCALAR;
  }
  if (t.kind === "map") return isPlainObject(value) ? t : SCALAR;
  if (t.kind === "list") return Array.isArray(value) ? t : SCALAR;
  return SCALAR;
}

interface Context {
  /** Definition whose properties are being read (built-ins), for the override tables. */
  readonly definition: string | undefined;
  readonly patch: PatchMeta | undefined;
}

/** Builds types from schemas, resolving built-in `$ref`s once per model. */
class TypeBuilder {
  readonly #definitions = new Map<string, Schema | undefined>();

  definition(name: string): Schema | undefined {
    if (!this.#definitions.has(name)) this.#definitions.set(name, builtinDefinition(name));
    return this.#definitions.get(name);
  }

  node(schema: Schema | undefined, ctx: Context, field?: string): TypeNode {
    let s = schema;
    let definition: string | undefined;
    for (let i = 0; s?.$ref !== undefined && i < 16; i++) {
      definition = s.$ref.replace("#/definitions/", "");
      s = this.definition(definition);
    }
    if (s === undefined) return DEDUCED;
    if (s["x-kubernetes-int-or-string"] || s.anyOf || s.oneOf) return SCALAR;
    const at = ctx.definition && field ? `${ctx.definition}.${field}` : undefined;
    const mapType = at === undefined ? undefined : FIELD_MAP_TYPES[at];
    if (at !== undefined && (mapType === "atomic" || ATOMIC_FIELDS.has(at))) return ATOMIC_VALUE;
    if (s.type === "array") return this.list(s, ctx, field);
    const isObject =
      s.type === "object" || s.properties !== undefined || s.additionalProperties !== undefined;
    if (!isObject)
      return s.type === undefined || s["x-kubernetes-preserve-unknown-fields"] ? DEDUCED : scalarOf(s.type);
    if (s.properties === undefined && typeof s.additionalProperties !== "object") return DEDUCED_MAP;
    const inner: Context = { definition: definition ?? ctx.definition, patch: ctx.patch };
    return this.map(s, inner, definition, mapType === "granular");
  }

  /** `granular`: the field holding it says so, whatever its definition says (a PV's claimRef). */
  map(s: Schema, ctx: Context, definition: string | undefined, granular = false): MapType {
    const atomic =
      !granular &&
      (s["x-kubernetes-map-type"] === "atomic" ||
        (definition !== undefined && ATOMIC_DEFINITIONS.has(definition)));
    const props = s.properties ?? {};
    const ap = s.additionalProperties;
    const fields = new Map<string, TypeNode>();
    let element: TypeNode | undefined;
    const closed = (ap === undefined || ap === false) && !s["x-kubernetes-preserve-unknown-fields"];
    return {
      kind: "map",
      atomic,
      closed,
      field: (name) => {
        if (!Object.hasOwn(props, name)) return undefined;
        let t = fields.get(name);
        if (t === undefined) {
          const patch = ctx.patch?.fields?.[name];
          t =
            name === "metadata" && definition !== OBJECT_META_NAME && isObjectMetaSlot(props[name])
              ? this.objectMeta()
              : this.node(props[name], { definition: ctx.definition, patch }, name);
          fields.set(name, t);
        }
        return t;
      },
      element: () => {
        element ??=
          typeof ap === "object"
            ? this.node(ap, { definition: undefined, patch: ctx.patch?.items })
            : DEDUCED;
        return element;
      },
    };
  }

  list(s: Schema, ctx: Context, field: string | undefined): ListType {
    const items = Array.isArray(s.items) ? undefined : s.items;
    const itemSchema = this.resolve(items);
    let listType: ListType["listType"] = "atomic";
    let keys: readonly string[] = [];
    let keyDefaults: Record<string, Json> = {};
    const at = ctx.definition && field ? `${ctx.definition}.${field}` : undefined;
    const override = at === undefined ? undefined : LIST_MAP_KEYS[at];
    // kube's OpenAPI for built-ins (+listType, +listMapKey), else the schema's own (CRDs), else
    // the strategic-merge tags, as kube-openapi's schemaconv falls back to them.
    const known = at === undefined ? undefined : LIST_TYPES[at];
    const declared = known?.startsWith("map:") ? "map" : (known ?? s["x-kubernetes-list-type"]);
    const strategy = ctx.patch?.strategy ?? s["x-kubernetes-patch-strategy"];
    const mergeKey = ctx.patch?.mergeKey ?? s["x-kubernetes-patch-merge-key"];
    if (declared === "set" || declared === "map" || declared === "atomic") {
      listType = declared;
      if (declared === "map")
        keys = known !== undefined ? known.slice(4).split(",") : (s["x-kubernetes-list-map-keys"] ?? []);
      if (override) keyDefaults = { ...override.defaults };
    } else if (override) {
      listType = "map";
      keys = override.keys;
      keyDefaults = { ...override.defaults };
    } else if (strategy === "merge" || strategy === "merge,retainKeys") {
      listType = mergeKey ? "map" : "set";
      if (mergeKey) keys = [mergeKey];
    }
    if (listType === "map") {
      const goZeros = goZeroKeys(items?.$ref);
      for (const k of keys) {
        const d =
          itemSchema?.properties?.[k]?.default ??
          (goZeros.has(k) ? zeroOf(itemSchema?.properties?.[k]) : undefined);
        if (d !== undefined && !(k in keyDefaults)) keyDefaults[k] = d as Json;
      }
    }
    let element: TypeNode | undefined;
    return {
      kind: "list",
      listType,
      keys,
      keyDefaults,
      element: () => {
        element ??= this.node(items, { definition: ctx.definition, patch: ctx.patch?.items });
        return element;
      },
    };
  }

  resolve(schema: Schema | undefined): Schema | undefined {
    let s = schema;
    for (let i = 0; s?.$ref !== undefined && i < 16; i++)
      s = this.definition(s.$ref.replace("#/definitions/", ""));
    return s;
  }

  objectMeta(): TypeNode {
    return this.node(
      { $ref: `#/definitions/${OBJECT_META_NAME}` },
      { definition: undefined, patch: OBJECT_META_PATCH },
    );
  }
}

// The root's and embedded templates' `metadata` is always ObjectMeta (a CRD schema says only
// `type: object` there); other fields named metadata keep their own schema.
function isObjectMetaSlot(s: Schema | undefined): boolean {
  return (
    s === undefined || s.$ref?.endsWith(OBJECT_META_NAME) === true || (s.type === "object" && !s.properties)
  );
}

/**
 * The object types of one API server, by definition: the merge type of a whole object of a
 * resource, from its CRD schema, or for built-ins from the generated definitions and
 * strategic-merge tags; deduced where nothing is known. A definition's type never changes (a
 * changed CRD is a new definition) and its nodes resolve lazily, so every write of a kind shares
 * the nodes built so far.
 */
export class TypeModels {
  readonly #built = new WeakMap<ResourceDefinition, MapType>();

  /** The merge type of `def`'s objects, built on first use. */
  of(def: ResourceDefinition): MapType {
    let t = this.#built.get(def);
    if (!t) {
      t = buildObjectType(def);
      this.#built.set(def, t);
    }
    return t;
  }
}

function buildObjectType(def: ResourceDefinition): MapType {
  const builder = new TypeBuilder();
  if (def.crdName) {
    const schema: Schema = { ...((def.schema ?? { type: "object" }) as Schema) };
    schema.type = "object";
    schema.properties = {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      ...(schema.properties ?? {}),
    };
    if (def.preserveUnknownFields && schema.additionalProperties === undefined)
      schema.additionalProperties = {};
    return builder.map(schema, { definition: undefined, patch: def.patchMeta }, undefined);
  }
  const patch = def.patchMeta ?? builtinPatchMeta(def.group, def.version, def.kind);
  const name = builtinDefinitionName(def.group, def.version, def.kind);
  const root = name ? builder.definition(name) : undefined;
  if (!root) {
    // No generated schema: everything deduced except metadata and the strategic-merge lists.
    const schema: Schema = {
      type: "object",
      properties: { metadata: { type: "object" } },
      additionalProperties: {},
    };
    return builder.map(schema, { definition: undefined, patch }, undefined);
  }
  return builder.map(root, { definition: name, patch }, name);
}

/**
 * The fields of a built-in definition Go always writes as scalars (no pointer, no omitempty).
 * kube 1.37's OpenAPI gives them their zero value as default, so a list item without such a key
 * is keyed by the zero (a container without a name is `name=""`) and left to validation.
 */
function goZeroKeys(ref: string | undefined): Set<string> {
  const m = ref ? /^#\/definitions\/io\.k8s\.api\.(.+)$/.exec(ref) : null;
  const spec = m ? goFieldTable()[m[1]] : undefined;
  if (!spec) return new Set();
  return new Set(spec.split(" ").flatMap((f) => (f.endsWith(":z") ? [f.slice(0, -2)] : [])));
}

function zeroOf(property: Schema | undefined): Json | undefined {
  switch (property?.type) {
    case "string":
      return "";
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      return undefined;
  }
}
