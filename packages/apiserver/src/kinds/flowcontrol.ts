// FlowSchemas and PriorityLevelConfigurations, as kube's flowcontrol validation checks them on
// every write, status included (ValidateFlowSchema, ValidatePriorityLevelConfiguration): a
// schema's precedence, level reference, subjects and rules; a level's type and the one of
// `limited`/`exempt` it allows, its shares, limit response and queuing; conditions with a type,
// each type once.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { dns1123LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Obj | undefined =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined;
const str = (v: unknown): string => (typeof v === "string" ? v : "");

const MAX_PRECEDENCE = 10000;
const DISTINGUISHERS = ["ByNamespace", "ByUser"];
const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"];
const SUBJECT_KINDS = ["Group", "ServiceAccount", "User"];
const TYPES = ["Exempt", "Limited"];
const LIMIT_RESPONSES = ["Queue", "Reject"];
const MAX_QUEUES = 10_000_000;
const MAX_HASH_BITS = 60;

/** Conditions of either kind's status: a type each, no type twice. */
function conditionCauses(status: unknown): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  list(obj(status)?.conditions).forEach((c, i) => {
    const type = str(obj(c)?.type);
    const at = `status.conditions[${i}].type`;
    if (seen.has(type)) causes.push(cause.duplicate(at, type));
    seen.add(type);
    if (type === "") causes.push(cause.required(at));
  });
  return causes;
}

/** Verbs of a rule: some, `*` alone, or the verbs kube knows. */
function verbCauses(verbs: unknown[], at: string): StatusCause[] {
  if (verbs.length === 0) return [cause.required(at, "verbs must contain at least one value")];
  if (verbs.includes("*"))
    return verbs.length > 1
      ? [cause.invalid(at, verbs, "if '*' is present, must not specify other verbs")]
      : [];
  return verbs.every((v) => VERBS.includes(str(v))) ? [] : [cause.notSupported(at, verbs, VERBS)];
}

function resourceRuleCauses(rule: Obj, at: string): StatusCause[] {
  const causes = verbCauses(list(rule.verbs), `${at}.verbs`);
  for (const [key, what] of [
    ["apiGroups", "api group"],
    ["resources", "resource"],
  ] as const) {
    const values = list(rule[key]);
    if (values.length === 0)
      causes.push(cause.required(`${at}.${key}`, `resource rules must supply at least one ${what}`));
    else if (values.length > 1 && values.includes("*"))
      causes.push(
        cause.invalid(
          `${at}.${key}`,
          values,
          `if '*' is present, must not specify other ${key === "apiGroups" ? "api groups" : "resources"}`,
        ),
      );
  }
  const namespaces = list(rule.namespaces);
  if (namespaces.length === 0 && rule.clusterScope !== true)
    causes.push(
      cause.required(
        `${at}.namespaces`,
        "resource rules that are not cluster scoped must supply at least one namespace",
      ),
    );
  else if (namespaces.includes("*")) {
    if (namespaces.length > 1)
      causes.push(
        cause.invalid(`${at}.namespaces`, namespaces, "if '*' is present, must not specify other namespaces"),
      );
  } else {
    namespaces.forEach((ns, i) => {
      for (const m of dns1123LabelErrors(str(ns)))
        causes.push(
          cause.invalid(
            `${at}.namespaces[${i}]`,
            ns,
            `each member of this list must be '*' or a DNS-1123 label; ${m}`,
          ),
        );
    });
  }
  return causes;
}

function nonResourceURLError(path: string): string | undefined {
  if (path === "") return "must not be empty";
  if (path === "/") return undefined;
  if (!path.startsWith("/")) return "must start with slash";
  if (path.includes(" ")) return "must not contain white-space";
  if (path.includes("//")) return "must not contain double slash";
  const wildcards = path.split("*").length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith("/*")))
    return "wildcard can only do suffix matching";
  return undefined;
}

function nonResourceRuleCauses(rule: Obj, at: string): StatusCause[] {
  const causes = verbCauses(list(rule.verbs), `${at}.verbs`);
  const urls = list(rule.nonResourceURLs);
  if (urls.length === 0)
    causes.push(cause.required(`${at}.nonResourceURLs`, "nonResourceURLs must contain at least one value"));
  else if (urls.includes("*")) {
    if (urls.length > 1)
      causes.push(
        cause.invalid(
          `${at}.nonResourceURLs`,
          urls,
          "if '*' is present, must not specify other non-resource URLs",
        ),
      );
  } else {
    urls.forEach((u, i) => {
      const e = nonResourceURLError(str(u));
      if (e) causes.push(cause.invalid(`${at}.nonResourceURLs[${i}]`, u, e));
    });
  }
  return causes;
}

