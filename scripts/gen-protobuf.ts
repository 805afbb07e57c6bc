// Generates src/apiserver/protobuf/kube-protos.generated.ts: kube's protobuf schema, compiled by
// protoc from the generated.proto files of k8s.io/api (GA versions) and k8s.io/apimachinery, as
// a FileDescriptorSet that @bufbuild/protobuf reads at run time; and, from the Go types beside
// them, what the .proto files do not say and the JSON form needs:
//   k     the field's zero value is kept: a pointer (`*int32`) or a field without omitempty. Go's
//         protobuf encoder writes every non-pointer field, so a zero on the wire means "set" only
//         for these; other zero scalars are what Go would leave out of JSON.
//   i     the field is an embedded struct whose JSON fields are spliced into the parent
//         (`VolumeSource json:",inline"`).
//   z     the field is `omitzero` (Go 1.24): left out of JSON at its zero value, struct or not
//         (ObjectMeta's creationTimestamp since kube 1.35).
//   =name the JSON name, where it is not the proto field's name.
// Messages for Go slice types (`type ExtraValue []string`) are listed as lists.
//
//   GO_API_REPO=<kubernetes/api git dir> GO_APIMACHINERY_REPO=<kubernetes/apimachinery git dir> \
//     npx tsx scripts/gen-protobuf.ts [tag]          # default tag v0.32.0; needs protoc on PATH
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = join(ROOT, "src/apiserver/protobuf/kube-protos.generated.ts");
const apiRepo = process.env.GO_API_REPO;
const machineryRepo = process.env.GO_APIMACHINERY_REPO;
if (!apiRepo || !machineryRepo) throw new Error("set GO_API_REPO and GO_APIMACHINERY_REPO to git dirs");
const tag = process.argv[2] ?? "v0.32.0";

const git = (repo: string, ...args: string[]) =>
  execFileSync("git", ["--git-dir", repo, ...args], { encoding: "utf8", maxBuffer: 256 << 20 });

/** The apimachinery packages kube's API types import. */
const MACHINERY = [
  "pkg/api/resource",
  "pkg/apis/meta/v1",
  "pkg/runtime",
  "pkg/runtime/schema",
  "pkg/util/intstr",
];
// GA versions only: the embedded server serves no alpha or beta API.
const API = git(apiRepo, "ls-tree", "-r", "--name-only", tag)
  .split("\n")
  .filter((p) => /^[a-z]+\/v[0-9]+\/generated\.proto$/.test(p))
  .map((p) => dirname(p));

const work = mkdtempSync(join(tmpdir(), "kube-protos-"));
try {
  const protos: string[] = [];
  const extract = (repo: string, dir: string, prefix: string) => {
    const target = join(work, prefix, dir);
    mkdirSync(target, { recursive: true });
    writeFileSync(join(target, "generated.proto"), git(repo, "show", `${tag}:${dir}/generated.proto`));
    protos.push(join(prefix, dir, "generated.proto"));
  };
  for (const dir of MACHINERY) extract(machineryRepo, dir, "k8s.io/apimachinery");
  for (const dir of API) extract(apiRepo, dir, "k8s.io/api");
  const out = join(work, "kube.binpb");
  execFileSync("protoc", ["-I", work, "--include_imports", `--descriptor_set_out=${out}`, ...protos], {
    stdio: ["ignore", "ignore", "ignore"],
  });
  const descriptors = readFileSync(out).toString("base64");

  const shapes: Record<string, string> = {};
  const lists: string[] = [];
  const readGo = (repo: string, dir: string, protoPackage: string) => {
    const files = git(repo, "ls-tree", "--name-only", `${tag}:${dir}`)
      .split("\n")
      .filter((f) => f.endsWith(".go") && !f.endsWith("_test.go") && !f.startsWith("zz_"));
    for (const file of files) {
      const text = git(repo, "show", `${tag}:${dir}/${file}`);
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
    readGo(machineryRepo, dir, `k8s.io.apimachinery.${dir.replaceAll("/", ".")}`);
  }
  for (const dir of API) readGo(apiRepo, dir, `k8s.io.api.${dir.replaceAll("/", ".")}`);

  const sorted = Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
  const text =
    `// Generated by scripts/gen-protobuf.ts from k8s.io/api and k8s.io/apimachinery ${tag}: do not edit.\n` +
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
