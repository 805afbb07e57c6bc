// The CLI's commands: scaffolding (init, create api, create webhook) and generation (crds, rbac,
// types). Each takes parsed flags and the project folder, and returns what it did, in lines.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { stringify } from "yaml";
import { generateTypes } from "../codegen/types-from-crds.js";
import { readCRDs } from "../crd/manifest-files.js";
import { newRESTClient } from "../rest/index.js";
import { getConfig } from "../rest/get-config.js";
import { CLIError } from "./errors.js";
import { crdManifests, loadDefinedCRDs } from "./generate-crds.js";
import { readRBACMarkers, roleManifest } from "./generate-rbac.js";
import { GENERATED, writeOutputs } from "./outputs.js";
import {
  apiFiles,
  RBAC_MARKER,
  roleFilesOf,
  SAMPLES_MARKER,
  sampleFileOf,
  samplesKustomization,
  webhookConfigFiles,
  webhookFiles,
} from "./scaffold/api-files.js";
import { insertAtMarker } from "./scaffold/edit.js";
import { initFiles } from "./scaffold/init-files.js";
import { detectOrigins, specOf } from "./scaffold/origin.js";
import {
  checkDomain,
  checkGroup,
  checkKind,
  checkProjectName,
  checkVersion,
  fileNameOf,
  pluralOf,
} from "./scaffold/names.js";
import { type Project, readProject, writeProject } from "./scaffold/project.js";

export interface Flags {
  [flag: string]: string | boolean | string[] | undefined;
}

const str = (flags: Flags, name: string): string | undefined => {
  const v = flags[name];
  return typeof v === "string" ? v : undefined;
};
const required = (flags: Flags, name: string): string => {
  const v = str(flags, name);
  if (!v) throw new CLIError(`--${name} is required`);
  return v;
};