/** One subject: its kind, the member of that kind, and no member of another. */
function subjectCauses(subject: Obj, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const kind = str(subject.kind);
  if (!SUBJECT_KINDS.includes(kind)) return [cause.notSupported(`${at}.kind`, kind, SUBJECT_KINDS)];
  const member = { ServiceAccount: "serviceAccount", User: "user", Group: "group" }[kind] as string;
  const given = obj(subject[member]);
  if (!given)
    causes.push(cause.required(`${at}.${member}`, `${member} is required when subject kind is '${kind}'`));
  else if (str(given.name) === "") causes.push(cause.required(`${at}.${member}.name`));
  else if (kind === "ServiceAccount" && given.name !== "*")
    for (const m of dns1123SubdomainErrors(str(given.name)))
      causes.push(cause.invalid(`${at}.${member}.name`, given.name, m));
  if (kind === "ServiceAccount" && given) {
    const ns = str(given.namespace);
    if (ns === "")
      causes.push(
        cause.required(`${at}.serviceAccount.namespace`, "must specify namespace for service account"),
      );
    else
      for (const m of dns1123LabelErrors(ns))
        causes.push(cause.invalid(`${at}.serviceAccount.namespace`, ns, m));
  }
  for (const [other, otherKind] of [
    ["user", "User"],
    ["group", "Group"],
    ["serviceAccount", "ServiceAccount"],
  ])
    if (other !== member && subject[other] !== undefined && subject[other] !== null)
      causes.push(
        cause.forbidden(`${at}.${other}`, `${other} is forbidden when subject kind is not '${otherKind}'`),
      );
  return causes;
}

