// Generates src/apiserver/schema/go-fields.generated.ts: for every built-in definition the
// embedded server describes, its fields in Go declaration order and the ones Go's encoder writes
// even when unset, read from k8s.io/api's types.go, apiextensions-apiserver's (CRDs) and
// kube-aggregator's (APIServices) (from the Go module cache, at the release
// src/apiserver/server-version.ts names; see go-source.ts). OpenAPI carries neither fact, and both show in
// every answer: a Deployment always has `status: {}` and `strategy: {}`, an Event
// `eventTime: null` and `reportingComponent: ""`, keys come in struct order.
//
//   npx tsx scripts/gen-go-fields.ts   # reads k8s.io/api of the server's release from the Go module cache
//
// Field classes (after the JSON name, `name:c`): `s` a struct value (always written, as an object
// holding its own always-written fields), `n` a pointer, slice or map without omitempty (null),
// `z` a scalar without omitempty (its zero value), `t` a metav1.Time or MicroTime (null when
// unset), `q` a resource.Quantity ("0"), `i` an intstr.IntOrString (0), `d` a metav1.Duration
// ("0s"), `r` a runtime.RawExtension (null). Fields without a class are left out when unset.
// `o` marks a scalar with omitempty (or omitzero), which Go drops when it holds its zero value
// (a container's `stdin: false`, a column's `priority: 0`, `workingDir: ""`); and a
// third part overrides the schema's type code where a Go type writes itself (MarshalJSON): `json`
// for apiextensions' JSON (any value, its maps' keys sorted: kube converts it through
// interface{}), `|@…JSONSchemaProps` for the schema-or-bool/array/string-list types.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtinCompactDefinitions } from "../packages/apiserver/src/schema/builtin-schemas.generated.js";
import {
  type GoField,
  type GoType,
  goPackageDir,
  readGoPackage,
  resolveType,
  STAGING_VERSION,
} from "./go-source.js";
import { lazyJsonTable } from "./lazy-json-module.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = join(ROOT, "packages/apiserver/src/schema/go-fields.generated.ts");

const special: Record<string, string> = {
  "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "t",
  "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "t",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "d",
  "k8s.io/apimachinery/pkg/api/resource.Quantity": "q",
  "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "i",
  "k8s.io/apimachinery/pkg/runtime.RawExtension": "r",
};

/** The packages read besides k8s.io/api's: CRDs' and APIServices'. */
const EXTRA_PACKAGES: Record<string, string> = {
  apiextensions: "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions",
  apiregistration: "k8s.io/kube-aggregator/pkg/apis/apiregistration",
};
const isExtra = (pkgPath: string) => Object.values(EXTRA_PACKAGES).some((p) => pkgPath.startsWith(`${p}/`));

/**
 * apiextensions' types with a MarshalJSON of their own, as the type codes the encoder knows them
 * by. A new one in a later release stops the generator: its output must be looked at first.
 */
const SELF_MARSHALLED: Record<string, string> = {
  JSON: "json",
  JSONSchemaPropsOrArray: "|@apiextensions.v1.JSONSchemaProps",
  JSONSchemaPropsOrBool: "|@apiextensions.v1.JSONSchemaProps",
  JSONSchemaPropsOrStringArray: "|@apiextensions.v1.JSONSchemaProps",
};

function checkSelfMarshalled(pkgPath: string): void {
  const dir = goPackageDir(pkgPath);
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"))) {
    for (const m of readFileSync(join(dir, file), "utf8").matchAll(/^func \(\w+ \*?(\w+)\) MarshalJSON\(/gm))
      if (!(m[1] in SELF_MARSHALLED)) throw new Error(`${pkgPath}.${m[1]} has its own MarshalJSON: model it`);
  }
}

/** Whether `pkgPath.name` is a struct type (only kube's API packages and metav1 structs are). */
function isStruct(pkgPath: string, name: string): boolean {
  if (pkgPath.startsWith("k8s.io/api/") || isExtra(pkgPath)) {
    if (isExtra(pkgPath) && name in SELF_MARSHALLED) return false;
    return readGoPackage(pkgPath).types.get(name)?.fields !== undefined;
  }
  return (
    pkgPath === "k8s.io/apimachinery/pkg/apis/meta/v1" &&
    /^[A-Z]/.test(name) &&
    !["Time", "MicroTime", "Duration", "ConditionStatus"].includes(name) &&
    name !== "Verbs"
  );
}

