// `npx controller-runtime <command>`: kubebuilder's workflow for TypeScript projects. bin.ts runs
// it; tests call main() directly.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  createAPI,
  createWebhook,
  type Flags,
  generate,
  generateCRDs,
  generateRBAC,
  generateTypesCommand,
  init,
} from "./commands.js";
import { CLIError } from "./errors.js";

const USAGE = `usage: controller-runtime <command> [flags]

Scaffolding (in the current folder, or --dir):
  init [--domain example.com] [--project-name NAME]   a new operator project
  create api --group G --version V --kind K          a custom resource, its controller and test
  create webhook --kind K [--defaulting] [--programmatic-validation]
                                                     its admission webhooks and their test
Generation (--check: fail on drift instead of writing, for CI):
  generate                                           crds and rbac, as npm run generate
  generate crds [--from src/api] [--out config/crd]  CRD manifests from defineCRD definitions
  generate rbac [--from src] [--out config/rbac/role.yaml] [--role-name manager-role]
                                                     the ClusterRole from +kubebuilder:rbac markers
  generate types FILE|FOLDER... [--out F] [--all-versions] [--group G]
  generate types --from-cluster [--kubeconfig F]     TypeScript types for existing CRDs`;

const options = {
  dir: { type: "string" },
  domain: { type: "string" },
  "project-name": { type: "string" },
  group: { type: "string" },
  version: { type: "string" },
  kind: { type: "string" },
  defaulting: { type: "boolean" },
  "programmatic-validation": { type: "boolean" },
  from: { type: "string", multiple: true },
  out: { type: "string" },
  check: { type: "boolean" },
  "role-name": { type: "string" },
  "all-versions": { type: "boolean" },
  "from-cluster": { type: "boolean" },
  kubeconfig: { type: "string" },
  force: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export async function main(argv: string[]): Promise<string[]> {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof options; allowPositionals: true; args: string[] }>
  >;
  try {
    parsed = parseArgs({ options, allowPositionals: true, args: argv });
  } catch (err) {
    throw new CLIError(`${(err as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const flags = values as Flags;
  const dir = resolve(values.dir ?? ".");
  const [command, sub, ...rest] = positionals;
  const check = values.check === true;
  if (values.help || !command) return [USAGE];
  switch (`${command} ${sub ?? ""}`.trim()) {
    case "init":
      return init(dir, flags);
    case "create api":
      return createAPI(dir, flags);
    case "create webhook":
      return createWebhook(dir, flags);
    case "generate":
      return generate(dir, { check });
    case "generate crds":
      return generateCRDs(dir, { from: values.from ?? ["src/api"], out: values.out ?? "config/crd", check });
    case "generate rbac":
      return generateRBAC(dir, {
        from: values.from ?? ["src"],
        out: values.out ?? "config/rbac/role.yaml",
        check,
        ...(values["role-name"] ? { roleName: values["role-name"] } : {}),
      });
    case "generate types": {
      const source = await generateTypesCommand(dir, flags, rest);
      if (!values.out) return [source.trimEnd()];
      writeFileSync(resolve(dir, values.out), source);
      return [`wrote ${values.out}`];
    }
    default:
      throw new CLIError(`unknown command ${JSON.stringify(positionals.join(" "))}\n\n${USAGE}`);
  }
}
