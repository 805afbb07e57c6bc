// Generates packages/controller-runtime/src/protobuf/kube-protos.generated.ts: kube's protobuf schema, compiled by
// protoc from the generated.proto files of k8s.io/api (GA versions), k8s.io/apimachinery and
// k8s.io/apiextensions-apiserver (CustomResourceDefinitions, which kube-apiserver serves in protobuf), as
// a FileDescriptorSet that @bufbuild/protobuf reads at run time; and, from the Go types beside
// them, what the .proto files do not say and the JSON form needs:
//   k     the field's zero value is kept: a pointer (`*int32`) or a field without omitempty. Go's
//         protobuf encoder writes every non-pointer field, so a zero on the wire means "set" only
//         for these; other zero scalars are what Go would leave out of JSON.
//   i     the field is an embedded struct whose JSON fields are spliced into the parent
//         (`VolumeSource json:",inline"`).
//   z     the field is `omitzero`: left out of JSON when zero (an unset metav1.Time, which the
//         wire carries as an empty message and Go's JSON would otherwise write as null).
//   =name the JSON name, where it is not the proto field's name.
// Messages for Go slice types (`type ExtraValue []string`) are listed as lists.
//
//   npx tsx scripts/gen-protobuf.ts   # reads the server's release from the Go module cache; needs protoc
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { goModuleDir, STAGING_VERSION } from "./go-source.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = join(ROOT, "packages/controller-runtime/src/protobuf/kube-protos.generated.ts");
const apiDir = goModuleDir("k8s.io/api");
const machineryDir = goModuleDir("k8s.io/apimachinery");
const extensionsDir = goModuleDir("k8s.io/apiextensions-apiserver");
/**
 * apiextensions.k8s.io's served versions: v1beta1's CRDs were removed in 1.22 (its proto is still in
 * the module, never served).
 */
const EXTENSIONS = ["pkg/apis/apiextensions/v1"];

/** The apimachinery packages kube's API types import. */
const MACHINERY = [
  "pkg/api/resource",
  "pkg/apis/meta/v1",
  // PartialObjectMetadataList of meta.k8s.io/v1beta1, whose fields are numbered the other way round.
  "pkg/apis/meta/v1beta1",
  "pkg/runtime",
  "pkg/runtime/schema",
  "pkg/util/intstr",
];
// GA versions, and what they import: the embedded server serves no alpha or beta API, but GA
// messages may hold alpha ones (batch/v1's Job names scheduling/v1alpha3 types).
const API = withImports(
  readdirSync(apiDir, { recursive: true, encoding: "utf8" })
    .filter((p) => /^[a-z]+\/v[0-9]+\/generated\.proto$/.test(p))
    .map((p) => dirname(p))
    // Aggregated discovery's older version, still served to clients that ask for it.
    .concat(["apidiscovery/v2beta1"]),
);

/** `dirs` and the k8s.io/api packages their generated.proto files import, transitively, sorted. */
function withImports(dirs: string[]): string[] {
  const seen = new Set<string>();
  const pending = [...dirs];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    if (seen.has(dir)) continue;
    seen.add(dir);
    const proto = readFileSync(join(apiDir, dir, "generated.proto"), "utf8");
    for (const m of proto.matchAll(/^import "k8s\.io\/api\/(.+)\/generated\.proto";/gm)) pending.push(m[1]);
  }
  return [...seen].sort();
}

const work = mkdtempSync(join(tmpdir(), "kube-protos-"));
try {
  const protos: string[] = [];
  const extract = (moduleDir: string, dir: string, prefix: string) => {
    const target = join(work, prefix, dir);
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "generated.proto"), readFileSync(join(moduleDir, dir, "generated.proto")));
    protos.push(join(prefix, dir, "generated.proto"));
  };
  for (const dir of MACHINERY) extract(machineryDir, dir, "k8s.io/apimachinery");
  for (const dir of API) extract(apiDir, dir, "k8s.io/api");
  for (const dir of EXTENSIONS) extract(extensionsDir, dir, "k8s.io/apiextensions-apiserver");
  const out = join(work, "kube.binpb");
  execFileSync("protoc", ["-I", work, "--include_imports", `--descriptor_set_out=${out}`, ...protos], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const descriptors = readFileSync(out).toString("base64");

  const shapes: Record<string, string> = {};
  const lists: string[] = [];
  const readGo = (moduleDir: string, dir: string, protoPackage: string) => {
    const files = readdirSync(join(moduleDir, dir))
      .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go") && !f.startsWith("zz_"))
      .sort();
    for (const file of files) {
      const text = readFileSync(join(moduleDir, dir, file), "utf8");
      for (const m of text.matchAll(/^type (\w+) \[\](\w+)\s*$/gm)) lists.push(`${protoPackage}.${m[1]}`);
      for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
        const flags: string[] = [];
        for (const line of m[2].split("\n")) {
          const f = /^\t(?:(\w+)\s+)?(\S+)\s+`([^`]*)`/.exec(line);
          if (!f) continue;
          const pb = /protobuf:"[a-z0-9]+,(\d+),[a-z]+,name=(\w+)/.exec(f[3]);
          if (!pb) continue;
          const [json, ...opts] = (/json:"([^"]*)"/.exec(f[3])?.[1] ?? "").split(",");
          let flag = "";
          if (json === "") flag += "i";
          else if (f[2].startsWith("*") || !opts.includes("omitempty")) flag += "k";
          if (opts.includes("omitzero")) flag += "z";
          if (json !== "" && json !== pb[2]) flag += `=${json}`;
          if (flag) flags.push(`${pb[1]}${flag}`);
        }
        if (flags.length) shapes[`${protoPackage}.${m[1]}`] = flags.join(" ");
      }
    }
  };
  for (const dir of MACHINERY) {
    readGo(machineryDir, dir, `k8s.io.apimachinery.${dir.replaceAll("/", ".")}`);
  }
  for (const dir of API) readGo(apiDir, dir, `k8s.io.api.${dir.replaceAll("/", ".")}`);
  for (const dir of EXTENSIONS) {
    readGo(extensionsDir, dir, `k8s.io.apiextensions_apiserver.${dir.replaceAll("/", ".")}`);
  }

  const sorted = Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
  const text =
    `// Generated by scripts/gen-protobuf.ts from k8s.io/api, k8s.io/apimachinery and k8s.io/apiextensions-apiserver ${STAGING_VERSION}: do not edit.\n` +
    "// DESCRIPTORS: a FileDescriptorSet (base64) of kube's generated.proto files. GO_SHAPES: per\n" +
    "// message, `<field number><flags>` for what the Go types add (see the script). GO_LISTS: messages\n" +
    "// of Go slice types, written in JSON as their `items`.\n" +
    `export const DESCRIPTORS =\n  ${JSON.stringify(descriptors)};\n\n` +
    `export const GO_SHAPES: Record<string, string> = ${JSON.stringify(sorted, null, 2)};\n\n` +
    `export const GO_LISTS: readonly string[] = ${JSON.stringify(lists.sort(), null, 2)};\n`;
  writeFileSync(OUTPUT, text);
  console.log(`wrote ${OUTPUT}: ${protos.length} files, ${Object.keys(sorted).length} shapes`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
