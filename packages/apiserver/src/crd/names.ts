// apimachinery's name checks (IsDNS1123Subdomain, IsDNS1035Label) with kube's exact messages.

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** apimachinery's RegexError: the examples and the regex, worded as kube prints them. */
function regexError(msg: string, regex: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${regex}')`;
  const parts = examples.map((e, i) => `${i > 0 ? " or " : ""}'${e}', `).join("");
  return `${msg} (e.g. ${parts}regex used for validation is '${regex}')`;
}

/** Problems with `value` as a DNS-1123 subdomain (`example.com`); [] when valid. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
        "example.com",
      ),
    );
  }
  return errs;
}

/** Problems with `value` as a DNS-1035 label (`my-name`); [] when valid. */
export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 characters");
  if (!DNS1035_LABEL.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        "[a-z]([-a-z0-9]*[a-z0-9])?",
        "my-name",
        "abc-123",
      ),
    );
  }
  return errs;
}
