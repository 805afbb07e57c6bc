// Generates src/apiserver/schema/builtin-schemas.generated.ts: compact OpenAPI schemas of the
// built-in kinds the embedded API server serves, read from kubernetes-types' .d.ts files with
// the TypeScript compiler API (kube's own OpenAPI is in no npm package).
//
//   npx tsx scripts/gen-builtin-schemas.ts           # rewrite the generated file
//   npx tsx scripts/gen-builtin-schemas.ts --check   # exit 1 if its data is out of date
//
// Mapping rules (TypeScript → OpenAPI):
// - string, string literals → string; boolean → boolean;
// - number → integer: every number in these kinds is an int32/int64 in Go, except the few
//   float64 fields listed in FLOAT_FIELDS (JSONSchemaProps' bounds), which become number;
// - number | string (IntOrString) → int-or-string; Quantity → quantity (string or number);
// - Time, MicroTime → string, format date-time;
// - Array<T> → array of T; { [k: string]: T } → map (additionalProperties T);
// - RawExtension, FieldsV1 → objects that keep unknown fields; apiextensions JSON and the
//   JSONSchemaProps*Or* unions → any value;
// - interfaces → shared definitions by kube's name (io.k8s.api.core.v1.PodSpec), written
//   short (core.v1.PodSpec) and expanded by builtin-schemas.ts;
// - a property without `?` is required.
// Descriptions are dropped to keep the module small.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import ts from "typescript";
import type { CompactDefinition } from "../src/apiserver/schema/compact-definition.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const OUTPUT = join(ROOT, "src/apiserver/schema/builtin-schemas.generated.ts");

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
    kinds: ["CertificateSigningRequest"],
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
    kinds: ["Ingress", "IngressClass", "NetworkPolicy"],
  },
  { module: "node/v1", group: "node.k8s.io", version: "v1", kinds: ["RuntimeClass"] },
  { module: "policy/v1", group: "policy", version: "v1", kinds: ["PodDisruptionBudget", "Eviction"] },
  { module: "scheduling/v1", group: "scheduling.k8s.io", version: "v1", kinds: ["PriorityClass"] },
  {
    module: "storage/v1",
    group: "storage.k8s.io",
    version: "v1",
    kinds: ["CSIDriver", "CSINode", "CSIStorageCapacity", "StorageClass", "VolumeAttachment"],
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

/** Fields kubernetes-types leaves out (its JSONSchemaProps has no `x-kubernetes-*`; its
 * RuleWithOperations and NamedRuleWithOperations lack the fields Go embeds from Rule). */
const EXTRA_PROPERTIES: Record<string, Record<string, string>> = {
  "admissionregistration.v1.RuleWithOperations": { resources: "[]string", scope: "string" },
  "admissionregistration.v1.NamedRuleWithOperations": { resources: "[]string", scope: "string" },
  "apiextensions.v1.JSONSchemaProps": {
    "x-kubernetes-embedded-resource": "boolean",
    "x-kubernetes-int-or-string": "boolean",
    "x-kubernetes-list-map-keys": "[]string",
    "x-kubernetes-list-type": "string",
    "x-kubernetes-map-type": "string",
    "x-kubernetes-preserve-unknown-fields": "boolean",
    "x-kubernetes-validations": "[]@apiextensions.v1.ValidationRule",
  },
};

/**
 * Kinds kubernetes-types does not describe, written from their Go types: kube-aggregator's
 * APIService (k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/types.go).
 */
const HAND_WRITTEN: Record<string, CompactDefinition> = {
  "apiregistration.v1.APIService": {
    properties: {
      apiVersion: "string",
      kind: "string",
      metadata: "@meta.v1.ObjectMeta",
      spec: "@apiregistration.v1.APIServiceSpec",
      status: "@apiregistration.v1.APIServiceStatus",
    },
    gvk: ["apiregistration.k8s.io", "v1", "APIService"],
  },
  "apiregistration.v1.APIServiceList": {
    properties: {
      apiVersion: "string",
      items: "[]@apiregistration.v1.APIService",
      kind: "string",
      metadata: "@meta.v1.ListMeta",
    },
    required: ["items"],
    gvk: ["apiregistration.k8s.io", "v1", "APIServiceList"],
  },
  "apiregistration.v1.APIServiceSpec": {
    properties: {
      caBundle: "string",
      group: "string",
      groupPriorityMinimum: "integer",
      insecureSkipTLSVerify: "boolean",
      service: "@apiregistration.v1.ServiceReference",
      version: "string",
      versionPriority: "integer",
    },
    required: ["groupPriorityMinimum", "versionPriority"],
  },
  "apiregistration.v1.APIServiceStatus": {
    properties: { conditions: "[]@apiregistration.v1.APIServiceCondition" },
  },
  "apiregistration.v1.APIServiceCondition": {
    properties: {
      lastTransitionTime: "date-time",
      message: "string",
      reason: "string",
      status: "string",
      type: "string",
    },
    required: ["status", "type"],
  },
  "apiregistration.v1.ServiceReference": {
    properties: { name: "string", namespace: "string", port: "integer" },
  },
};

/** Go float64 fields (everything else numeric is an integer). */
const FLOAT_FIELDS = new Set([
  "JSONSchemaProps.maximum",
  "JSONSchemaProps.minimum",
  "JSONSchemaProps.multipleOf",
]);

/** Types written inline rather than as definitions. */
const INLINE: Record<string, string> = {
  Quantity: "quantity",
  Time: "date-time",
  MicroTime: "date-time",
  RawExtension: "object",
  FieldsV1: "fields-v1",
  JSON: "any",
  JSONSchemaPropsOrArray: "any",
  JSONSchemaPropsOrBool: "any",
  JSONSchemaPropsOrStringArray: "any",
};

export function generate(): Record<string, CompactDefinition> {
  const require = createRequire(import.meta.url);
  const pkgDir = dirname(require.resolve("kubernetes-types/package.json"));
  const files = ROOTS.map((r) => join(pkgDir, `${r.module}.d.ts`));
  const program = ts.createProgram(files, { noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const defs: Record<string, CompactDefinition> = {};

  const shortName = (decl: ts.Declaration, name: string): string => {
    const module = relative(pkgDir, decl.getSourceFile().fileName).replace(/\.d\.ts$/, "");
    return `${module.replace("/", ".")}.${name}`;
  };

  const declarationOf = (node: ts.TypeReferenceNode): ts.Declaration | undefined => {
    let symbol = checker.getSymbolAtLocation(node.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.[0];
  };

  const typeCode = (node: ts.TypeNode, owner: string, prop: string): string => {
    if (ts.isUnionTypeNode(node)) {
      const kinds = node.types.map((t) => t.kind);
      if (kinds.includes(ts.SyntaxKind.NumberKeyword) && kinds.includes(ts.SyntaxKind.StringKeyword))
        return "int-or-string";
      if (node.types.every((t) => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal))) return "string";
      return "any";
    }
    if (ts.isLiteralTypeNode(node)) return ts.isStringLiteral(node.literal) ? "string" : "any";
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return "string";
      case ts.SyntaxKind.BooleanKeyword:
        return "boolean";
      case ts.SyntaxKind.NumberKeyword:
        return FLOAT_FIELDS.has(`${owner}.${prop}`) ? "number" : "integer";
    }
    if (ts.isArrayTypeNode(node)) return `[]${typeCode(node.elementType, owner, prop)}`;
    if (ts.isTypeLiteralNode(node)) {
      const index = node.members.find(ts.isIndexSignatureDeclaration);
      return index?.type ? `{}${typeCode(index.type, owner, prop)}` : "object";
    }
    if (ts.isTypeReferenceNode(node)) {
      const name = node.typeName.getText();
      if (name === "Array" && node.typeArguments?.length === 1)
        return `[]${typeCode(node.typeArguments[0], owner, prop)}`;
      if (INLINE[name]) return INLINE[name];
      const decl = declarationOf(node);
      if (decl && ts.isInterfaceDeclaration(decl)) return `@${visit(decl)}`;
      if (decl && ts.isTypeAliasDeclaration(decl)) return typeCode(decl.type, owner, prop);
    }
    throw new Error(`gen-builtin-schemas: cannot map type ${node.getText()} of ${owner}.${prop}`);
  };

  const visit = (decl: ts.InterfaceDeclaration, gvk?: [string, string, string]): string => {
    const name = shortName(decl, decl.name.text);
    if (defs[name]) {
      if (gvk) defs[name].gvk = gvk;
      return name;
    }
    const def: CompactDefinition = { properties: {} };
    defs[name] = def;
    if (gvk) def.gvk = gvk;
    const required: string[] = [];
    for (const member of decl.members) {
      if (!ts.isPropertySignature(member) || !member.type) continue;
      const prop = member.name.getText().replace(/^["']|["']$/g, "");
      def.properties[prop] = typeCode(member.type, decl.name.text, prop);
      if (!member.questionToken) required.push(prop);
    }
    if (required.length > 0) def.required = required;
    return name;
  };

  for (const root of ROOTS) {
    const file = program.getSourceFile(join(pkgDir, `${root.module}.d.ts`));
    if (!file) throw new Error(`gen-builtin-schemas: ${root.module}.d.ts not found`);
    const interfaces = new Map<string, ts.InterfaceDeclaration>();
    ts.forEachChild(file, (n) => {
      if (ts.isInterfaceDeclaration(n)) interfaces.set(n.name.text, n);
    });
    for (const extra of EXTRA_TYPES.filter((e) => e.module === root.module)) {
      const decl = interfaces.get(extra.name);
      if (!decl) throw new Error(`gen-builtin-schemas: ${root.module} has no ${extra.name}`);
      visit(decl);
    }
    for (const kind of root.kinds) {
      for (const name of [kind, `${kind}List`]) {
        const decl = interfaces.get(name);
        if (decl) visit(decl, [root.group, root.version, name]);
        else if (name === kind) throw new Error(`gen-builtin-schemas: ${root.module} has no ${kind}`);
      }
    }
  }
  for (const [name, props] of Object.entries(EXTRA_PROPERTIES)) Object.assign(defs[name].properties, props);
  Object.assign(defs, structuredClone(HAND_WRITTEN));
  // meta.k8s.io kinds are served under every group version; kube tags them with no group.
  for (const def of Object.values(defs)) if (def.gvk?.[0] === "meta.k8s.io") def.gvk[0] = "";
  return Object.fromEntries(
    Object.keys(defs)
      .sort()
      .map((k) => [k, defs[k]]),
  );
}

export function render(defs: Record<string, CompactDefinition>): string {
  const lines = Object.entries(defs).map(
    ([name, def]) => `  ${JSON.stringify(name)}: ${JSON.stringify(def)},`,
  );
  return [
    "// Generated by scripts/gen-builtin-schemas.ts from kubernetes-types; do not edit.",
    "// Regenerate: npx tsx scripts/gen-builtin-schemas.ts",
    'import type { CompactDefinition } from "./compact-definition.js";',
    "",
    "export const BUILTIN_DEFINITIONS: Record<string, CompactDefinition> = {",
    ...lines,
    "};",
    "",
  ].join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const defs = generate();
  if (process.argv.includes("--check")) {
    const { BUILTIN_DEFINITIONS } = await import("../src/apiserver/schema/builtin-schemas.generated.js");
    if (!isDeepStrictEqual(BUILTIN_DEFINITIONS, defs)) {
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
