// ValidatingAdmissionPolicies and their bindings (admissionregistration.k8s.io/v1), dispatched as
// kube's validating policy plugin does (policy/validating/dispatcher.go): each policy with
// bindings whose matchConstraints select the request (rules with resourceNames, exclusions,
// namespace and object selectors), then each of its bindings whose matchResources do too, then
// each param the binding's paramRef names or selects; a validation that is not true acts as the
// binding's validationActions say (Deny: the request fails with the first denial; Warn: a warning;
// Audit: nothing here, as the embedded server keeps no audit log). Errors and configuration
// problems follow the policy's failurePolicy. Runs before the validating webhooks, as in kube.
// A policy that matched another version of the resource (matchPolicy Equivalent) sees the
// objects converted to that version, as a webhook would receive them.
import { type LabelSelector, labelSelectorFromObject } from "controller-runtime/api";
import { celPolicy } from "../lazy.js";
import type { Registry, ResourceDefinition } from "../registry/index.js";
import type { Decide } from "../cel/authz.js";

/** Converts an object of one version of a resource to another (dispatch.ts's VersionConverter). */
type Converter = (obj: Readonly<Obj>, from: ResourceDefinition, to: ResourceDefinition) => Promise<Obj>;
import { storeNameOf } from "../registry/index.js";
import { ApiError, forbidden } from "../status.js";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import { selectorReader } from "./configurations.js";
import { isExempt, matchNamespace, matchObject, matchRules } from "./matching.js";
import { admissionRequest } from "./review.js";
import type { AdmissionAttributes, Matchable, ResolvedRule } from "./types.js";

export const policyStore = "admissionregistration.k8s.io/validatingadmissionpolicies";
export const bindingStore = "admissionregistration.k8s.io/validatingadmissionpolicybindings";

export interface ResolvedMatch extends Matchable {
  excludeRules: ResolvedRule[];
  selectorError: string | undefined;
}

export interface ResolvedBinding {
  name: string;
  /** Undefined: the binding narrows nothing. */
  match: ResolvedMatch | undefined;
  paramRef:
    | { name: string; namespace: string; selector: LabelSelector | undefined; denyNotFound: boolean }
    | undefined;
  actions: string[];
}

interface ResolvedPolicy {
  name: string;
  failurePolicy: "Fail" | "Ignore";
  match: ResolvedMatch;
  paramKind: { apiVersion: string; kind: string } | undefined;
  spec: {
    matchConditions: { name: string; expression: string }[];
    variables: { name: string; expression: string }[];
    validations: { expression: string; message?: string; messageExpression?: string; reason?: string }[];
    auditAnnotations: { key: string; valueExpression: string }[];
  };
  bindings: ResolvedBinding[];
}

