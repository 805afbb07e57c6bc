// Names scaffolding derives, checked first so that a bad one fails before any file is written.
import { pluralize } from "../../api/kind.js";
import { CLIError } from "../errors.js";

const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function checkProjectName(name: string): string {
  if (!DNS_LABEL.test(name) || name.length > 40) {
    throw new CLIError(
      `project name ${JSON.stringify(name)}: use lower-case letters, digits and dashes (at most 40)`,
    );
  }
  return name;
}

export function checkDomain(domain: string): string {
  if (!DNS_SUBDOMAIN.test(domain) || !domain.includes(".")) {
    throw new CLIError(`domain ${JSON.stringify(domain)}: a DNS name with a dot, such as example.com`);
  }
  return domain;
}

export function checkKind(kind: string): string {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    throw new CLIError(`kind ${JSON.stringify(kind)}: CamelCase, starting with a capital (Memcached)`);
  }
  return kind;
}

export function checkGroup(group: string): string {
  if (!DNS_LABEL.test(group))
    throw new CLIError(`group ${JSON.stringify(group)}: a lower-case DNS label (cache)`);
  return group;
}

export function checkVersion(version: string): string {
  if (!/^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(version)) {
    throw new CLIError(`version ${JSON.stringify(version)}: v1, v1beta1, v1alpha1, ...`);
  }
  return version;
}

/** `memcached` for `Memcached`, `web-app` for `WebApp`: file names. */
export function fileNameOf(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}

export function pluralOf(kind: string): string {
  return pluralize(kind);
}

/** A kubebuilder-style leader election ID: a short stable hash and the domain. */
export function leaderElectionID(projectName: string, domain: string): string {
  let h = 0x811c9dc5;
  for (const c of `${projectName}.${domain}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return `${h.toString(16).padStart(8, "0")}.${domain}`;
}
