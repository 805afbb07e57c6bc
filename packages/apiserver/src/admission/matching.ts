// Which webhooks see a request, as kube's generic webhook source decides: the exempt
// admission-configuration resources, `rules` (operations, groups, versions, resources with `*`
// and subresources, scope), `matchPolicy`, `namespaceSelector` and `objectSelector`.
import type { Registry, ResourceDefinition } from "../registry/index.js";
import { ApiError, notFound } from "../status.js";
import type { Obj, Storage } from "../storage/index.js";
import type { AdmissionAttributes, Matchable, ResolvedRule, ResolvedWebhook } from "./types.js";

/** A webhook to call, and the version of the resource it asked for (Equivalent may differ). */
export interface Invocation {
  hook: ResolvedWebhook;
  def: ResourceDefinition;
}

// kube never sends requests about its own admission configuration to webhooks, so that a broken
// webhook cannot lock itself in.
const exemptResources = new Set([
  "mutatingwebhookconfigurations",
  "validatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

export function isExempt(def: ResourceDefinition): boolean {
  return def.group === "admissionregistration.k8s.io" && exemptResources.has(def.plural);
}

function isNamespaceResource(def: ResourceDefinition): boolean {
  return def.group === "" && def.plural === "namespaces" && !def.crdName;
}

function ruleMatches(
  rule: ResolvedRule,
  attrs: AdmissionAttributes,
  group: string,
  version: string,
  resource: string,
): boolean {
  if (!rule.operations.some((o) => o === "*" || o === attrs.operation)) return false;
  if (rule.resourceNames && rule.resourceNames.length > 0 && !rule.resourceNames.includes(attrs.name))
    return false;
  if (!rule.apiGroups.some((g) => g === "*" || g === group)) return false;
  if (!rule.apiVersions.some((v) => v === "*" || v === version)) return false;
  if (rule.scope === "Namespaced" && (isNamespaceResource(attrs.def) || attrs.namespace === "")) return false;
  if (rule.scope === "Cluster" && !isNamespaceResource(attrs.def) && attrs.namespace !== "") return false;
  return rule.resources.some((r) => {
    const slash = r.indexOf("/");
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? "" : r.slice(slash + 1);
    return (res === "*" || res === resource) && (sub === "*" || sub === attrs.subresource);
  });
}

/** The version a webhook's rules select for this request, or undefined when they do not match. */
export function matchRules(
  hook: Pick<Matchable, "rules" | "matchPolicy">,
  attrs: AdmissionAttributes,
  registry: Registry,
): ResourceDefinition | undefined {
  const def = attrs.def;
  if (hook.rules.some((r) => ruleMatches(r, attrs, def.group, def.version, def.plural))) return def;
  if (hook.matchPolicy !== "Equivalent") return undefined;
  // Another served version of the same resource (a CRD's other versions): the webhook gets the
  // object converted to the version it asked for.
  for (const rule of hook.rules) {
    for (const version of rule.apiVersions) {
      if (version === "*" || version === def.version) continue;
      const other = registry.lookup(def.group, version, def.plural);
      if (other && ruleMatches(rule, attrs, def.group, version, def.plural)) return other;
    }
  }
  return undefined;
}

function labelsOf(obj: Readonly<Obj> | undefined): Record<string, string> | undefined {
  const meta = obj?.metadata as Obj | undefined;
  return (meta?.labels as Record<string, string> | undefined) ?? undefined;
}

/**
 * `namespaceSelector`: requests about cluster-scoped objects (other than namespaces) are never
 * exempted, whatever the selector; a namespace is matched on its own labels.
 */
export function matchNamespace(
  hook: Pick<Matchable, "namespaceSelector">,
  attrs: AdmissionAttributes,
  storage: Storage,
): boolean {
  if (hook.namespaceSelector.empty) return true;
  if (isNamespaceResource(attrs.def)) {
    return hook.namespaceSelector.matches(labelsOf(attrs.object ?? attrs.oldObject) ?? {});
  }
  if (attrs.namespace === "") return true;
  const ns = storage.get("/namespaces", attrs.namespace);
  if (!ns) throw notFound({ group: "", resource: "namespaces", kind: "Namespace" }, attrs.namespace);
  return hook.namespaceSelector.matches(labelsOf(ns.obj) ?? {});
}

/** `objectSelector`: the new or the old object must match. */
export function matchObject(hook: Pick<Matchable, "objectSelector">, attrs: AdmissionAttributes): boolean {
  if (hook.objectSelector.empty) return true;
  const matches = (o: Readonly<Obj> | undefined) =>
    o !== undefined && hook.objectSelector.matches(labelsOf(o) ?? {});
  return matches(attrs.object) || matches(attrs.oldObject);
}

/** The invocation for `hook`, or undefined when it does not see this request. */
export function shouldCall(
  hook: ResolvedWebhook,
  attrs: AdmissionAttributes,
  registry: Registry,
  storage: Storage,
): Invocation | undefined {
  if (isExempt(attrs.def)) return undefined;
  const def = matchRules(hook, attrs, registry);
  if (!def) return undefined;
  if (hook.selectorError !== undefined) {
    throw new ApiError(500, "InternalError", `Internal error occurred: ${hook.selectorError}`, {
      causes: [{ message: hook.selectorError }],
    });
  }
  if (!matchNamespace(hook, attrs, storage)) return undefined;
  if (!matchObject(hook, attrs)) return undefined;
  return { hook, def };
}
