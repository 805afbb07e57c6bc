// RBAC's policy rules: whether one rule allows a request (rbac.RuleAllows), whether a set of rules
// covers another (the escalation check's Covers), and kube's compact rendering of missing rules.
import type { AccessRule } from "../handlers/context.js";
import type { Attributes } from "./attributes.js";

/** rbac/v1 PolicyRule. */
export type PolicyRule = AccessRule;

const has = (list: readonly string[] | undefined, value: string) => list?.includes(value) ?? false;

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return has(rule.verbs, "*") || has(rule.verbs, verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return has(rule.apiGroups, "*") || has(rule.apiGroups, group);
}

/** `*`, the resource with its subresource (`pods/log`), or `*\/log` for any resource's `log`. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === "*" || r === combined) return true;
    if (subresource === "") continue;
    if (r.length === subresource.length + 2 && r.startsWith("*/") && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return (rule.resourceNames?.length ?? 0) === 0 || has(rule.resourceNames, name);
}

/** `*`, the path itself, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === "*" || u === path) return true;
    if (u.endsWith("*") && path.startsWith(u.replace(/\*+$/, ""))) return true;
  }
  return false;
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return (
    apiGroupMatches(rule, a.apiGroup) &&
    resourceMatches(rule, combined, a.subresource) &&
    resourceNameMatches(rule, a.name)
  );
}

/** A rule split into rules of one verb, group, resource and name each (kube's BreakdownRule). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames?.length ?? 0) > 0) {
          for (const name of rule.resourceNames ?? []) {
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
          }
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(owner: readonly string[] | undefined, requested: readonly string[] | undefined): boolean {
  if (has(owner, "*")) return true;
  return (requested ?? []).every((r) => has(owner, r));
}

function resourceCoversAll(owner: readonly string[] | undefined, requested: readonly string[] | undefined) {
  if (has(owner, "*")) return true;
  return (requested ?? []).every((r) => {
    if (has(owner, r)) return true;
    // `*/status` in the owner's rule covers `pods/status`.
    const slash = r.indexOf("/");
    return slash >= 0 && has(owner, `*${r.slice(slash)}`);
  });
}

function nonResourceURLCovers(owner: string, requested: string): boolean {
  if (owner === requested) return true;
  return owner.endsWith("*") && requested.startsWith(owner.replace(/\*+$/, ""));
}

/** Whether `owner` holds everything `requested` grants (kube's ruleCovers). */
function ruleCovers(owner: PolicyRule, requested: PolicyRule): boolean {
  const verbs = hasAll(owner.verbs, requested.verbs);
  const groups = hasAll(owner.apiGroups, requested.apiGroups);
  const resources = resourceCoversAll(owner.resources, requested.resources);
  const urls = (requested.nonResourceURLs ?? []).every((u) =>
    (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, u)),
  );
  const names =
    (owner.resourceNames?.length ?? 0) === 0 ||
    ((requested.resourceNames?.length ?? 0) > 0 &&
      (requested.resourceNames ?? []).every((n) => has(owner.resourceNames, n)));
  return verbs && groups && resources && urls && names;
}

/** Whether `owner` covers every rule of `requested`, and the (broken-down) rules it does not. */
export function covers(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of requested) {
    for (const simple of breakdown(rule)) {
      if (!owner.some((o) => ruleCovers(o, simple))) missing.push(simple);
    }
  }
  return missing;
}

/** Rules of one group, one resource and at most one name (and no URLs) merged into one rule
 * with all their verbs, as kube's CompactRules does before it reports missing rights. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const merged = new Map<string, { verbs: string[] } & PolicyRule>();
  const out: PolicyRule[] = [];
  for (const rule of rules) {
    const simple =
      rule.apiGroups?.length === 1 &&
      rule.resources?.length === 1 &&
      (rule.resourceNames?.length ?? 0) <= 1 &&
      (rule.nonResourceURLs?.length ?? 0) === 0;
    if (!simple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, rule.resourceNames ?? []]);
    const existing = merged.get(key);
    if (existing) existing.verbs.push(...rule.verbs);
    else {
      const copy = { ...rule, verbs: [...rule.verbs] };
      merged.set(key, copy);
      out.push(copy);
    }
  }
  return out;
}

/** Go's `%q` of a string slice: `["get" "list"]`. */
function quotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

/** kube's PolicyRule.CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quotedList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quotedList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quotedList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quotedList(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${quotedList(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}
