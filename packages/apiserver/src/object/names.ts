// Name rules with apimachinery's messages (IsDNS1123Subdomain, IsDNS1123Label, IsDNS1035Label,
// ValidatePathSegmentName), so a name that kube-apiserver rejects is rejected here in its words.
import type { ResourceDefinition } from "../registry/index.js";

const subdomainRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const labelRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Re = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const labelMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Msg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!subdomainRe.test(value)) errs.push(subdomainMsg);
  return errs;
}

export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!labelRe.test(value)) errs.push(labelMsg);
  return errs;
}

export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!dns1035Re.test(value)) errs.push(dns1035Msg);
  return errs;
}

export function pathSegmentErrors(value: string): string[] {
  if (value === "." || value === "..") return [`may not be '${value}'`];
  const errs: string[] = [];
  if (value.includes("/")) errs.push("may not contain '/'");
  if (value.includes("%")) errs.push("may not contain '%'");
  return errs;
}

/**
 * Problems with a name under the resource's rule. With `prefix`, the value is a generateName and
 * may end in '-' (a random suffix follows), as in apimachinery's NameIsDNSSubdomain(prefix=true).
 */
export function nameErrors(def: ResourceDefinition, value: string, prefix = false): string[] {
  const v = prefix ? maskTrailingDash(value) : value;
  switch (def.nameValidation ?? "subdomain") {
    case "label":
      return dns1123LabelErrors(v);
    case "dns1035":
      return dns1035LabelErrors(v);
    case "path":
      return pathSegmentErrors(v);
    default:
      return dns1123SubdomainErrors(v);
  }
}

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith("-") ? `${name.slice(0, -2)}a` : name;
}