export function flowSchemaCauses(o: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = obj(o.spec) ?? {};
  const name = str(obj(o.metadata)?.name);
  const precedence = typeof spec.matchingPrecedence === "number" ? spec.matchingPrecedence : 0;
  if (precedence <= 0)
    causes.push(cause.invalid("spec.matchingPrecedence", precedence, "must be a positive value"));
  if (precedence > MAX_PRECEDENCE)
    causes.push(
      cause.invalid("spec.matchingPrecedence", precedence, `must not be greater than ${MAX_PRECEDENCE}`),
    );
  if (precedence === 1 && name !== "exempt")
    causes.push(
      cause.invalid(
        "spec.matchingPrecedence",
        precedence,
        "only the schema named 'exempt' may have matchingPrecedence 1",
      ),
    );
  const distinguisher = obj(spec.distinguisherMethod);
  if (distinguisher && !DISTINGUISHERS.includes(str(distinguisher.type)))
    causes.push(cause.notSupported("spec.distinguisherMethod.type", distinguisher, DISTINGUISHERS));
  const level = str(obj(spec.priorityLevelConfiguration)?.name);
  if (level === "")
    causes.push(cause.required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  else
    for (const m of dns1123SubdomainErrors(level))
      causes.push(cause.invalid("spec.priorityLevelConfiguration.name", level, m));
  list(spec.rules).forEach((r, i) => {
    const rule = obj(r) ?? {};
    const at = `spec.rules[${i}]`;
    const subjects = list(rule.subjects);
    if (subjects.length === 0)
      causes.push(cause.required(`${at}.subjects`, "subjects must contain at least one value"));
    for (const [j, s] of subjects.entries())
      causes.push(...subjectCauses(obj(s) ?? {}, `${at}.subjects[${j}]`));
    const resourceRules = list(rule.resourceRules);
    const nonResourceRules = list(rule.nonResourceRules);
    if (resourceRules.length === 0 && nonResourceRules.length === 0)
      causes.push(
        cause.required(at, "at least one of resourceRules and nonResourceRules has to be non-empty"),
      );
    for (const [j, x] of resourceRules.entries())
      causes.push(...resourceRuleCauses(obj(x) ?? {}, `${at}.resourceRules[${j}]`));
    for (const [j, x] of nonResourceRules.entries())
      causes.push(...nonResourceRuleCauses(obj(x) ?? {}, `${at}.nonResourceRules[${j}]`));
  });
  causes.push(...conditionCauses(o.status));
  return causes;
}

/** shufflesharding.RequiredEntropyBits: bits to pick `hand` of `deck` cards. */
function entropyBits(deck: number, hand: number): number {
  return Math.ceil(Math.log2(deck) * hand);
}

function queuingCauses(q: Obj, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const n = (k: string) => (typeof q[k] === "number" ? (q[k] as number) : 0);
  if (n("queueLengthLimit") <= 0)
    causes.push(cause.invalid(`${at}.queueLengthLimit`, n("queueLengthLimit"), "must be positive"));
  if (n("queues") <= 0) causes.push(cause.invalid(`${at}.queues`, n("queues"), "must be positive"));
  else if (n("queues") > MAX_QUEUES)
    causes.push(cause.invalid(`${at}.queues`, n("queues"), `must not be greater than ${MAX_QUEUES}`));
  if (n("handSize") <= 0) causes.push(cause.invalid(`${at}.handSize`, n("handSize"), "must be positive"));
  else if (n("handSize") > n("queues"))
    causes.push(
      cause.invalid(`${at}.handSize`, n("handSize"), `should not be greater than queues (${n("queues")})`),
    );
  else if (entropyBits(n("queues"), n("handSize")) > MAX_HASH_BITS)
    causes.push(
      cause.invalid(
        `${at}.handSize`,
        n("handSize"),
        `required entropy bits of deckSize ${n("queues")} and handSize ${n("handSize")} should not be greater than ${MAX_HASH_BITS}`,
      ),
    );
  return causes;
}

function limitResponseCauses(lr: Obj, at: string): StatusCause[] {
  const type = str(lr.type);
  const queuing = obj(lr.queuing);
  const causes: StatusCause[] = [];
  if (type !== "Queue" && queuing)
    causes.push(cause.forbidden(`${at}.queuing`, "must be nil if limited.limitResponse.type is not Limited"));
  if (type === "Queue") {
    if (!queuing)
      causes.push(
        cause.required(`${at}.queuing`, "must not be empty if limited.limitResponse.type is Limited"),
      );
    else causes.push(...queuingCauses(queuing, `${at}.queuing`));
  } else if (type === "") causes.push(cause.required(`${at}.type`));
  else if (type !== "Reject") causes.push(cause.notSupported(`${at}.type`, type, LIMIT_RESPONSES));
  return causes;
}

const percent = (v: unknown) => typeof v === "number" && (v < 0 || v > 100);

export function priorityLevelCauses(o: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = obj(o.spec) ?? {};
  const name = str(obj(o.metadata)?.name);
  const type = str(spec.type);
  const limited = obj(spec.limited);
  const exempt = obj(spec.exempt);
  if ((name === "exempt") !== (type === "Exempt"))
    causes.push(cause.invalid("spec.type", type, "must be 'Exempt' if and only if `name` is 'exempt'"));
  // The union (declarative validation): the member of the other types is forbidden.
  if (type !== "Limited" && limited)
    causes.push(cause.forbidden("spec.limited", "must be nil if the type is not Limited"));
  if (type !== "Exempt" && exempt)
    causes.push(cause.forbidden("spec.exempt", "must be nil if the type is Limited"));
  if (type === "Exempt" && exempt) {
    const shares = exempt.nominalConcurrencyShares;
    if (typeof shares === "number" && shares < 0)
      causes.push(
        cause.invalid("spec.exempt.nominalConcurrencyShares", shares, "must be a non-negative integer"),
      );
    if (percent(exempt.lendablePercent))
      causes.push(
        cause.invalid(
          "spec.exempt.lendablePercent",
          exempt.lendablePercent,
          "must be between 0 and 100, inclusive",
        ),
      );
  } else if (type === "Limited") {
    if (!limited) causes.push(cause.required("spec.limited", "must not be empty when type is Limited"));
    else {
      const shares = limited.nominalConcurrencyShares;
      if (typeof shares === "number" && shares < 0)
        causes.push(
          cause.invalid("spec.limited.nominalConcurrencyShares", shares, "must be a non-negative integer"),
        );
      causes.push(...limitResponseCauses(obj(limited.limitResponse) ?? {}, "spec.limited.limitResponse"));
      if (percent(limited.lendablePercent))
        causes.push(
          cause.invalid(
            "spec.limited.lendablePercent",
            limited.lendablePercent,
            "must be between 0 and 100, inclusive",
          ),
        );
      const borrowing = limited.borrowingLimitPercent;
      if (typeof borrowing === "number" && borrowing < 0)
        causes.push(
          cause.invalid(
            "spec.limited.borrowingLimitPercent",
            borrowing,
            "if specified, must be a non-negative integer",
          ),
        );
    }
  } else if (type === "") causes.push(cause.required("spec.type"));
  else causes.push(cause.notSupported("spec.type", type, TYPES));
  causes.push(...conditionCauses(o.status));
  return causes;
}

/** SetDefaults_FlowSchemaSpec. */
function defaultFlowSchema(o: Obj): void {
  // A struct in Go: a schema without a spec is defaulted too.
  const spec = obj(o.spec) ?? {};
  o.spec = spec;
  if (!spec.matchingPrecedence) spec.matchingPrecedence = 1000;
}

/** flowcontrol v1's defaults of a level: its shares, lendable percent and queuing. */
function defaultPriorityLevel(o: Obj): void {
  const spec = obj(o.spec);
  const exempt = obj(spec?.exempt);
  if (exempt) {
    exempt.nominalConcurrencyShares ??= 0;
    exempt.lendablePercent ??= 0;
  }
  const limited = obj(spec?.limited);
  if (!limited) return;
  limited.nominalConcurrencyShares ??= 30;
  limited.lendablePercent ??= 0;
  const queuing = obj(obj(limited.limitResponse)?.queuing);
  if (queuing) {
    if (!queuing.handSize) queuing.handSize = 8;
    if (!queuing.queues) queuing.queues = 64;
    if (!queuing.queueLengthLimit) queuing.queueLengthLimit = 50;
  }
}

export const flowSchemaBehaviour: KindBehaviour = {
  defaults: (o) => defaultFlowSchema(o),
  validate: (o) => flowSchemaCauses(o),
};
export const priorityLevelConfigurationBehaviour: KindBehaviour = {
  defaults: (o) => defaultPriorityLevel(o),
  validate: (o) => priorityLevelCauses(o),
};