export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export function objects(v: unknown): Obj[] {
  return Array.isArray(v) ? (v.filter((x) => x && typeof x === "object") as Obj[]) : [];
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function byName(a: StoredObject, b: StoredObject): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function resolveRules(v: unknown): ResolvedRule[] {
  return objects(v).map((r) => ({
    resourceNames: strings(r.resourceNames),
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === "string" && r.scope !== "" ? r.scope : "*",
  }));
}

export function resolveMatch(m: Obj): ResolvedMatch {
  const selectors = selectorReader();
  const selector = selectors.read;
  return {
    rules: resolveRules(m.resourceRules),
    excludeRules: resolveRules(m.excludeResourceRules),
    matchPolicy: m.matchPolicy === "Exact" ? "Exact" : "Equivalent",
    namespaceSelector: selector(m.namespaceSelector),
    objectSelector: selector(m.objectSelector),
    selectorError: selectors.error(),
  };
}

function resolveBinding(b: StoredObject): ResolvedBinding {
  const spec = (b.obj.spec as Obj | undefined) ?? {};
  const match = spec.matchResources as Obj | undefined;
  return {
    name: b.name,
    match: match && typeof match === "object" ? resolveMatch(match) : undefined,
    paramRef: resolveParamRef(spec.paramRef),
    actions: strings(spec.validationActions),
  };
}

/** A binding's paramRef, its selector parsed. */
export function resolveParamRef(v: unknown): ResolvedBinding["paramRef"] {
  const ref = v as Obj | undefined;
  let paramRef: ResolvedBinding["paramRef"];
  if (ref && typeof ref === "object") {
    let selector: LabelSelector | undefined;
    if (ref.selector && typeof ref.selector === "object") {
      try {
        selector = labelSelectorFromObject(ref.selector as Parameters<typeof labelSelectorFromObject>[0]);
      } catch {
        selector = undefined; // refused when the binding was written
      }
    }
    paramRef = {
      name: str(ref.name),
      namespace: str(ref.namespace),
      selector,
      denyNotFound: ref.parameterNotFoundAction === "Deny",
    };
  }
  return paramRef;
}

/** What validating and mutating policies' specs share, resolved once per policy version. */
export function resolvePolicyBase(spec: Obj) {
  const paramKind = spec.paramKind as Obj | undefined;
  const named = (v: unknown) => objects(v).map((x) => ({ name: str(x.name), expression: str(x.expression) }));
  return {
    failurePolicy: spec.failurePolicy === "Ignore" ? ("Ignore" as const) : ("Fail" as const),
    match: resolveMatch((spec.matchConstraints as Obj | undefined) ?? {}),
    paramKind:
      paramKind && typeof paramKind === "object"
        ? { apiVersion: str(paramKind.apiVersion), kind: str(paramKind.kind) }
        : undefined,
    matchConditions: named(spec.matchConditions),
    variables: named(spec.variables),
  };
}

function resolvePolicy(p: StoredObject, bindings: ResolvedBinding[]): ResolvedPolicy {
  const spec = (p.obj.spec as Obj | undefined) ?? {};
  const { matchConditions, variables, ...base } = resolvePolicyBase(spec);
  return {
    name: p.name,
    ...base,
    spec: {
      matchConditions,
      variables,
      validations: objects(spec.validations).map((v) => ({
        expression: str(v.expression),
        message: str(v.message) || undefined,
        messageExpression: str(v.messageExpression) || undefined,
        reason: str(v.reason) || undefined,
      })),
      auditAnnotations: objects(spec.auditAnnotations).map((a) => ({
        key: str(a.key),
        valueExpression: str(a.valueExpression),
      })),
    },
    bindings,
  };
}

/** One denial: the first one fails the request. */
interface Denial {
  policy: string;
  binding: string | undefined;
  message: string;
  reason: string;
}

/** kube's reasonToCode. */
function codeOf(reason: string): number {
  if (reason === "Forbidden") return 403;
  if (reason === "Unauthorized") return 401;
  if (reason === "RequestEntityTooLarge") return 413;
  return 422;
}

/** The policies with at least one binding, by name, re-resolved only when one of either kind changed. */
export class AdmissionPolicies {
  readonly #storage: Storage;
  readonly #registry: Registry;
  /** The server's authorizer, which the `authorizer` variable asks. */
  readonly #decide: Decide;
  /** Converts an object to the version a policy matched (the server's conversion). */
  readonly #convert: Converter;
  #signature = "";
  #policies: ResolvedPolicy[] = [];

  constructor(storage: Storage, registry: Registry, decide: Decide, convert: Converter) {
    this.#storage = storage;
    this.#registry = registry;
    this.#decide = decide;
    this.#convert = convert;
  }

  #resolved(): ResolvedPolicy[] {
    const signature = `${this.#storage.revision(policyStore)}/${this.#storage.revision(bindingStore)}`;
    if (signature === this.#signature) return this.#policies;
    const policies = this.#storage.list(policyStore);
    const bindings = this.#storage.list(bindingStore);
    const byPolicy = new Map<string, ResolvedBinding[]>();
    for (const b of [...bindings].sort(byName)) {
      const policyName = str((b.obj.spec as Obj | undefined)?.policyName);
      const list = byPolicy.get(policyName) ?? [];
      list.push(resolveBinding(b));
      byPolicy.set(policyName, list);
    }
    this.#policies = [...policies]
      .sort(byName)
      .filter((p) => byPolicy.has(p.name))
      .map((p) => resolvePolicy(p, byPolicy.get(p.name)!));
    this.#signature = signature;
    return this.#policies;
  }

  /** Whether any policy is bound at all. */
  any(): boolean {
    return this.#resolved().length > 0;
  }

  /** Whether any bound policy's rules select this request. */
  interested(attrs: AdmissionAttributes): boolean {
    if (isExempt(attrs.def)) return false;
    return this.#resolved().some(
      (p) => matchesPolicy(this.#storage, this.#registry, p.match, attrs, false) !== undefined,
    );
  }

  /** Evaluates every bound policy that selects the request; throws the first denial. */
  async validate(attrs: AdmissionAttributes, warnings: string[]): Promise<void> {
    if (isExempt(attrs.def)) return;
    const matched: { policy: ResolvedPolicy; def: ResourceDefinition }[] = [];
    for (const policy of this.#resolved()) {
      const def = matchesPolicy(this.#storage, this.#registry, policy.match, attrs, false);
      if (def) matched.push({ policy, def });
    }
    if (matched.length === 0) return;
    const { evaluatePolicy, policyObjects, withAuthorizer } = await celPolicy.load();
    // The request's objects as CEL sees them, in each version a policy matched: made once for
    // every policy, binding and param of that version.
    const nsObject = namespaceObject(this.#storage, attrs);
    const byVersion = new Map<ResourceDefinition, ReturnType<typeof policyObjects>>();
    const objectsIn = async (def: ResourceDefinition) => {
      let objects = byVersion.get(def);
      if (!objects) {
        const as = async (o: Readonly<Obj> | undefined) =>
          o === undefined ? null : def === attrs.def ? o : await this.#convert(o, attrs.def, def);
        objects = policyObjects(
          { object: await as(attrs.object), oldObject: await as(attrs.oldObject), namespaceObject: nsObject },
          attrs.user,
          requestResource(attrs),
        );
        byVersion.set(def, objects);
      }
      return objects;
    };
    const denials: Denial[] = [];
    // A stored policy's failurePolicy is Fail or Ignore: validation refuses anything else.
    const configError = (p: ResolvedPolicy, binding: string | undefined, message: string) => {
      if (p.failurePolicy === "Ignore") return;
      const what = binding === undefined ? "policy" : "binding";
      denials.push({
        policy: p.name,
        binding,
        message: `failed to configure ${what}: ${message}`,
        reason: "Invalid",
      });
    };
    for (const { policy, def } of matched) {
      let paramDef: ResourceDefinition | undefined;
      if (policy.paramKind) {
        paramDef = paramDefinition(this.#registry, policy.paramKind);
        if (!paramDef) {
          const { apiVersion, kind } = policy.paramKind;
          configError(
            policy,
            undefined,
            `failed to find resource referenced by paramKind: '${apiVersion}, Kind=${kind}'`,
          );
          continue;
        }
      }
      const request = admissionRequest(attrs, def);
      const objects = await objectsIn(def);
      for (const binding of policy.bindings) {
        if (binding.match) {
          let matched: boolean;
          try {
            matched = matchesPolicy(this.#storage, this.#registry, binding.match, attrs, true) !== undefined;
          } catch (e) {
            configError(policy, binding.name, (e as Error).message);
            continue;
          }
          if (!matched) continue;
        }
        let params: (Readonly<Obj> | null)[];
        try {
          params = paramDef ? collectParams(this.#storage, paramDef, binding.paramRef, attrs) : [null];
        } catch (e) {
          configError(policy, binding.name, (e as Error).message);
          continue;
        }
        for (const param of params) {
          const result = withAuthorizer(this.#decide, () =>
            evaluatePolicy(policy.spec, objects, request, param),
          );
          if (!result.matched) continue;
          for (const d of result.decisions) {
            const fails = d.kind === "deny" || policy.failurePolicy !== "Ignore";
            if (!fails) continue;
            const reason = d.kind === "deny" ? d.reason : "Invalid";
            for (const action of binding.actions) {
              if (action === "Deny")
                denials.push({ policy: policy.name, binding: binding.name, message: d.message, reason });
              else if (action === "Warn") {
                warnings.push(
                  `Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${binding.name}': ${d.message}`,
                );
              }
            }
          }
          if (policy.failurePolicy !== "Ignore") {
            for (const message of result.annotationErrors) {
              denials.push({ policy: policy.name, binding: binding.name, message, reason: "Invalid" });
            }
          }
        }
      }
    }
    const first = denials[0];
    if (!first) return;
    const message =
      first.binding === undefined
        ? `ValidatingAdmissionPolicy '${first.policy}' denied request: ${first.message}`
        : `ValidatingAdmissionPolicy '${first.policy}' with binding '${first.binding}' denied request: ${first.message}`;
    const base = forbidden(
      { group: attrs.def.group, resource: attrs.def.plural, kind: attrs.def.kind },
      attrs.name,
      message,
    );
    throw new ApiError(codeOf(first.reason), first.reason, base.message, {
      ...base.details,
      causes: [{ message }],
    });
  }
}

/**
 * The version the match selects, or undefined. With no resource rules, a binding's match
 * selects everything its policy did (`emptyMatchesAll`); a policy's never does.
 */
export function matchesPolicy(
  storage: Storage,
  registry: Registry,
  m: ResolvedMatch,
  attrs: AdmissionAttributes,
  emptyMatchesAll: boolean,
): ResourceDefinition | undefined {
  if (m.selectorError !== undefined) {
    throw new ApiError(500, "InternalError", `Internal error occurred: ${m.selectorError}`, {
      causes: [{ message: m.selectorError }],
    });
  }
  if (!matchNamespace(m, attrs, storage)) return undefined;
  if (!matchObject(m, attrs)) return undefined;
  if (
    m.excludeRules.length > 0 &&
    matchRules({ rules: m.excludeRules, matchPolicy: m.matchPolicy }, attrs, registry)
  ) {
    return undefined;
  }
  if (m.rules.length === 0) return emptyMatchesAll ? attrs.def : undefined;
  return matchRules(m, attrs, registry);
}

export function paramDefinition(
  registry: Registry,
  kind: { apiVersion: string; kind: string },
): ResourceDefinition | undefined {
  const slash = kind.apiVersion.indexOf("/");
  const group = slash < 0 ? "" : kind.apiVersion.slice(0, slash);
  const version = slash < 0 ? kind.apiVersion : kind.apiVersion.slice(slash + 1);
  return registry.all().find((d) => d.group === group && d.version === version && d.kind === kind.kind);
}

/** The params a binding's paramRef names or selects (kube's CollectParams). */
export function collectParams(
  storage: Storage,
  def: ResourceDefinition,
  ref: ResolvedBinding["paramRef"],
  attrs: AdmissionAttributes,
): Readonly<Obj>[] {
  if (!ref) throw new Error("policy binding has no paramRef, and its policy has a paramKind");
  let namespace = "";
  if (def.namespaced) {
    namespace = ref.namespace || attrs.namespace;
    if (namespace === "") {
      throw new Error(
        "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources",
      );
    }
  }
  const store = storeNameOf(def);
  let found: Readonly<Obj>[];
  if (ref.name !== "") {
    const s = storage.get(store, namespace ? `${namespace}/${ref.name}` : ref.name);
    found = s ? [s.obj] : [];
  } else if (ref.selector) {
    const selector = ref.selector;
    found = storage
      .list(store, def.namespaced ? namespace : undefined)
      .filter((s) =>
        selector.matches(((s.obj.metadata as Obj | undefined)?.labels as Record<string, string>) ?? {}),
      )
      .map((s) => s.obj);
  } else throw new Error("one of name or selector must be provided");
  if (found.length === 0 && ref.denyNotFound) {
    throw new Error("no params found for policy binding with `Deny` parameterNotFoundAction");
  }
  return found;
}

/** The request's namespace as `namespaceObject` (null for cluster-scoped requests and namespaces). */
export function namespaceObject(storage: Storage, attrs: AdmissionAttributes): Obj | null {
  const isNamespace = attrs.def.group === "" && attrs.def.kind === "Namespace";
  if (isNamespace || attrs.namespace === "") return null;
  const ns = storage.get("/namespaces", attrs.namespace);
  if (!ns) return null;
  const { managedFields: _, ...metadata } = (ns.obj.metadata as Obj | undefined) ?? {};
  return { ...ns.obj, metadata };
}

/** The request's resource, as `authorizer.requestResource` checks it. */
export function requestResource(attrs: AdmissionAttributes) {
  return {
    group: attrs.def.group,
    resource: attrs.def.plural,
    subresource: attrs.subresource,
    namespace: attrs.namespace,
    name: attrs.name,
  };
}
