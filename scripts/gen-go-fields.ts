// Generates src/apiserver/schema/go-fields.generated.ts: for every built-in definition the
// embedded server describes, its fields in Go declaration order and the ones Go's encoder writes
// even when unset, read from k8s.io/api's types.go (the kubernetes/api repository, at the tag of
// the Kubernetes version the server reports). OpenAPI carries neither fact, and both show in
// every answer: a Deployment always has `status: {}` and `strategy: {}`, an Event
// `eventTime: null` and `reportingComponent: ""`, keys come in struct order.
//
//   GO_API_REPO=/path/to/kubernetes/api.git npx tsx scripts/gen-go-fields.ts [tag]   # default tag v0.32.0
//
// Field classes (after the JSON name, `name:c`): `s` a struct value (always written, as an object
// holding its own always-written fields), `n` a pointer, slice or map without omitempty (null),
// `z` a scalar without omitempty (its zero value), `t` a metav1.Time or MicroTime (null when
// unset), `q` a resource.Quantity ("0"), `i` an intstr.IntOrString (0), `d` a metav1.Duration
// ("0s"), `r` a runtime.RawExtension (null). Fields without a class are left out when unset.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILTIN_DEFINITIONS } from "../src/apiserver/schema/builtin-schemas.generated.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = join(ROOT, "src/apiserver/schema/go-fields.generated.ts");
const repo = process.env.GO_API_REPO;
if (!repo) throw new Error("set GO_API_REPO to a clone (or bare git directory) of github.com/kubernetes/api");
const tag = process.argv[2] ?? "v0.32.0";

interface GoField {
  json: string;
  type: string;
  omitempty: boolean;
  inline: boolean;
}
interface GoPackage {
  structs: Map<string, GoField[]>;
  imports: Map<string, string>;
}

const packages = new Map<string, GoPackage>();

function readPackage(path: string): GoPackage {
  const known = packages.get(path);
  if (known) return known;
  const text = execFileSync("git", ["--git-dir", repo!, "show", `${tag}:${path}/types.go`], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const imports = new Map<string, string>();
  for (const m of text.matchAll(/^\s*(\w+)?\s*"([^"]+)"\s*$/gm)) {
    const alias = m[1] ?? m[2].split("/").pop()!;
    imports.set(alias, m[2]);
  }
  const structs = new Map<string, GoField[]>();
  for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
    const fields: GoField[] = [];
    for (const line of m[2].split("\n")) {
      const f = /^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/.exec(line);
      if (!f) continue;
      const tagJson = /json:"([^"]*)"/.exec(f[3])?.[1];
      if (tagJson === undefined || tagJson === "-") continue;
      const [json, ...opts] = tagJson.split(",");
      // An embedded struct with a JSON name is a named field; without one, its fields are spliced in.
      fields.push({ json, type: f[2], omitempty: opts.includes("omitempty"), inline: json === "" });
    }
    structs.set(m[1], fields);
  }
  const pkg = { structs, imports };
  packages.set(path, pkg);
  return pkg;
}

const special: Record<string, string> = {
  "k8s.io/apimachinery/pkg/apis/meta/v1.Time": "t",
  "k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime": "t",
  "k8s.io/apimachinery/pkg/apis/meta/v1.Duration": "d",
  "k8s.io/apimachinery/pkg/api/resource.Quantity": "q",
  "k8s.io/apimachinery/pkg/util/intstr.IntOrString": "i",
  "k8s.io/apimachinery/pkg/runtime.RawExtension": "r",
};

/** Whether `pkgPath.name` is a struct type (only k8s.io/api packages and metav1 structs are). */
function isStruct(pkgPath: string, name: string): boolean {
  if (pkgPath.startsWith("k8s.io/api/"))
    return readPackage(pkgPath.slice("k8s.io/api/".length)).structs.has(name);
  return (
    pkgPath === "k8s.io/apimachinery/pkg/apis/meta/v1" &&
    /^[A-Z]/.test(name) &&
    !["Time", "MicroTime", "Duration"].includes(name) &&
    name !== "Verbs"
  );
}

function classOf(pkgPath: string, pkg: GoPackage, f: GoField): string {
  const t = f.type;
  if (t.startsWith("*") || t.startsWith("[]") || t.startsWith("map[")) return f.omitempty ? "" : "n";
  const dot = t.indexOf(".");
  const [typePkg, name] =
    dot >= 0 ? [pkg.imports.get(t.slice(0, dot)) ?? t.slice(0, dot), t.slice(dot + 1)] : [pkgPath, t];
  const sp = special[`${typePkg}.${name}`];
  if (sp) return sp;
  if (isStruct(typePkg, name)) return "s";
  return f.omitempty ? "" : "z";
}

/** The fields of a struct with inline embeddings spliced in, as Go's encoder flattens them. */
function fieldsOf(pkgPath: string, structName: string): { json: string; cls: string }[] {
  const pkg = readPackage(pkgPath.slice("k8s.io/api/".length));
  const out: { json: string; cls: string }[] = [];
  for (const f of pkg.structs.get(structName) ?? []) {
    if (f.inline) {
      if (f.type.includes(".")) continue; // metav1.TypeMeta: kind and apiVersion, written first anyway
      out.push(...fieldsOf(pkgPath, f.type.replace(/^\*/, "")));
      continue;
    }
    out.push({ json: f.json, cls: classOf(pkgPath, pkg, f) });
  }
  return out;
}

const out: Record<string, string> = {};
for (const short of Object.keys(BUILTIN_DEFINITIONS).sort()) {
  const [module, version, ...rest] = short.split(".");
  if (module === "meta" || module === "apiextensions") continue; // not in k8s.io/api
  const pkgPath = `k8s.io/api/${module}/${version}`;
  const name = rest.join(".");
  let fields: { json: string; cls: string }[];
  try {
    if (!readPackage(`${module}/${version}`).structs.has(name)) continue;
    fields = fieldsOf(pkgPath, name);
  } catch {
    continue;
  }
  out[short] = fields.map((f) => (f.cls ? `${f.json}:${f.cls}` : f.json)).join(" ");
}
// ObjectMeta lives in apimachinery: only its creationTimestamp is written when unset.
out["meta.v1.ObjectMeta"] =
  "name generateName namespace selfLink uid resourceVersion generation creationTimestamp:t deletionTimestamp deletionGracePeriodSeconds labels annotations ownerReferences finalizers managedFields";

const text =
  `// Generated by scripts/gen-go-fields.ts from k8s.io/api ${tag}: do not edit.\n` +
  "// Fields in Go declaration order; `name:c` marks what Go's encoder writes when unset (see the script).\n" +
  `export const GO_FIELDS: Record<string, string> = ${JSON.stringify(out, null, 2)};\n`;
writeFileSync(OUTPUT, text);
console.log(`wrote ${OUTPUT}: ${Object.keys(out).length} definitions`);
