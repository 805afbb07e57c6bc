// generateTypes over real CRDs (the examples' controller-gen output) and the defineCRD corpus: the
// module compiles, the examples' sample manifests type-check as the generated types, a corpus
// definition's generated type and its defineCRD type are assignable both ways, and each shape of
// schema gets its TypeScript spelling.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import { Gadget, Memcached, Policy } from "../../../../test/support/crd-corpus.js";
import { readCRDs } from "../crd/manifest-files.js";
import { generateTypes } from "./types-from-crds.js";

const run = promisify(execFile);
// Inside the checkout, so that the generated modules resolve kubernetes-types from node_modules.
mkdirSync(".tmp", { recursive: true });
const dir = mkdtempSync(join(resolve(".tmp"), "codegen-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const apiModule = resolve("packages/controller-runtime/src/api/index.js");
const samples = (path: string) =>
  parseAllDocuments(readFileSync(path, "utf8"))
    .map((d) => d.toJS())
    .filter(Boolean);

async function typeCheck(files: string[]): Promise<void> {
  const tsc = resolve("node_modules/typescript/bin/tsc");
  const flags = [
    "--noEmit",
    "--strict",
    "--skipLibCheck",
    "--module",
    "nodenext",
    "--target",
    "es2023",
    "--types",
    "node",
    "--customConditions",
    "cr-source",
  ];
  try {
    await run(process.execPath, [tsc, ...flags, ...files], { maxBuffer: 1 << 24 });
  } catch (err) {
    assert.fail(`generated code does not type-check:\n${(err as { stdout?: string }).stdout ?? err}`);
  }
}

test("the examples' CRDs: the module compiles and their sample manifests type-check as its types", async () => {
  const crds = readCRDs(["examples/markdownview/config/crd", "examples/storagebucket/config/crd"], true);
  assert.equal(crds.length, 2);
  const types = join(dir, "examples-types.ts");
  writeFileSync(types, generateTypes(crds, { apiModule, source: "examples/*/config/crd" }));
  const uses = [
    'import { MarkdownView, StorageBucket } from "./examples-types.js";',
    ...samples("examples/markdownview/config/samples/markdownview.yaml").map(
      (o, i) => `export const view${i}: MarkdownView = ${JSON.stringify(o)};`,
    ),
    ...samples("examples/storagebucket/config/samples/storagebucket.yaml").map(
      (o, i) => `export const bucket${i}: StorageBucket = ${JSON.stringify(o)};`,
    ),
    "export const plural: string = StorageBucket.plural;",
    // A field the schema does not have is an error.
    "// @ts-expect-error",
    "export const wrong: MarkdownView = { spec: { markdowns: { a: 1 } } };",
  ];
  writeFileSync(join(dir, "examples-uses.ts"), uses.join("\n"));
  await typeCheck([types, join(dir, "examples-uses.ts")]);
  const source = readFileSync(types, "utf8");
  assert.match(source, /export const MarkdownView = defineKind<MarkdownView>\(\{/);
  assert.match(source, /plural: "storagebuckets",/);
});

test("a defineCRD definition read back from its CRD gives the same type, both ways", async () => {
  const types = join(dir, "corpus-types.ts");
  writeFileSync(
    types,
    generateTypes([Memcached.crd, Gadget.crd, Policy.crd], { apiModule, allVersions: true }),
  );
  const corpus = resolve("test/support/crd-corpus.js");
  const uses = [
    'import type { ObjectOf } from "' + apiModule + '";',
    `import type * as defined from "${corpus}";`,
    'import type * as generated from "./corpus-types.js";',
    "declare const d: { m: defined.Memcached; g: defined.Gadget; p: ObjectOf<typeof defined.Policy>; p1: ObjectOf<typeof defined.Policy.versions.v1> };",
    "declare const g: { m: generated.Memcached; g: generated.Gadget; p: generated.Policy; p1: generated.PolicyV1 };",
    ...["g", "p", "p1"].flatMap((f) => [
      `export const ${f}FromDefined: typeof g.${f} = d.${f};`,
      `export const ${f}FromGenerated: typeof d.${f} = g.${f};`,
    ]),
    // Memcached's conditions: k.conditions() is typed as kubernetes-types' Condition, whose status
    // is any string; the CRD's enum makes the generated one stricter, so that way only.
    "export const mSpec: typeof g.m.spec = d.m.spec;",
    "export const mSpecBack: typeof d.m.spec = g.m.spec;",
    "export const mGenerated: typeof d.m = g.m;",
  ];
  writeFileSync(join(dir, "corpus-uses.ts"), uses.join("\n"));
  await typeCheck([types, join(dir, "corpus-uses.ts")]);
});

test("each schema shape gets its TypeScript spelling; descriptions become doc comments", () => {
  const source = generateTypes([Gadget.crd, Memcached.crd], { apiModule: "controller-runtime/api" });
  const member = (name: string) => source.match(new RegExp(`^  ${name}\\??: (.*);$`, "m"))?.[1];
  assert.equal(member("memory"), "number | string");
  assert.equal(member("note"), "string | null");
  assert.equal(member("mode"), '"fast" | "safe"');
  assert.equal(member("labels"), "Record<string, string>");
  assert.equal(member("extra"), "unknown");
  assert.equal(member("ports"), "GadgetSpecPorts[]");
  assert.equal(member("template"), "GadgetSpecTemplate");
  assert.match(
    source,
    /export interface GadgetSpecTemplate \{\n {2}apiVersion\?: string;\n {2}kind\?: string;\n {2}metadata\?: ObjectMeta;\n/,
  );
  assert.match(
    source,
    /export interface GadgetSpecPlugin \{\n {2}name: string;\n.*\n {2}\[field: string\]: unknown;\n\}/,
  );
  assert.match(source, /^ {2}spec: MemcachedSpec;$/m, "spec is required where the CRD requires it");
  assert.match(source, /^ {2}status\?: MemcachedStatus;$/m);
  assert.match(
    source,
    /\/\*\* Conditions of the object's current state\. \*\/\n {2}conditions\?: MemcachedStatusConditions\[\];/,
  );
  assert.match(source, /namespaced: true,/);
  assert.ok(
    source.indexOf("export interface Gadget {") < source.indexOf("export interface GadgetSpec {"),
    "parents first",
  );
});
