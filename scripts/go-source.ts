// Kubernetes' Go API types as the generators read them: the module directories of k8s.io/api,
// k8s.io/apimachinery and their siblings in the Go module cache, at the release the embedded server
// reports (src/apiserver/server-version.ts), and a reader of the struct and named types declared in
// one Go package. A regular-expression reader, not a Go parser: it knows the layout gofmt gives
// kube's API packages (one field a line, doc comments right above, tags in backquotes).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { KUBERNETES_VERSION } from "../packages/apiserver/src/server-version.js";

/** The version of the staging modules (k8s.io/api v0.37.2) of a Kubernetes release (v1.37.2). */
export const STAGING_VERSION = KUBERNETES_VERSION.replace(/^v1\./, "v0.");

/**
 * The directory of `module@version` in the Go module cache. `GOMODCACHE` names the cache, else
 * `~/go/pkg/mod`; a module missing from it is fetched with `go mod download`, which prints its Dir.
 */
export function goModuleDir(module: string, version: string = STAGING_VERSION): string {
  const dir = cachedModuleDir(module, version);
  if (existsSync(dir)) return dir;
  const out = execFileSync("go", ["mod", "download", "-json", `${module}@${version}`], { encoding: "utf8" });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${module}@${version}: ${info.Error ?? "no Dir"}`);
  return info.Dir;
}

/** Where `module@version` sits in the Go module cache, whether or not it is there. */
function cachedModuleDir(module: string, version: string): string {
  const cache = process.env.GOMODCACHE || join(homedir(), "go/pkg/mod");
  // The module cache escapes capitals as !lowercase; kube's module paths have none.
  return join(cache, `${module}@${version}`);
}

/** Whether the generators can read the server's release without fetching anything. */
export function goSourcesCached(): boolean {
  return [
    "k8s.io/api",
    "k8s.io/apimachinery",
    "k8s.io/apiextensions-apiserver",
    "k8s.io/kube-aggregator",
  ].every((m) => existsSync(cachedModuleDir(m, STAGING_VERSION)));
}

/** Where each Go import path of kube's API types lives: module directory and path inside it. */
export function goPackageDir(importPath: string): string {
  for (const module of [
    "k8s.io/api",
    "k8s.io/apimachinery",
    "k8s.io/apiextensions-apiserver",
    "k8s.io/kube-aggregator",
  ]) {
    if (importPath === module || importPath.startsWith(`${module}/`))
      return join(goModuleDir(module), importPath.slice(module.length));
  }
  throw new Error(`go-source: no module known for ${importPath}`);
}

export interface GoField {
  /** The Go field name; the type's name for an embedded field. */
  name: string;
  /** The JSON name; "" for an embedded struct whose fields are spliced into the parent. */
  json: string;
  /** The Go type as written (`*PodSpec`, `[]metav1.Condition`, `map[string]string`). */
  type: string;
  omitempty: boolean;
  /** Go 1.24's `omitzero`: left out when its zero value (a metav1.Time never set). */
  omitzero: boolean;
  inline: boolean;
  /** The raw struct tag (json and protobuf). */
  tag: string;
  /** The doc comment's `+marker` lines (`+optional`, `+required`, `+listType=map`). */
  markers: string[];
}

export interface GoType {
  /** The struct's fields in declaration order (JSON-less ones left out), or undefined. */
  fields?: GoField[];
  /** The underlying type of a named non-struct type (`string`, `map[ResourceName]resource.Quantity`). */
  underlying?: string;
  /** The file's imports: alias → import path. */
  imports: Map<string, string>;
}

export interface GoPackage {
  path: string;
  types: Map<string, GoType>;
}

const packages = new Map<string, GoPackage>();

/** The files of a package that declare API types: no tests, nothing generated. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go"))
    .filter((f) => !f.startsWith("zz_generated") && !f.startsWith("generated.") && !f.includes("_fuzz"))
    .sort();
}

/** The types declared in one Go package (cached). */
export function readGoPackage(importPath: string): GoPackage {
  const known = packages.get(importPath);
  if (known) return known;
  const dir = goPackageDir(importPath);
  const types = new Map<string, GoType>();
  for (const file of sourceFiles(dir)) {
    const text = readFileSync(join(dir, file), "utf8");
    const imports = new Map<string, string>();
    const block = /^import \(\n([\s\S]*?)^\)/m.exec(text)?.[1] ?? "";
    const single = [...text.matchAll(/^import (\w+ )?("[^"]+")$/gm)].map((m) => `${m[1] ?? ""}${m[2]}`);
    for (const line of [...block.split("\n"), ...single]) {
      const m = /^\s*(\w+)?\s*"([^"]+)"/.exec(line);
      if (m) imports.set(m[1] ?? m[2].split("/").pop()!, m[2]);
    }
    for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm))
      types.set(m[1], { fields: structFields(m[2]), imports });
    for (const m of text.matchAll(/^type (\w+) struct\s*\{\}/gm)) types.set(m[1], { fields: [], imports });
    for (const m of text.matchAll(/^type (\w+) =? ?([^\s{]+)\s*$/gm))
      if (!types.has(m[1])) types.set(m[1], { underlying: m[2], imports });
  }
  const pkg = { path: importPath, types };
  packages.set(importPath, pkg);
  return pkg;
}

function structFields(body: string): GoField[] {
  const fields: GoField[] = [];
  let comments: string[] = [];
  for (const line of body.split("\n")) {
    const comment = /^\t\/\/\s?(.*)$/.exec(line);
    if (comment) {
      comments.push(comment[1]);
      continue;
    }
    const f = /^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/.exec(line);
    const markers = comments.filter((c) => c.startsWith("+")).map((c) => c.trim());
    comments = [];
    if (!f) continue;
    const tagJson = /json:"([^"]*)"/.exec(f[3])?.[1];
    if (tagJson === undefined || tagJson === "-") continue;
    const [json, ...opts] = tagJson.split(",");
    fields.push({
      name: f[1] ?? f[2].replace(/^\*/, "").split(".").pop()!,
      json,
      type: f[2],
      omitempty: opts.includes("omitempty"),
      omitzero: opts.includes("omitzero"),
      inline: json === "",
      tag: f[3],
      markers,
    });
  }
  return fields;
}

/**
 * Whether kube's OpenAPI calls the field optional, as kube-openapi decides: `+optional` or
 * `+required` in its doc comment, else `omitempty`.
 */
export function isOptional(f: GoField): boolean {
  if (f.markers.some((m) => m === "+required" || m.startsWith("+required="))) return false;
  if (f.markers.some((m) => m === "+optional" || m.startsWith("+optional="))) return true;
  return f.omitempty;
}

/** A type reference resolved to its package: `metav1.Time` in core/v1 → [apimachinery…/meta/v1, Time]. */
export function resolveType(pkgPath: string, t: GoType, name: string): [string, string] {
  const dot = name.indexOf(".");
  if (dot < 0) return [pkgPath, name];
  const alias = name.slice(0, dot);
  return [t.imports.get(alias) ?? alias, name.slice(dot + 1)];
}
