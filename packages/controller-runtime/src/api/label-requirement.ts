// Label selector requirements: apimachinery's labels.NewRequirement with its validation
// (validation.IsQualifiedName, IsValidLabelValue) and its error messages, as apimachinery
// v0.36+ words them (api/validate/content: "a valid label key", lengths in bytes).

/** apimachinery's selection.Operator values. */
export type LabelOperator = "in" | "notin" | "=" | "==" | "!=" | "exists" | "!" | "gt" | "lt";

/** One term of a selector; `values` are sorted and distinct. */
export interface Requirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A selector that failed to parse or validate; the message is apimachinery's. */
export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
}

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const QNAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** apimachinery's validation.IsQualifiedName: the problems with a label key (empty when valid). */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name = parts[0];
  if (parts.length > 2) {
    return [
      `a valid label key ${QNAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else {
      if (prefix.length > 253) errs.push("prefix part must be no more than 253 bytes");
      if (!DNS1123_SUBDOMAIN.test(prefix)) errs.push(`prefix part ${DNS_MSG}`);
    }
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (name.length > 63) errs.push("name part must be no more than 63 bytes");
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${QNAME_MSG}`);
  return errs;
}

/** apimachinery's validation.IsValidLabelValue: the problems with a label value (empty when valid). */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push("must be no more than 63 bytes");
  if (!LABEL_VALUE.test(value)) errs.push(VALUE_MSG);
  return errs;
}

// field.Invalid(...).Error() with Go's %q for strings and %#v for string slices.
export function invalid(path: string, value: string | readonly string[], detail: string): string {
  const shown =
    typeof value === "string"
      ? JSON.stringify(value)
      : `[]string{${value.map((v) => JSON.stringify(v)).join(", ")}}`;
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

// labels.NewRequirement's checks; `path` is the parser's field path ("<nil>" when none, as in Go).
export function requirementErrors(
  key: string,
  op: LabelOperator,
  values: readonly string[],
  path: string,
): string[] {
  const child = (name: string) => (path === "" ? name : `${path}.${name}`);
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(invalid(child("key"), key, keyErrs.join("; ")));
  const vp = child("values");
  if ((op === "in" || op === "notin") && values.length === 0) {
    errs.push(invalid(vp, values, "for 'in', 'notin' operators, values set can't be empty"));
  } else if ((op === "=" || op === "==" || op === "!=") && values.length !== 1) {
    errs.push(invalid(vp, values, "exact-match compatibility requires one single value"));
  } else if ((op === "exists" || op === "!") && values.length !== 0) {
    errs.push(invalid(vp, values, "values set must be empty for exists and does not exist"));
  } else if (op === "gt" || op === "lt") {
    if (values.length !== 1) {
      errs.push(invalid(vp, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
    }
    values.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v)) {
        errs.push(invalid(`${vp}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      }
    });
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(invalid(`${vp}[${i}][${key}]`, v, valueErrs.join("; ")));
  });
  return errs;
}

// utilerrors.Aggregate's message: one error alone, several as "[a, b]" without duplicates.
export function aggregate(errs: string[]): string {
  const distinct = [...new Set(errs)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(", ")}]`;
}

/** Builds a validated requirement; values are sorted and de-duplicated. */
export function newRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[] = [],
): Requirement {
  const errs = requirementErrors(key, operator, values, "");
  if (errs.length > 0) throw new SelectorParseError(aggregate(errs));
  return { key, operator, values: [...new Set(values)].sort() };
}

/** `newRequirement` for the parser: a plain Error, which the parser wraps. */
export function checkedRequirement(key: string, op: LabelOperator, values: string[]): Requirement {
  const errs = requirementErrors(key, op, values, "");
  if (errs.length > 0) throw new Error(aggregate(errs));
  return { key, operator: op, values };
}
