// Mutating and ValidatingWebhookConfigurations: admissionregistration/v1's defaults and
// kube-apiserver's validation (pkg/apis/admissionregistration/validation), so a configuration a
// cluster refuses (a webhook named "svc", sideEffects "Unknown", no known AdmissionReview
// version) is refused here too, with kube's field paths and words.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { celMatch } from "../lazy.js";
import { dns1035LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { labelSelectorCauses } from "./workloads.js";

const ACCEPTED_REVIEW_VERSIONS = ["v1", "v1beta1"];
const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const ALL_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"];
const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const SCOPES = ["*", "Cluster", "Namespaced"];

/** A []string as kube 1.37's field.Invalid prints one: JSON (1.26 printed Go's `%#v`). */
function invalidList(field: string, values: unknown[], detail: string): StatusCause {
  const value = JSON.stringify(values.map(String));
  return { reason: "FieldValueInvalid", message: `Invalid value: ${value}: ${detail}`, field };
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

function webhooksOf(obj: Readonly<Obj> | undefined): Obj[] {
  const hooks = obj?.webhooks;
  return Array.isArray(hooks) ? (hooks.filter((h) => h && typeof h === "object") as Obj[]) : [];
}

interface Options {
  requireNoSideEffects: boolean;
  requireRecognizedReviewVersion: boolean;
  requireUniqueNames: boolean;
}

// On update, a rule the old object already broke is not enforced (kube lets old objects be edited).
function optionsFor(old: Readonly<Obj> | undefined): Options {
  if (!old)
    return { requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueNames: true };
  const hooks = webhooksOf(old);
  const names = hooks.map((h) => h.name).filter((n) => typeof n === "string" && n !== "");
  return {
    requireNoSideEffects: hooks.every((h) => NO_SIDE_EFFECTS.includes(String(h.sideEffects))),
    requireRecognizedReviewVersion: hooks.every((h) => {
      const versions = strings(h.admissionReviewVersions);
      return versions.length === 0 || versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueNames: new Set(names).size === names.length,
  };
}

function validateResources(resources: string[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (resources.length === 0) out.push(cause.required(path));
  const wildcardSub = new Set<string>();
  const wildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((rs, i) => {
    if (rs === "") {
      out.push(cause.required(`${path}[${i}]`));
      return;
    }
    if (rs === "*/*") doubleWildcard = true;
    if (rs === "*") singleWildcard = true;
    const slash = rs.indexOf("/");
    if (slash < 0) {
      withoutSub = rs !== "*";
      return;
    }
    const res = rs.slice(0, slash);
    const sub = rs.slice(slash + 1);
    if (wildcardSub.has(res))
      out.push(cause.invalid(`${path}[${i}]`, rs, `if '${res}/*' is present, must not specify ${rs}`));
    if (wildcardRes.has(sub))
      out.push(cause.invalid(`${path}[${i}]`, rs, `if '*/${sub}' is present, must not specify ${rs}`));
    if (sub === "*") wildcardSub.add(res);
    if (res === "*") wildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) {
    out.push(invalidList(path, resources, "if '*/*' is present, must not specify other resources"));
  }
  if (singleWildcard && withoutSub) {
    out.push(
      invalidList(
        path,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
  }
  return out;
}

/** validateRuleWithOperations (subresources allowed): a webhook's rule, an admission policy's too. */
export function validateRule(rule: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const ops = strings(rule.operations);
  if (ops.length === 0) out.push(cause.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes("*")) {
    out.push(invalidList(`${path}.operations`, ops, "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) out.push(cause.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  const groups = strings(rule.apiGroups);
  if (groups.length === 0) out.push(cause.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes("*")) {
    out.push(
      invalidList(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"),
    );
  }
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) out.push(cause.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes("*")) {
    out.push(
      invalidList(`${path}.apiVersions`, versions, "if '*' is present, must not specify other API versions"),
    );
  }
  versions.forEach((v, i) => {
    if (v === "") out.push(cause.required(`${path}.apiVersions[${i}]`));
  });
  out.push(...validateResources(strings(rule.resources), `${path}.resources`));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(String(rule.scope))) {
    out.push(cause.notSupported(`${path}.scope`, rule.scope, SCOPES));
  }
  return out;
}

function validateURL(url: string, path: string): StatusCause[] {
  const form = "; desired format: https://host[/path]";
  let u: { protocol: string; host: string; username: string; password: string; hash: string; search: string };
  if (!/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(url)) {
    // Go's url.Parse reads a string without a scheme as a relative reference (JavaScript's URL
    // refuses it): no scheme, and a host only after "//".
    const rest = url.split("#")[0].split("?")[0];
    const host = rest.startsWith("//") ? rest.slice(2).split("/")[0] : "";
    u = { protocol: "", host, username: "", password: "", hash: "", search: "" };
  } else {
    try {
      u = new URL(url);
    } catch (e) {
      return [cause.required(path, `url must be a valid URL: ${(e as Error).message}${form}`)];
    }
  }
  const out: StatusCause[] = [];
  const scheme = u.protocol.replace(/:$/, "");
  if (scheme !== "https")
    out.push(cause.invalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === "") out.push(cause.invalid(path, u.host, `host must be specified${form}`));
  if (u.username || u.password) {
    const user = u.password ? `${u.username}:${u.password}` : u.username;
    out.push(cause.invalid(path, user, "user information is not permitted in the URL"));
  }
  if (u.hash.length > 1)
    out.push(cause.invalid(path, u.hash.slice(1), "fragments are not permitted in the URL"));
  if (u.search.length > 1)
    out.push(cause.invalid(path, u.search.slice(1), "query parameters are not permitted in the URL"));
  return out;
}

function validateClientConfig(cc: Obj | undefined, path: string): StatusCause[] {
  const url = cc?.url;
  const service = cc?.service as Obj | undefined;
  if ((url === undefined || url === null) === (service === undefined || service === null)) {
    return [cause.required(path, "exactly one of url or service is required")];
  }
  if (typeof url === "string") return validateURL(url, `${path}.url`);
  const out: StatusCause[] = [];
  if (!service?.name) out.push(cause.required(`${path}.service.name`, "service name is required"));
  if (!service?.namespace)
    out.push(cause.required(`${path}.service.namespace`, "service namespace is required"));
  const port = service?.port;
  if (typeof port === "number" && (port < 1 || port > 65535 || !Number.isInteger(port))) {
    out.push(
      cause.invalid(
        `${path}.service.port`,
        port,
        "port is not valid: must be between 1 and 65535, inclusive",
      ),
    );
  }
  return out;
}

function validateWebhook(hook: Obj, path: string, o: Options, mutating: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  const name = typeof hook.name === "string" ? hook.name : "";
  if (name === "") out.push(cause.required(`${path}.name`));
  else {
    const errs = dns1123SubdomainErrors(name);
    if (errs.length) out.push(cause.invalid(`${path}.name`, name, errs.join(",")));
    else if (name.split(".").length < 3) {
      out.push(
        cause.invalid(
          `${path}.name`,
          name,
          "should be a domain with at least three segments separated by dots",
        ),
      );
    }
  }
  const rules = Array.isArray(hook.rules) ? (hook.rules as Obj[]) : [];
  rules.forEach((r, i) => {
    out.push(...validateRule(r ?? {}, `${path}.rules[${i}]`));
  });
  if (hook.failurePolicy != null && !FAILURE_POLICIES.includes(String(hook.failurePolicy))) {
    out.push(cause.notSupported(`${path}.failurePolicy`, hook.failurePolicy, FAILURE_POLICIES));
  }
  if (hook.matchPolicy != null && !MATCH_POLICIES.includes(String(hook.matchPolicy))) {
    out.push(cause.notSupported(`${path}.matchPolicy`, hook.matchPolicy, MATCH_POLICIES));
  }
  const allowed = o.requireNoSideEffects ? NO_SIDE_EFFECTS : ALL_SIDE_EFFECTS;
  if (hook.sideEffects == null) {
    out.push(cause.required(`${path}.sideEffects`, `must specify one of ${allowed.join(", ")}`));
  } else if (!allowed.includes(String(hook.sideEffects))) {
    out.push(cause.notSupported(`${path}.sideEffects`, hook.sideEffects, allowed));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === "number" && (timeout > 30 || timeout < 1)) {
    out.push(
      cause.invalid(`${path}.timeoutSeconds`, timeout, "the timeout value must be between 1 and 30 seconds"),
    );
  }
  if (
    mutating &&
    hook.reinvocationPolicy != null &&
    !REINVOCATION_POLICIES.includes(String(hook.reinvocationPolicy))
  ) {
    out.push(
      cause.notSupported(`${path}.reinvocationPolicy`, hook.reinvocationPolicy, REINVOCATION_POLICIES),
    );
  }
  for (const f of ["namespaceSelector", "objectSelector"])
    out.push(...labelSelectorCauses(hook[f], `${path}.${f}`));
  out.push(...validateClientConfig(hook.clientConfig as Obj | undefined, `${path}.clientConfig`));
  if (hook.matchConditions != null) {
    out.push(...celMatch.get().matchConditionErrors(hook.matchConditions, `${path}.matchConditions`));
  }
  return out;
}

function validateReviewVersions(versions: string[], path: string, require: boolean): StatusCause[] {
  if (versions.length === 0) {
    return [cause.required(path, `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(", ")}`)];
  }
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      out.push(cause.invalid(`${path}[${i}]`, v, "duplicate version"));
      return;
    }
    seen.add(v);
    for (const msg of dns1035LabelErrors(v)) out.push(cause.invalid(`${path}[${i}]`, v, msg));
  });
  if (require && !versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    out.push(
      invalidList(path, versions, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(", ")}`),
    );
  }
  return out;
}

function validateConfiguration(obj: Obj, old: Readonly<Obj> | undefined, mutating: boolean): StatusCause[] {
  const o = optionsFor(old);
  const out: StatusCause[] = [];
  const names = new Set<string>();
  webhooksOf(obj).forEach((hook, i) => {
    const path = `webhooks[${i}]`;
    out.push(...validateWebhook(hook, path, o, mutating));
    out.push(
      ...validateReviewVersions(
        strings(hook.admissionReviewVersions),
        `${path}.admissionReviewVersions`,
        o.requireRecognizedReviewVersion,
      ),
    );
    const name = typeof hook.name === "string" ? hook.name : "";
    if (o.requireUniqueNames && name) {
      if (names.has(name)) out.push(cause.duplicate(`${path}.name`, name));
      else names.add(name);
    }
  });
  return out;
}

// admissionregistration/v1's SetDefaults_*: what a webhook leaves out is written as the default.
function defaultWebhooks(obj: Obj, mutating: boolean): void {
  for (const hook of webhooksOf(obj)) {
    hook.failurePolicy ??= "Fail";
    hook.matchPolicy ??= "Equivalent";
    hook.namespaceSelector ??= {};
    hook.objectSelector ??= {};
    hook.timeoutSeconds ??= 10;
    if (mutating) hook.reinvocationPolicy ??= "Never";
    const cc = hook.clientConfig as Obj | undefined;
    const service = cc?.service as Obj | undefined;
    if (service) service.port ??= 443;
    if (Array.isArray(hook.rules)) {
      for (const rule of hook.rules as Obj[]) if (rule && typeof rule === "object") rule.scope ??= "*";
    }
  }
}

export const mutatingWebhookConfigurationBehaviour: KindBehaviour = {
  defaults: (obj) => defaultWebhooks(obj, true),
  validate: (obj, old) => validateConfiguration(obj, old, true),
};

export const validatingWebhookConfigurationBehaviour: KindBehaviour = {
  defaults: (obj) => defaultWebhooks(obj, false),
  validate: (obj, old) => validateConfiguration(obj, old, false),
};
