// Generates src/apiserver/schema/builtin-schemas.generated.ts: compact OpenAPI schemas of the
// built-in kinds the embedded API server serves, read from kube's Go types (k8s.io/api,
// k8s.io/apimachinery, apiextensions-apiserver and kube-aggregator in the Go module cache, at the
// release in src/apiserver/server-version.ts; see scripts/go-source.ts). kube's own OpenAPI is
// generated from the same files by kube-openapi, whose rules this follows.
//
//   npx tsx scripts/gen-builtin-schemas.ts           # rewrite the generated file
//   npx tsx scripts/gen-builtin-schemas.ts --check   # exit 1 if its data is out of date
//
// Mapping rules (Go → OpenAPI):
// - string and named string types → string; bool → boolean; []byte → string (base64);
// - int32 → int32 (integer, format int32), int64 → integer (format int64); float32/float64 → number;
// - *T → T; []T → array of T; map[K]T → map (additionalProperties T);
// - intstr.IntOrString → int-or-string; resource.Quantity → quantity (string or number);
// - metav1.Time, MicroTime → string, format date-time; metav1.Duration → string;
// - runtime.RawExtension, metav1.FieldsV1 → objects that keep unknown fields; apiextensions JSON
//   and the JSONSchemaProps*Or* unions → any value;
// - structs → shared definitions by kube's name (io.k8s.api.core.v1.PodSpec), written short
//   (core.v1.PodSpec) and expanded by builtin-schemas.ts; embedded `json:",inline"` structs
//   splice their fields in;
// - a field is required unless `+optional` (or omitempty without `+required`), as kube-openapi
//   decides; required names in declaration order, as kube lists them.
// Descriptions are dropped to keep the module small.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import type { CompactDefinition } from "../packages/apiserver/src/schema/compact-definition.js";
import { type GoField, isOptional, readGoPackage, resolveType } from "./go-source.js";
import { lazyJsonTable } from "./lazy-json-module.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const OUTPUT = join(ROOT, "packages/apiserver/src/schema/builtin-schemas.generated.ts");

