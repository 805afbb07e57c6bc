// Schemas of the built-in kinds, expanded from the compact generated module into OpenAPI v3
// definitions named as kube names them (`io.k8s.api.core.v1.Pod`). Leaf types kube models as
// their own definitions (Quantity, IntOrString, Time, RawExtension, ...) are definitions here
// too, so the OpenAPI v2 renderer can swap in their v2 forms.
import type { CompactDefinition } from "./compact-definition.js";
import { builtinCompactDefinitions } from "./builtin-schemas.generated.js";
import type { Schema } from "./schema-types.js";

export type { CompactDefinition } from "./compact-definition.js";

/** kube's package prefix per module outside k8s.io/api (see scripts/gen-builtin-schemas.ts). */
const PACKAGES: Record<string, string> = {
  meta: "io.k8s.apimachinery.pkg.apis.meta",
  apiextensions: "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions",
  apiregistration: "io.k8s.kube-aggregator.pkg.apis.apiregistration",
};

export const QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity";
export const INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString";
export const TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time";
export const RAW_EXTENSION = "io.k8s.apimachinery.pkg.runtime.RawExtension";
export const FIELDS_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1";
export const OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });

/** The leaf definitions, in their OpenAPI v3 forms. */
function leafDefinitions(): Record<string, Schema> {
  return {
    [QUANTITY]: { oneOf: [{ type: "string" }, { type: "number" }] },
    [INT_OR_STRING]: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
    [TIME]: { type: "string", format: "date-time" },
    [RAW_EXTENSION]: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
    [FIELDS_V1]: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
  };
}

/** `core.v1.Pod` → `io.k8s.api.core.v1.Pod`. */
export function fullDefinitionName(short: string): string {
  const dot = short.indexOf(".");
  const module = short.slice(0, dot);
  return `${PACKAGES[module] ?? `io.k8s.api.${module}`}${short.slice(dot)}`;
}

function expand(code: string): Schema {
  if (code.startsWith("[]")) return { type: "array", items: expand(code.slice(2)) };
  if (code.startsWith("{}")) return { type: "object", additionalProperties: expand(code.slice(2)) };
  if (code.startsWith("@")) return ref(fullDefinitionName(code.slice(1)));
  switch (code) {
    case "string":
    case "boolean":
      return { type: code };
    case "integer":
      return { type: "integer", format: "int64" };
    case "int32":
      return { type: "integer", format: "int32" };
    case "number":
      return { type: "number", format: "double" };
    case "date-time":
      return ref(TIME);
    case "int-or-string":
      return ref(INT_OR_STRING);
    case "quantity":
      return ref(QUANTITY);
    case "object":
      return ref(RAW_EXTENSION);
    case "fields-v1":
      return ref(FIELDS_V1);
    default:
      return { "x-kubernetes-preserve-unknown-fields": true };
  }
}

function expandDefinition(def: CompactDefinition): Schema {
  const schema: Schema = { type: "object", properties: {} };
  for (const [k, code] of Object.entries(def.properties)) schema.properties![k] = expand(code);
  if (def.required) schema.required = [...def.required];
  if (def.gvk) {
    const [group, version, kind] = def.gvk;
    schema["x-kubernetes-group-version-kind"] = [{ group, version, kind }];
  }
  return schema;
}

/** `io.k8s.api.core.v1.Pod` → `core.v1.Pod`. */
function shortDefinitionName(full: string): string {
  for (const [module, pkg] of Object.entries(PACKAGES)) {
    if (full.startsWith(`${pkg}.`)) return `${module}${full.slice(pkg.length)}`;
  }
  return full.replace(/^io\.k8s\.api\./, "");
}

/** One built-in definition by kube's name, freshly built; undefined if unknown. */
export function builtinDefinition(name: string): Schema | undefined {
  const leaf = leafDefinitions()[name];
  if (leaf !== undefined) return leaf;
  const def = builtinCompactDefinitions()[shortDefinitionName(name)];
  return def === undefined ? undefined : expandDefinition(def);
}

/**
 * Every built-in definition by kube's name, freshly built (callers may change them). The
 * server builds these once per registry generation through its OpenAPI cache.
 */
export function builtinDefinitions(): Record<string, Schema> {
  const out: Record<string, Schema> = leafDefinitions();
  for (const [short, def] of Object.entries(builtinCompactDefinitions()))
    out[fullDefinitionName(short)] = expandDefinition(def);
  return out;
}

/** The definition name of a built-in kind (`io.k8s.api.apps.v1.Deployment`), if there is one. */
export function builtinDefinitionName(group: string, version: string, kind: string): string | undefined {
  if (namesByKind === undefined) {
    // Built on first use: the OpenAPI documents ask for every resource's kind and list kind.
    namesByKind = new Map();
    for (const [short, def] of Object.entries(builtinCompactDefinitions())) {
      const key = def.gvk && `${def.gvk[0]}/${def.gvk[1]}/${def.gvk[2]}`;
      // The first definition of a kind, as the scan this replaces found it.
      if (key && !namesByKind.has(key)) namesByKind.set(key, fullDefinitionName(short));
    }
  }
  return namesByKind.get(`${group}/${version}/${kind}`);
}

let namesByKind: Map<string, string> | undefined;

/**
 * The schema of a built-in kind: its definition at the root, with every definition it reaches
 * under `definitions` (walkers resolve `$ref`s through SchemaResolver). Undefined for kinds
 * without a generated schema.
 */
export function builtinSchema(group: string, version: string, kind: string): Schema | undefined {
  const name = builtinDefinitionName(group, version, kind);
  return name === undefined ? undefined : schemaForDefinition(name);
}

/**
 * A definition with the definitions it reaches, as a self-contained schema. Definitions come
 * from `lookup` (default: the built-ins, expanded on demand).
 */
export function schemaForDefinition(
  name: string,
  lookup: (name: string) => Schema | undefined = builtinDefinition,
): Schema | undefined {
  const definitions = reachable(name, lookup);
  const root = definitions[name];
  return root === undefined ? undefined : { ...root, definitions };
}

/** The definitions reachable from `name` (itself included). */
export function reachable(
  name: string,
  lookup: (name: string) => Schema | undefined,
): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  const pending = [name];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (out[next] !== undefined) continue;
    const def = lookup(next);
    if (def === undefined) continue;
    out[next] = def;
    collectRefs(def, pending);
  }
  return out;
}

function collectRefs(root: Schema, into: string[]): void {
  // With a stack: a CRD's schema may nest 10 000 levels.
  const stack = [root];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (s.$ref) into.push(s.$ref.replace("#/definitions/", ""));
    stack.push(...Object.values(s.properties ?? {}));
    if (s.items && !Array.isArray(s.items)) stack.push(s.items);
    if (typeof s.additionalProperties === "object") stack.push(s.additionalProperties);
    for (const list of [s.allOf, s.anyOf, s.oneOf]) stack.push(...(list ?? []));
  }
}