/** Writes `files` under `dir`, refusing to overwrite any (scaffolding never clobbers user code). */
function scaffold(
  dir: string,
  files: Map<string, string>,
  opts: { overwrite?: (path: string) => boolean } = {},
): string[] {
  const clashes = [...files.keys()].filter((p) => existsSync(join(dir, p)) && !opts.overwrite?.(p));
  if (clashes.length > 0) throw new CLIError(`would overwrite ${clashes.join(", ")}: move them away first`);
  for (const [path, content] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return [...files.keys()].map((p) => `wrote ${p}`);
}

export async function init(dir: string, flags: Flags): Promise<string[]> {
  if (existsSync(join(dir, "PROJECT"))) throw new CLIError(`${dir} already holds a project (PROJECT exists)`);
  // What `npm install controller-runtime` leaves behind does not count: init merges package.json.
  const installed = new Set(["node_modules", "package.json", "package-lock.json"]);
  const entries = existsSync(dir)
    ? readdirSync(dir).filter((e) => !e.startsWith(".") && !installed.has(e))
    : [];
  if (entries.length > 0 && !flags.force) {
    throw new CLIError(
      `${dir} is not empty (${entries.slice(0, 3).join(", ")}...): use an empty folder, or --force`,
    );
  }
  const project: Project = {
    projectName: checkProjectName(
      str(flags, "project-name") ?? (resolve(dir).split("/").pop() || "operator"),
    ),
    domain: checkDomain(str(flags, "domain") ?? "example.com"),
    layout: "controller-runtime-ts/v1",
    resources: [],
  };
  mkdirSync(dir, { recursive: true });
  const origins = detectOrigins(
    { library: str(flags, "library"), server: str(flags, "apiserver") },
    process.cwd(),
  );
  const deps = { library: specOf(origins.library, dir), server: specOf(origins.server, dir) };
  const files = initFiles(project, deps);
  const existing = join(dir, "package.json");
  if (existsSync(existing))
    files.set(
      "package.json",
      mergePackageJSON(readFileSync(existing, "utf8"), files.get("package.json") ?? "{}"),
    );
  const out = scaffold(dir, files, { overwrite: (p) => p === "package.json" });
  writeProject(dir, project);
  out.push("wrote PROJECT");
  out.push(...(await generate(dir, { check: false })));
  out.push(
    "",
    `controller-runtime: ${deps.library}; controller-runtime-apiserver (dev): ${deps.server}`,
    ...origins.notes,
    "Next: npm install, then npx controller-runtime create api --group <group> --version v1alpha1 --kind <Kind>",
  );
  return out;
}

/**
 * The scaffold's package.json over one `npm install` (or `npm init`) wrote: the versions already
 * there are kept (they are what was installed), the scaffold's scripts win (`npm init`'s `test`
 * only fails).
 */
function mergePackageJSON(current: string, scaffolded: string): string {
  type Pkg = Record<string, unknown> &
    Partial<Record<"scripts" | "dependencies" | "devDependencies", Record<string, string>>>;
  const have = JSON.parse(current) as Pkg;
  const want = JSON.parse(scaffolded) as Pkg;
  const merged: Pkg = { ...want, ...have, type: "module" };
  merged.scripts = { ...have.scripts, ...want.scripts };
  for (const key of ["dependencies", "devDependencies"] as const) {
    merged[key] = { ...want[key], ...have[key] };
  }
  return `${JSON.stringify(merged, null, 2)}\n`;
}

export async function createAPI(dir: string, flags: Flags): Promise<string[]> {
  const project = readProject(dir);
  const kind = checkKind(required(flags, "kind"));
  const group = checkGroup(required(flags, "group"));
  const version = checkVersion(required(flags, "version"));
  if (project.resources.some((r) => r.kind === kind && r.group === group)) {
    throw new CLIError(`${kind} in group ${group} already exists`);
  }
  const resource = { group, version, kind, plural: pluralOf(kind), apiGroup: `${group}.${project.domain}` };
  const out = scaffold(dir, apiFiles(resource, project.projectName));
  out.push(wireIntoManager(dir, `setup${kind}Controller`, `./controllers/${fileNameOf(kind)}.js`));
  out.push(listInKustomization(dir, "config/samples", SAMPLES_MARKER, [sampleFileOf(resource)]));
  out.push(listInKustomization(dir, "config/rbac", RBAC_MARKER, roleFilesOf(resource)));
  project.resources.push(resource);
  writeProject(dir, project);
  out.push(...(await generate(dir, { check: false })));
  return out;
}

export async function createWebhook(dir: string, flags: Flags): Promise<string[]> {
  const project = readProject(dir);
  const kind = checkKind(required(flags, "kind"));
  const group = str(flags, "group");
  const resource = project.resources.find(
    (r) => r.kind === kind && (group === undefined || r.group === group),
  );
  if (!resource) throw new CLIError(`no ${kind} in PROJECT: create api first`);
  const defaulting = flags.defaulting === true;
  const validation = flags["programmatic-validation"] === true || flags.validation === true;
  if (!defaulting && !validation)
    throw new CLIError("choose --defaulting, --programmatic-validation, or both");
  if (resource.webhooks) throw new CLIError(`${kind} already has webhooks`);
  resource.webhooks = { defaulting, validation };
  const out = scaffold(dir, webhookFiles(resource));
  // config/webhook and the default kustomization follow PROJECT's webhooks: rewritten whole.
  out.push(
    ...scaffold(dir, webhookConfigFiles(project.projectName, project.resources), {
      overwrite: (p) => p.startsWith("config/"),
    }),
  );
  out.push(
    wireIntoManager(
      dir,
      `setup${kind}Webhook`,
      `./webhooks/${fileNameOf(kind)}.js`,
      `if (process.env.ENABLE_WEBHOOKS !== "false") setup${kind}Webhook(mgr);`,
    ),
  );
  writeProject(dir, project);
  return out;
}

/** Imports `setup` from `module` into src/manager.ts and calls it, at the scaffold markers. */
function wireIntoManager(dir: string, setup: string, module: string, call = `${setup}(mgr);`): string {
  const manager = join(dir, "src/manager.ts");
  const wired =
    insertAtMarker(
      manager,
      "// +controller-runtime:scaffold:imports",
      `import { ${setup} } from "${module}";`,
    ) && insertAtMarker(manager, "// +controller-runtime:scaffold:builder", call);
  return wired
    ? "updated src/manager.ts"
    : `add ${call} to your manager by hand (no scaffold markers in src/manager.ts)`;
}

/**
 * Lists `entries` in `<folder>/kustomization.yaml` above `marker` (writing the file first when
 * it is the samples' and missing), as kubebuilder appends to its kustomizations.
 */
function listInKustomization(dir: string, folder: string, marker: string, entries: string[]): string {
  const path = join(dir, folder, "kustomization.yaml");
  if (!existsSync(path) && marker === SAMPLES_MARKER) writeFileSync(path, samplesKustomization());
  const listed = entries.every((e) => insertAtMarker(path, marker, `- ${e}`));
  return listed
    ? `updated ${folder}/kustomization.yaml`
    : `add ${entries.join(", ")} to ${folder}/kustomization.yaml by hand (no ${marker} in it)`;
}

/** `generate` with no target: CRDs and RBAC, as `npm run generate` runs them. */
export async function generate(dir: string, opts: { check: boolean }): Promise<string[]> {
  const crds = await generateCRDs(dir, {
    from: ["src/api"],
    out: "config/crd",
    check: opts.check,
    optional: true,
  });
  const rbac = generateRBAC(dir, { from: ["src"], out: "config/rbac/role.yaml", check: opts.check });
  return [...crds, ...rbac];
}

export async function generateCRDs(
  dir: string,
  opts: { from: string[]; out: string; check: boolean; optional?: boolean },
): Promise<string[]> {
  const from = opts.from.map((p) => resolve(dir, p)).filter((p) => !opts.optional || existsSync(p));
  const crds = await loadDefinedCRDs(from);
  const outDir = resolve(dir, opts.out);
  const files = crdManifests(crds, outDir);
  const names = [...files.keys()].map((p) => relative(outDir, p));
  files.set(
    join(outDir, "kustomization.yaml"),
    `${GENERATED} (generate crds). Do not edit.\n${stringify({ resources: names }, { lineWidth: 0 })}`,
  );
  return report(
    writeOutputs(files, { check: opts.check, staleDir: outDir }),
    opts.check,
    `${crds.size} CRDs`,
  );
}

export function generateRBAC(
  dir: string,
  opts: { from: string[]; out: string; check: boolean; roleName?: string },
): string[] {
  const markers = readRBACMarkers(opts.from.map((p) => resolve(dir, p)));
  const files = new Map([
    [resolve(dir, opts.out), roleManifest(markers, opts.roleName ?? "manager-role", opts.from.join(", "))],
  ]);
  return report(writeOutputs(files, { check: opts.check }), opts.check, `${markers.length} rbac markers`);
}

function report(result: { written: string[]; drift: string[] }, check: boolean, what: string): string[] {
  if (check) {
    if (result.drift.length > 0) {
      throw new CLIError(
        `generated files are out of date (run npm run generate):\n  ${result.drift.join("\n  ")}`,
      );
    }
    return [`${what}: up to date`];
  }
  return result.written.length > 0 ? result.written.map((p) => `wrote ${p}`) : [`${what}: nothing changed`];
}

export async function generateTypesCommand(dir: string, flags: Flags, paths: string[]): Promise<string> {
  let crds: CustomResourceDefinition[];
  let source: string;
  if (flags["from-cluster"] === true) {
    const config = getConfig(str(flags, "kubeconfig") ? { kubeconfig: str(flags, "kubeconfig") } : {});
    const rest = newRESTClient(config);
    try {
      const list = await rest.list<CustomResourceDefinition>(
        {
          group: "apiextensions.k8s.io",
          version: "v1",
          resource: "customresourcedefinitions",
          namespaced: false,
        },
        {},
      );
      crds = list.items;
    } finally {
      await rest.close();
    }
    source = `the cluster at ${config.host}`;
  } else {
    if (paths.length === 0)
      throw new CLIError("generate types: name CRD files or folders, or --from-cluster");
    crds = readCRDs(
      paths.map((p) => resolve(dir, p)),
      true,
    );
    source = paths.join(", ");
  }
  const only = str(flags, "group");
  if (only) crds = crds.filter((c) => c.spec.group === only || c.spec.group.endsWith(`.${only}`));
  if (crds.length === 0) throw new CLIError(`generate types: no CRDs in ${source}`);
  return generateTypes(crds, { allVersions: flags["all-versions"] === true, source });
}
