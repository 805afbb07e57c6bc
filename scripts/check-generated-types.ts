// Checks `generate types` on CRD corpora that cannot live in this repository (Gateway API's,
// cert-manager's, the Prometheus operator's, fetched beside it): generates each corpus's module,
// compiles it with the strictest compiler options against the built package, and type-checks every
// example manifest of those kinds found under the example folders as the generated type.
//
//   npm run build && npx tsx scripts/check-generated-types.ts <consumer dir> <crd dir>=<example dir>...
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { generateTypes } from "../packages/controller-runtime/src/codegen/types-from-crds.js";
import { readCRDs } from "../packages/controller-runtime/src/crd/manifest-files.js";

const [consumer, ...pairs] = process.argv.slice(2);
if (!consumer || pairs.length === 0) {
  console.error("usage: check-generated-types.ts <consumer dir> <crd dir>=<example dir>...");
  process.exit(2);
}

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

const files: string[] = [];
let examples = 0;
pairs.forEach((pair, n) => {
  const [crdDir, exampleDir] = pair.split("=") as [string, string | undefined];
  const crds = readCRDs([crdDir], true);
  const module = `corpus${n}`;
  writeFileSync(join(consumer, `${module}.ts`), generateTypes(crds, { allVersions: true, source: crdDir }));
  files.push(`${module}.ts`);
  // Which generated type an object of (apiVersion, kind) is.
  const typeOf = new Map<string, string>();
  for (const crd of crds) {
    for (const v of crd.spec.versions) {
      if (!v.served) continue;
      const name = v.storage
        ? crd.spec.names.kind
        : `${crd.spec.names.kind}${v.name[0]?.toUpperCase()}${v.name.slice(1)}`;
      typeOf.set(`${crd.spec.group}/${v.name} ${crd.spec.names.kind}`, name);
    }
  }
  const uses: string[] = [];
  const used = new Set<string>();
  for (const file of exampleDir ? yamlFiles(exampleDir) : []) {
    let docs: unknown[];
    try {
      docs = parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS());
    } catch {
      continue;
    }
    for (const obj of docs as { apiVersion?: string; kind?: string; metadata?: Record<string, unknown> }[]) {
      const type = obj && typeOf.get(`${obj.apiVersion} ${obj.kind}`);
      // Snippets in user guides (no name) are not objects a server would take.
      if (!type || typeof obj.metadata?.name !== "string") continue;
      // Go writes a zero time as null; kubernetes-types (not the generated code) types it string.
      if (obj.metadata.creationTimestamp === null) delete obj.metadata.creationTimestamp;
      used.add(type);
      uses.push(`// ${file}\nexport const e${examples++}: ${type} = ${JSON.stringify(obj)};`);
    }
  }
  if (uses.length > 0) {
    writeFileSync(
      join(consumer, `${module}-examples.ts`),
      `import type { ${[...used].join(", ")} } from "./${module}.js";\n${uses.join("\n")}\n`,
    );
    files.push(`${module}-examples.ts`);
  }
  console.log(`${crdDir}: ${crds.length} CRDs, ${uses.length} example objects`);
});
const tsc = resolve("node_modules/typescript/bin/tsc");
const flags = [
  "--noEmit",
  "--strict",
  "--exactOptionalPropertyTypes",
  "--noUncheckedIndexedAccess",
  "--skipLibCheck",
  "--module",
  "nodenext",
  "--target",
  "es2023",
  "--types",
  "node",
];
try {
  execFileSync(process.execPath, [tsc, ...flags, ...files], { cwd: consumer, stdio: "inherit" });
  console.log(`all generated modules compile; ${examples} example objects type-check`);
} catch {
  // Each error above is an example the generated types refuse: check it against the CRD (a real
  // server refuses an object missing a required field too) before blaming the generator.
  console.error(`the generated modules or some of the ${examples} example objects do not type-check (above)`);
  process.exit(1);
}