function classOf(pkgPath: string, t: GoType, f: GoField): string {
  const type = f.type;
  const omitted = f.omitempty || f.omitzero;
  // A pointer, slice or map is left out when nil (omitempty drops an empty one too); a pointer to
  // a zero value (`stdin: false` behind a *bool) is kept.
  if (type.startsWith("*") || type.startsWith("[]") || type.startsWith("map[")) return omitted ? "" : "n";
  const [typePkg, name] = resolveType(pkgPath, t, type);
  const sp = special[`${typePkg}.${name}`];
  // omitzero leaves out a struct at its zero value (a metav1.Time never set); omitempty never does.
  if (sp) return f.omitzero ? "" : sp;
  if (isStruct(typePkg, name)) return f.omitzero ? "" : "s";
  if (!omitted) return "z";
  // A named map or slice (JSONSchemaDefinitions) is left out when empty, as any collection.
  const underlying = readGoPackageIfKnown(typePkg)?.types.get(name)?.underlying ?? "";
  if (underlying.startsWith("[]") || underlying.startsWith("map[") || name in SELF_MARSHALLED) return "";
  // A scalar (bool, integer, string or a named string type) at its zero value: Go drops it.
  return "o";
}

function readGoPackageIfKnown(pkgPath: string) {
  return pkgPath.startsWith("k8s.io/api/") || isExtra(pkgPath) ? readGoPackage(pkgPath) : undefined;
}

/** The type code of a field whose Go type writes itself (see SELF_MARSHALLED), else undefined. */
function selfMarshalledCode(pkgPath: string, t: GoType, type: string): string | undefined {
  if (!isExtra(pkgPath)) return undefined;
  const m = /^(\*|\[\]|map\[string\])?(.*)$/.exec(type)!;
  const [typePkg, name] = resolveType(pkgPath, t, m[2]);
  const prefix = m[1] === "[]" ? "[]" : m[1] === "map[string]" ? "{}" : "";
  const own = SELF_MARSHALLED[name];
  if (own) return `${prefix}${own}`;
  const underlying = readGoPackageIfKnown(typePkg)?.types.get(name)?.underlying;
  return underlying && !m[1] ? selfMarshalledCode(typePkg, t, underlying) : undefined;
}

/** The fields of a struct with inline embeddings spliced in, as Go's encoder flattens them. */
function fieldsOf(pkgPath: string, structName: string): { json: string; cls: string; code?: string }[] {
  const t = readGoPackage(pkgPath).types.get(structName);
  const out: { json: string; cls: string; code?: string }[] = [];
  for (const f of t?.fields ?? []) {
    if (f.inline) {
      if (f.type.includes(".")) continue; // metav1.TypeMeta: kind and apiVersion, written first anyway
      out.push(...fieldsOf(pkgPath, f.type.replace(/^\*/, "")));
      continue;
    }
    out.push({ json: f.json, cls: classOf(pkgPath, t!, f), code: selfMarshalledCode(pkgPath, t!, f.type) });
  }
  return out;
}

const entry = (f: { json: string; cls: string; code?: string }) =>
  f.code ? `${f.json}:${f.cls}:${f.code}` : f.cls ? `${f.json}:${f.cls}` : f.json;

const out: Record<string, string> = {};
for (const p of Object.values(EXTRA_PACKAGES)) checkSelfMarshalled(`${p}/v1`);
for (const short of Object.keys(builtinCompactDefinitions()).sort()) {
  const [module, version, ...rest] = short.split(".");
  if (module === "meta") continue; // apimachinery's: below
  const pkgPath = `${EXTRA_PACKAGES[module] ?? `k8s.io/api/${module}`}/${version}`;
  const name = rest.join(".");
  if (readGoPackage(pkgPath).types.get(name)?.fields === undefined) continue;
  out[short] = fieldsOf(pkgPath, name).map(entry).join(" ");
}
// From apimachinery: ObjectMeta (by 1.37 its creationTimestamp is omitzero: never null),
// GroupResource (a StorageVersionMigration's resource always has its group) and Condition (its
// lastTransitionTime is written null when unset, and kube answers a status write with every field
// of a condition but observedGeneration: see managed-fields.recorded.json and the status half of
// the validation table). LabelSelector is left to the objects as written.
for (const name of ["ObjectMeta", "GroupResource", "Condition"]) {
  out[`meta.v1.${name}`] = fieldsOf("k8s.io/apimachinery/pkg/apis/meta/v1", name)
    .map((f) => (f.cls ? `${f.json}:${f.cls}` : f.json))
    .join(" ");
}

const text =
  `// Generated by scripts/gen-go-fields.ts from k8s.io/api, apiextensions-apiserver and kube-aggregator ${STAGING_VERSION}: do not edit.\n` +
  "// Fields in Go declaration order; `name:c` marks what Go's encoder writes when unset (see the script).\n" +
  lazyJsonTable(
    "goFieldTable",
    "Record<string, string>",
    "Each built-in definition's Go fields, by its short name.",
    out,
  );
writeFileSync(OUTPUT, text);
console.log(`wrote ${OUTPUT}: ${Object.keys(out).length} definitions`);