/** The kinds to describe: module, interface names, and the group of their GVK. */
const ROOTS: { module: string; group: string; version: string; kinds: string[] }[] = [
  {
    module: "core/v1",
    group: "",
    version: "v1",
    kinds: [
      "Pod",
      "ConfigMap",
      "Secret",
      "Service",
      "ServiceAccount",
      "Event",
      "Namespace",
      "Node",
      "Endpoints",
      "PersistentVolumeClaim",
      "PersistentVolume",
      "LimitRange",
      "PodTemplate",
      "ReplicationController",
      "ResourceQuota",
      "Binding",
      "ComponentStatus",
    ],
  },
  {
    module: "apps/v1",
    group: "apps",
    version: "v1",
    kinds: ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"],
  },
  { module: "batch/v1", group: "batch", version: "v1", kinds: ["Job", "CronJob"] },
  { module: "coordination/v1", group: "coordination.k8s.io", version: "v1", kinds: ["Lease"] },
  { module: "events/v1", group: "events.k8s.io", version: "v1", kinds: ["Event"] },
  {
    module: "apiextensions/v1",
    group: "apiextensions.k8s.io",
    version: "v1",
    kinds: ["CustomResourceDefinition"],
  },
  {
    module: "admissionregistration/v1",
    group: "admissionregistration.k8s.io",
    version: "v1",
    kinds: [
      "MutatingWebhookConfiguration",
      "MutatingAdmissionPolicy",
      "MutatingAdmissionPolicyBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
      "ValidatingWebhookConfiguration",
    ],
  },
  {
    module: "rbac/v1",
    group: "rbac.authorization.k8s.io",
    version: "v1",
    kinds: ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"],
  },
  {
    module: "authorization/v1",
    group: "authorization.k8s.io",
    version: "v1",
    kinds: [
      "SubjectAccessReview",
      "SelfSubjectAccessReview",
      "LocalSubjectAccessReview",
      "SelfSubjectRulesReview",
    ],
  },
  {
    module: "authentication/v1",
    group: "authentication.k8s.io",
    version: "v1",
    kinds: ["TokenReview", "TokenRequest", "SelfSubjectReview"],
  },
  {
    module: "autoscaling/v1",
    group: "autoscaling",
    version: "v1",
    kinds: ["Scale", "HorizontalPodAutoscaler"],
  },
  { module: "autoscaling/v2", group: "autoscaling", version: "v2", kinds: ["HorizontalPodAutoscaler"] },
  {
    module: "certificates/v1",
    group: "certificates.k8s.io",
    version: "v1",
    kinds: ["CertificateSigningRequest", "ClusterTrustBundle", "PodCertificateRequest"],
  },
  { module: "discovery/v1", group: "discovery.k8s.io", version: "v1", kinds: ["EndpointSlice"] },
  {
    module: "flowcontrol/v1",
    group: "flowcontrol.apiserver.k8s.io",
    version: "v1",
    kinds: ["FlowSchema", "PriorityLevelConfiguration"],
  },
  {
    module: "networking/v1",
    group: "networking.k8s.io",
    version: "v1",
    kinds: ["Ingress", "IngressClass", "IPAddress", "NetworkPolicy", "ServiceCIDR"],
  },
  { module: "node/v1", group: "node.k8s.io", version: "v1", kinds: ["RuntimeClass"] },
  { module: "policy/v1", group: "policy", version: "v1", kinds: ["PodDisruptionBudget", "Eviction"] },
  { module: "scheduling/v1", group: "scheduling.k8s.io", version: "v1", kinds: ["PriorityClass"] },
  {
    module: "storage/v1",
    group: "storage.k8s.io",
    version: "v1",
    kinds: [
      "CSIDriver",
      "CSINode",
      "CSIStorageCapacity",
      "StorageClass",
      "VolumeAttachment",
      "VolumeAttributesClass",
    ],
  },
  {
    module: "resource/v1",
    group: "resource.k8s.io",
    version: "v1",
    kinds: ["DeviceClass", "DeviceTaintRule", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"],
  },
  {
    module: "storagemigration/v1",
    group: "storagemigration.k8s.io",
    version: "v1",
    kinds: ["StorageVersionMigration"],
  },
  {
    module: "apiregistration/v1",
    group: "apiregistration.k8s.io",
    version: "v1",
    kinds: ["APIService"],
  },
  {
    module: "meta/v1",
    group: "meta.k8s.io",
    version: "v1",
    kinds: ["Status", "DeleteOptions", "APIResourceList"],
  },
];

/** Types to describe although no kind above reaches them. */
const EXTRA_TYPES: { module: string; name: string }[] = [
  { module: "apiextensions/v1", name: "ValidationRule" },
];

/** Go packages outside k8s.io/api, by the short module name kube's definitions use. */
const PACKAGES: Record<string, string> = {
  "meta/v1": "k8s.io/apimachinery/pkg/apis/meta/v1",
  "apiextensions/v1": "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
  "apiregistration/v1": "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
};

const importPathOf = (module: string): string => PACKAGES[module] ?? `k8s.io/api/${module}`;

/** `k8s.io/api/core/v1` → `core.v1`; `…/apis/meta/v1` → `meta.v1`. */
function shortModule(importPath: string): string {
  const parts = importPath.split("/");
  return `${parts.at(-2)}.${parts.at(-1)}`;
}

/** Types written inline rather than as definitions, by Go import path and name. */
const INLINE: Record<string, string> = {
  "k8s.io/apimachinery/pkg/api/resource.Quantity": "quantity",
  "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "int-or-string",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "date-time",
  "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "date-time",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "string",
  "k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1": "fields-v1",
  "k8s.io/apimachinery/pkg/runtime.RawExtension": "object",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON": "any",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrArray": "any",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrBool": "any",
  "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSONSchemaPropsOrStringArray": "any",
};

const BASIC: Record<string, string> = {
  string: "string",
  bool: "boolean",
  // Go's decoder refuses what the width cannot hold, and kube's OpenAPI formats them so: the
  // built-in kinds use int32 and int64 only (any other integer type stops the generator).
  int32: "int32",
  int64: "integer",
  float32: "number",
  float64: "number",
  "interface{}": "any",
  any: "any",
};

export function generate(): Record<string, CompactDefinition> {
  const defs: Record<string, CompactDefinition> = {};
  /** Declaration order of required names, kept apart so properties can be sorted. */

  const typeCode = (pkgPath: string, scope: string, type: string): string => {
    if (type.startsWith("*")) return typeCode(pkgPath, scope, type.slice(1));
    if (type === "[]byte") return "string";
    if (type.startsWith("[]")) return `[]${typeCode(pkgPath, scope, type.slice(2))}`;
    if (type.startsWith("map[")) {
      let depth = 0;
      let i = 3;
      for (; i < type.length; i++) {
        if (type[i] === "[") depth++;
        else if (type[i] === "]" && --depth === 0) break;
      }
      return `{}${typeCode(pkgPath, scope, type.slice(i + 1))}`;
    }
    if (BASIC[type]) return BASIC[type];
    const goType = readGoPackage(pkgPath).types.get(scope);
    const [typePkg, name] = goType ? resolveType(pkgPath, goType, type) : [pkgPath, type];
    const inline = INLINE[`${typePkg}.${name}`];
    if (inline) return inline;
    const target = readGoPackage(typePkg).types.get(name);
    if (!target)
      throw new Error(`gen-builtin-schemas: cannot map type ${type} (${typePkg}.${name}) in ${scope}`);
    if (target.fields) return `@${visit(typePkg, name)}`;
    return typeCode(typePkg, name, target.underlying!);
  };

  /** The JSON fields of a struct, embedded inline structs spliced in. */
  const jsonFields = (pkgPath: string, name: string): { pkg: string; scope: string; field: GoField }[] => {
    const t = readGoPackage(pkgPath).types.get(name);
    const out: { pkg: string; scope: string; field: GoField }[] = [];
    for (const field of t?.fields ?? []) {
      if (!field.inline) {
        out.push({ pkg: pkgPath, scope: name, field });
        continue;
      }
      const [p, n] = resolveType(pkgPath, t!, field.type.replace(/^\*/, ""));
      out.push(...jsonFields(p, n));
    }
    return out;
  };

  const visit = (pkgPath: string, name: string, gvk?: [string, string, string]): string => {
    const short = `${shortModule(pkgPath)}.${name}`;
    if (defs[short]) {
      if (gvk) defs[short].gvk = gvk;
      return short;
    }
    const def: CompactDefinition = { properties: {} };
    defs[short] = def;
    if (gvk) def.gvk = gvk;
    const properties: Record<string, string> = {};
    const required: string[] = [];
    for (const { pkg, scope, field } of jsonFields(pkgPath, name)) {
      properties[field.json] = typeCode(pkg, scope, field.type);
      if (!isOptional(field)) required.push(field.json);
    }
    // kube's documents list properties by name (a Go map); required names in field order.
    def.properties = Object.fromEntries(
      Object.keys(properties)
        .sort()
        .map((k) => [k, properties[k]]),
    );
    if (required.length > 0) def.required = required;
    return short;
  };

  for (const root of ROOTS) {
    const pkgPath = importPathOf(root.module);
    const types = readGoPackage(pkgPath).types;
    for (const kind of root.kinds) {
      for (const name of [kind, `${kind}List`]) {
        if (types.get(name)?.fields) visit(pkgPath, name, [root.group, root.version, name]);
        else if (name === kind) throw new Error(`gen-builtin-schemas: ${root.module} has no ${kind}`);
      }
    }
  }
  for (const extra of EXTRA_TYPES) visit(importPathOf(extra.module), extra.name);
  // meta.k8s.io kinds are served under every group version; kube tags them with no group.
  for (const def of Object.values(defs)) if (def.gvk?.[0] === "meta.k8s.io") def.gvk[0] = "";
  return Object.fromEntries(
    Object.keys(defs)
      .sort()
      .map((k) => [k, defs[k]]),
  );
}

export function render(defs: Record<string, CompactDefinition>): string {
  return [
    "// Generated by scripts/gen-builtin-schemas.ts from kube's Go types; do not edit.",
    "// Regenerate: npx tsx scripts/gen-builtin-schemas.ts",
    'import type { CompactDefinition } from "./compact-definition.js";',
    "",
    lazyJsonTable(
      "builtinCompactDefinitions",
      "Record<string, CompactDefinition>",
      "Each built-in definition, compact, by its short name (`apps.v1.Deployment`).",
      defs,
    ),
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const defs = generate();
  if (process.argv.includes("--check")) {
    const { builtinCompactDefinitions } = await import(
      "../packages/apiserver/src/schema/builtin-schemas.generated.js"
    );
    if (!isDeepStrictEqual(builtinCompactDefinitions(), defs)) {
      console.error(`${relative(ROOT, OUTPUT)} is out of date: run npx tsx scripts/gen-builtin-schemas.ts`);
      process.exit(1);
    }
  } else {
    writeFileSync(OUTPUT, render(defs));
    // The project's formatter owns the layout; the data is what the check compares.
    execFileSync("npx", ["biome", "format", "--write", OUTPUT], { cwd: ROOT, stdio: "ignore" });
    console.log(`wrote ${relative(ROOT, OUTPUT)} (${readFileSync(OUTPUT, "utf8").length} bytes)`);
  }
}
