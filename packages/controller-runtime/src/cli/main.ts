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
import { install, uninstall } from "./install.js";
import { run } from "./run.js";

const USAGE = `usage: controller-runtime <command> [flags]

Scaffolding (in the current folder, or --dir):
  init [--domain example.com] [--project-name NAME] [--library SPEC] [--apiserver SPEC]
                                                     a new operator project; its dependencies
                                                     are what this CLI runs from (a tarball, a
                                                     folder, the registry) unless given
  create api --group G --version V --kind K          a custom resource, its controller and test
  create webhook --kind K [--defaulting] [--programmatic-validation]
                                                     its admission webhooks and their test
Generation (--check: fail on drift instead of writing, for CI):
  generate                                           crds and rbac, as npm run generate
  generate crds [--from src/api] [--out config/crd]  CRD manifests from defineCRD definitions
  generate rbac [--from src] [--out config/rbac/role.yaml] [--role-name manager-role]
                                                     the ClusterRole from +kubebuilder:rbac markers
  generate types FILE|FOLDER... [--out F] [--all-versions] [--group G]
  generate types --from-cluster [--kubeconfig F]     TypeScript types for existing CRDs
Running (kubebuilder's make run, install, uninstall):
  run [--port N] [--kubeconfig F] [MANAGER FLAGS]    the manager from src/main.ts until Ctrl-C, on
                                                     the embedded API server with the cluster
                                                     simulation and the CRDs; with --kubeconfig
                                                     or KUBECONFIG, on that cluster
  install [--kubeconfig F]                           the CRDs of config/crd into the cluster
  uninstall [--kubeconfig F]                         ...and out of it`;

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
  library: { type: "string" },
  apiserver: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export async function main(argv: string[]): Promise<string[]> {
  if (argv[0] === "run") return runCommand(argv.slice(1));
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
    case "install":
      return install(dir, { kubeconfig: values.kubeconfig, from: values.from });
    case "uninstall":
      return uninstall(dir, { kubeconfig: values.kubeconfig, from: values.from });
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

/**
 * `run`'s arguments: its own flags (--dir, --port, --kubeconfig, which the manager gets too) and
 * everything else for the manager, so that `npm run run -- --zap-devel` needs no second `--`.
 */
async function runCommand(argv: string[]): Promise<string[]> {
  const own: Record<string, string> = {};
  const manager: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      manager.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") return [USAGE];
    const flag = /^--(dir|port|kubeconfig)(?:=(.*))?$/s.exec(arg);
    if (!flag?.[1]) {
      manager.push(arg);
      continue;
    }
    const value = flag[2] ?? argv[++i];
    if (value === undefined) throw new CLIError(`run: --${flag[1]} needs a value\n\n${USAGE}`);
    own[flag[1]] = value;
  }
  const status = await run(resolve(own.dir ?? "."), { kubeconfig: own.kubeconfig, port: own.port }, manager, {
    log: console.log,
    env: process.env,
  });
  if (status !== 0) throw new CLIError(`the manager exited with status ${status}`);
  return [];
}
