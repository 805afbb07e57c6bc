// The PROJECT file at a scaffolded project's root, as kubebuilder keeps one: the domain and name
// `init` chose and the kinds and webhooks created since, which later commands read and extend.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { CLIError } from "../errors.js";

export interface ProjectResource {
  group: string;
  version: string;
  kind: string;
  /** The plural, lower case. */
  plural: string;
  /** The full API group: `<group>.<domain>`. */
  apiGroup: string;
  webhooks?: { defaulting?: boolean; validation?: boolean };
}

export interface Project {
  projectName: string;
  domain: string;
  layout: "controller-runtime-ts/v1";
  resources: ProjectResource[];
}

export const PROJECT_FILE = "PROJECT";

export function readProject(dir: string): Project {
  const path = join(dir, PROJECT_FILE);
  if (!existsSync(path)) {
    throw new CLIError(`no ${PROJECT_FILE} file in ${dir}: run \`controller-runtime init\` first`);
  }
  const project = parse(readFileSync(path, "utf8")) as Project;
  if (!project?.domain || !project.projectName) throw new CLIError(`${path}: needs domain and projectName`);
  project.resources ??= [];
  return project;
}

export function writeProject(dir: string, project: Project): void {
  writeFileSync(
    join(dir, PROJECT_FILE),
    `# Written by controller-runtime's CLI: what init and create chose. Edit with care.\n${stringify(project)}`,
  );
}
