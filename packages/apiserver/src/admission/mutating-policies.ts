// MutatingAdmissionPolicies and their bindings (admissionregistration.k8s.io/v1, kube 1.36 GA),
// dispatched as kube's mutating policy plugin does (policy/mutating/dispatcher.go over
// policy/generic/policy_dispatcher.go): each policy whose matchConstraints select the request,
// each of its bindings whose matchResources do too, each param the binding names or selects;
// then, in that order, the policy's matchConditions and its mutations, each applied to the object
// as the ones before left it: an ApplyConfiguration merged with server-side apply's merge (lists
// by their keys, atomic values refused), a JSONPatch applied as RFC 6902 (a failed `test` leaves
// the object as it was). Errors follow the policy's failurePolicy; the first that fails the
// request is answered as kube's 403 "policy '...' with binding '...' denied request: ...".
// Runs before the mutating webhooks, as in kube; reinvocation (reinvocationPolicy IfNeeded) is
// the caller's second round, with the state kept in a {@link PolicyReinvocation}. The invocations
// of a round are chosen on the object as it entered the round; once any mutation ran, the round
// ends asking for every IfNeeded invocation since the last change to run again, its own included.
import { applyJSONPatch, PatchError } from "controller-runtime/patch";
import type { Decide } from "../cel/authz.js";
import { cloneJson } from "../object/deep-json.js";
import { deepEqual } from "../object/meta.js";
import { celMutation, celPolicy } from "../lazy.js";
import type { Registry, ResourceDefinition } from "../registry/index.js";
import { goTypeError } from "../schema/go-types.js";
import { ApiError, forbidden, internalError } from "../status.js";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import type { Json, TypeNode } from "../apply/index.js";
import { ApplyTypeError, TypeModels, typedConfigurationErrors } from "../apply/index.js";
import { toFieldSet } from "../apply/to-field-set.js";
import { mergeObjects } from "../apply/merge.js";
import { typeFor } from "../apply/type-model.js";
import {
  byName,
  collectParams,
  matchesPolicy,
  namespaceObject,
  objects,
  paramDefinition,
  type ResolvedBinding,
  type ResolvedMatch,
  requestResource,
  resolveMatch,
  resolveParamRef,
  resolvePolicyBase,
  str,
} from "./policies.js";
import { isExempt } from "./matching.js";
import { admissionRequest } from "./review.js";
import type { AdmissionAttributes } from "./types.js";

export const mutatingPolicyStore = "admissionregistration.k8s.io/mutatingadmissionpolicies";
export const mutatingBindingStore = "admissionregistration.k8s.io/mutatingadmissionpolicybindings";

type Converter = (obj: Readonly<Obj>, from: ResourceDefinition, to: ResourceDefinition) => Promise<Obj>;

interface ResolvedMutatingPolicy {
  name: string;
  failurePolicy: "Fail" | "Ignore";
  reinvocationPolicy: "Never" | "IfNeeded";
  match: ResolvedMatch;
  paramKind: { apiVersion: string; kind: string } | undefined;
  spec: {
    matchConditions: { name: string; expression: string }[];
    variables: { name: string; expression: string }[];
    mutations: { patchType: "ApplyConfiguration" | "JSONPatch"; expression: string }[];
  };
  bindings: Pick<ResolvedBinding, "name" | "match" | "paramRef">[];
}

function resolvePolicy(
  p: StoredObject,
  bindings: ResolvedMutatingPolicy["bindings"],
): ResolvedMutatingPolicy {
  const spec = (p.obj.spec as Obj | undefined) ?? {};
  const { matchConditions, variables, ...base } = resolvePolicyBase(spec);
  return {
    name: p.name,
    ...base,
    reinvocationPolicy: spec.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
    spec: {
      matchConditions,
      variables,
      // Validation lets through only these two types, each with its own expression.
      mutations: objects(spec.mutations).map((m) =>
        m.patchType === "JSONPatch"
          ? { patchType: "JSONPatch" as const, expression: str((m.jsonPatch as Obj | undefined)?.expression) }
          : {
              patchType: "ApplyConfiguration" as const,
              expression: str((m.applyConfiguration as Obj | undefined)?.expression),
            },
      ),
    },
    bindings,
  };
}

/**
 * What one request's mutating policies remember between the two rounds of mutation (kube's
 * policyReinvokeContext): the object as the policies last left it, the IfNeeded invocations run
 * since the object last changed, and those to run again in the second round.
 */
export class PolicyReinvocation {
  lastOutput: Obj | undefined;
  readonly previously = new Set<string>();
  readonly reinvoke = new Set<string>();

  requireReinvoking(): void {
    for (const k of this.previously) this.reinvoke.add(k);
    this.previously.clear();
  }
}

/** One policy, one of its bindings, and one param (null without paramKind): kube's PolicyInvocation. */
interface Invocation {
  policy: ResolvedMutatingPolicy;
  binding: string;
  /** The version the policy matched the request in. */
  def: ResourceDefinition;
  param: Readonly<Obj> | null;
}

/** One error of a policy, binding or mutation; failurePolicy decides whether it fails the request. */
interface PolicyError {
  policy: ResolvedMutatingPolicy;
  binding: string | undefined;
  message: string;
  /** Empty for configuration errors found while dispatching: the answer keeps Forbidden. */
  reason: string;
}

/** The bound mutating policies, re-resolved only when a policy or binding changed. */
export class MutatingAdmissionPolicies {
  readonly #storage: Storage;
  readonly #registry: Registry;
  readonly #decide: Decide;
  readonly #convert: Converter;
  readonly #types = new TypeModels();
  #signature = "";
  #policies: ResolvedMutatingPolicy[] = [];

  constructor(storage: Storage, registry: Registry, decide: Decide, convert: Converter) {
    this.#storage = storage;
    this.#registry = registry;
    this.#decide = decide;
    this.#convert = convert;
  }

  #resolved(): ResolvedMutatingPolicy[] {
    const signature = `${this.#storage.revision(mutatingPolicyStore)}/${this.#storage.revision(mutatingBindingStore)}`;
    if (signature === this.#signature) return this.#policies;
    const policies = this.#storage.list(mutatingPolicyStore);
    const bindings = this.#storage.list(mutatingBindingStore);
    const byPolicy = new Map<string, ResolvedMutatingPolicy["bindings"]>();
    for (const b of [...bindings].sort(byName)) {
      const spec = (b.obj.spec as Obj | undefined) ?? {};
      const list = byPolicy.get(str(spec.policyName)) ?? [];
      const match = spec.matchResources as Obj | undefined;
      list.push({
        name: b.name,
        match: match && typeof match === "object" ? resolveMatch(match) : undefined,
        paramRef: resolveParamRef(spec.paramRef),
      });
      byPolicy.set(str(spec.policyName), list);
    }
    this.#policies = [...policies]
      .sort(byName)
      .filter((p) => byPolicy.has(p.name))
      .map((p) => resolvePolicy(p, byPolicy.get(p.name)!));
    this.#signature = signature;
    return this.#policies;
  }

  any(): boolean {
    return this.#resolved().length > 0;
  }

  /** Whether any bound policy's rules select this request. */
  interested(attrs: AdmissionAttributes): boolean {
    if (isExempt(attrs.def) || attrs.object === undefined) return false;
    return this.#resolved().some(
      (p) => matchesPolicy(this.#storage, this.#registry, p.match, attrs, false) !== undefined,
    );
  }

  /**
   * One round of the policies on `attrs.object` (round 1 runs only the invocations `state` says
   * to reinvoke). Answers the object mutated and whether a second round is wanted; throws the
   * first error that fails the request.
   *
   * As kube's generic policy dispatcher, which policies, bindings and params apply is decided
   * first, on the object as it entered the round: a label an earlier policy adds does not select
   * a later one in the same round (nor, in the second round, one that did not run in the first).
   * Then each invocation runs on the object as the ones before left it.
   */
  async mutate(
    attrs: AdmissionAttributes,
    round: 0 | 1,
    state: PolicyReinvocation,
  ): Promise<{ object: Obj | undefined; reinvoke: boolean }> {
    let object = attrs.object;
    if (isExempt(attrs.def) || object === undefined) return { object, reinvoke: false };
    const policies = this.#resolved();
    if (policies.length === 0) return { object, reinvoke: false };
    if (round === 1 && state.lastOutput !== undefined && !deepEqual(state.lastOutput, object)) {
      state.requireReinvoking();
    }
    const errors: PolicyError[] = [];
    const invocations = this.#invocations(policies, attrs, errors);
    let reinvoke = false;
    if (invocations.length > 0) await Promise.all([celPolicy.load(), celMutation.load()]);
    // kube's dispatcher marks the object dirty once any mutation ran (changed or not), and then
    // asks for every IfNeeded invocation run since the last change to run again, the last one's
    // own included: a policy that changed the object is reinvoked for its own change.
    const mutatedIn = new Set<ResourceDefinition>();
    let last: ResourceDefinition | undefined;
    for (const { policy, binding, def, param } of invocations) {
      const key = invocationKey(policy.name, binding, param);
      const outcome = await this.#invoke(
        policy,
        binding,
        def,
        { ...attrs, object },
        param,
        round,
        key,
        state,
        errors,
      );
      if (!outcome.invoked) continue;
      last = def;
      if (outcome.mutated) mutatedIn.add(def);
      if (outcome.changed) {
        object = outcome.object;
        state.requireReinvoking();
        reinvoke = true;
      }
      if (policy.reinvocationPolicy === "IfNeeded") state.previously.add(key);
    }
    if (last !== undefined && mutatedIn.has(last)) {
      state.requireReinvoking();
      reinvoke = true;
    }
    state.lastOutput = object && cloneJson(object);
    const failing = errors.filter((e) => e.policy.failurePolicy !== "Ignore");
    const first = failing[0];
    if (first) {
      const messages = failing.map((e) =>
        e.binding === undefined
          ? `policy "${e.policy.name}" denied request: ${e.message}`
          : `policy '${e.policy.name}' with binding '${e.binding}' denied request: ${e.message}`,
      );
      const base = forbidden(
        { group: attrs.def.group, resource: attrs.def.plural, kind: attrs.def.kind },
        attrs.name,
        "admission request denied by policy",
      );
      throw new ApiError(403, first.reason || "Forbidden", messages[0]!, {
        ...base.details,
        causes: messages.map((message) => ({ message })),
      });
    }
    return { object, reinvoke };
  }

  /**
   * The invocations (policy, binding, param) whose rules, selectors and params select `attrs`, in
   * policy order; errors of configuration go to `errors` (kube's policyDispatcher.Dispatch).
   */
  #invocations(
    policies: ResolvedMutatingPolicy[],
    attrs: AdmissionAttributes,
    errors: PolicyError[],
  ): Invocation[] {
    const out: Invocation[] = [];
    for (const policy of policies) {
      const def = matchesPolicy(this.#storage, this.#registry, policy.match, attrs, false);
      if (!def) continue;
      let paramDef: ResourceDefinition | undefined;
      if (policy.paramKind) {
        paramDef = paramDefinition(this.#registry, policy.paramKind);
        if (!paramDef) {
          const { apiVersion, kind } = policy.paramKind;
          errors.push({
            policy,
            binding: undefined,
            message: `failed to configure policy: failed to find resource referenced by paramKind: '${apiVersion}, Kind=${kind}'`,
            reason: "",
          });
          continue;
        }
      }
      for (const binding of policy.bindings) {
        const bindingError = (message: string) =>
          errors.push({
            policy,
            binding: binding.name,
            message: `failed to configure binding: ${message}`,
            reason: "",
          });
        if (binding.match) {
          let matched: boolean;
          try {
            matched = matchesPolicy(this.#storage, this.#registry, binding.match, attrs, true) !== undefined;
          } catch (e) {
            bindingError((e as Error).message);
            continue;
          }
          if (!matched) continue;
        }
        let params: (Readonly<Obj> | null)[];
        try {
          params = paramDef ? collectParams(this.#storage, paramDef, binding.paramRef, attrs) : [null];
        } catch (e) {
          bindingError((e as Error).message);
          continue;
        }
        for (const param of params) out.push({ policy, binding: binding.name, def, param });
      }
    }
    return out;
  }

  /** One invocation (policy, binding, param): its match conditions, then its mutations in order. */
  async #invoke(
    policy: ResolvedMutatingPolicy,
    binding: string,
    def: ResourceDefinition,
    attrs: AdmissionAttributes & { object: Obj },
    param: Readonly<Obj> | null,
    round: 0 | 1,
    key: string,
    state: PolicyReinvocation,
    errors: PolicyError[],
  ): Promise<{ object: Obj; changed: boolean; invoked: boolean; mutated: boolean }> {
    const { policyObjects, withAuthorizer } = celPolicy.get();
    const { evaluateMutatingPolicy } = celMutation.get();
    const unchanged = { object: attrs.object, changed: false, invoked: false, mutated: false };
    // The policy works on the object in the version it matched; the request goes on in its own.
    const inVersion = async (o: Readonly<Obj> | undefined, to: ResourceDefinition, from = attrs.def) =>
      o === undefined ? undefined : from === to ? cloneJson(o as Obj) : await this.#convert(o, from, to);
    const before = (await inVersion(attrs.object, def))!;
    const objects = policyObjects(
      {
        object: before,
        oldObject: (await inVersion(attrs.oldObject, def)) ?? null,
        namespaceObject: namespaceObject(this.#storage, attrs),
      },
      attrs.user,
      requestResource(attrs),
    );
    const request = admissionRequest(attrs, def);
    const evaluation = withAuthorizer(this.#decide, () =>
      evaluateMutatingPolicy(policy.spec, objects, request, param),
    );
    if (!evaluation.matched) return unchanged;
    if (evaluation.error !== undefined) {
      errors.push({ policy, binding, message: evaluation.error, reason: "Invalid" });
      return unchanged;
    }
    if (round === 1 && !state.reinvoke.has(key)) return unchanged;
    let object = before;
    let mutated = false;
    policy.spec.mutations.forEach((_, index) => {
      const result = withAuthorizer(this.#decide, () => evaluation.mutate(index, object));
      try {
        if (result.kind === "error") throw new Error(result.message);
        object = cloneJson(
          result.kind === "apply"
            ? this.#apply(def, object, result.configuration)
            : this.#patch(def, object, result.operations),
        );
        // kube defaults what each mutation returns (dispatchOne): the next one reads it so.
        attrs.defaults?.(def, object);
        mutated = true;
      } catch (e) {
        if (e instanceof ApiError) throw e;
        errors.push({ policy, binding, message: (e as Error).message, reason: "Invalid" });
      }
    });
    const changed = !deepEqual(before, object);
    const out = changed ? await inVersion(object, attrs.def, def) : attrs.object;
    return { object: out!, changed, invoked: true, mutated };
  }

  /**
   * A JSONPatch's operations on `object`. kube decodes the result into the kind's Go type: a value
   * of the wrong type there is an internal error that fails the request whatever failurePolicy says.
   */
  #patch(def: ResourceDefinition, object: Obj, operations: Record<string, unknown>[]): Obj {
    const patched = patchWith(object, operations);
    const typeError = def.schema && !def.crdName ? goTypeError(def, patched) : undefined;
    if (typeError) throw internalError(typeError);
    return patched;
  }

  /** kube's ApplyStructuredMergeDiff: the configuration typed, checked for atomics, merged. */
  #apply(def: ResourceDefinition, live: Obj, configuration: Record<string, unknown>): Obj {
    const config = {
      ...configuration,
      apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
      kind: def.kind,
    } as Json;
    const root = this.#types.of(def);
    const typeErrors = typedConfigurationErrors(config, root);
    if (typeErrors) {
      throw new Error(`error applying patch: failed to convert patch object to typed object: ${typeErrors}`);
    }
    try {
      // SMD's typed conversion refuses fields a struct does not declare, and duplicate list keys.
      toFieldSet(config, root, true);
    } catch (e) {
      if (!(e instanceof ApplyTypeError)) throw e;
      throw new Error(`error applying patch: failed to convert patch object to typed object: ${e.message}`);
    }
    const atomics = findAtomics(config, root);
    if (atomics.length > 0) {
      throw new Error(
        `error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(", ")}`,
      );
    }
    return mergeObjects(live as Json, config, root) as Obj;
  }
}

/** kube's key of an invocation: the policy, the binding and the param by namespace and name. */
function invocationKey(policy: string, binding: string, param: Readonly<Obj> | null): string {
  const meta = (param?.metadata as Obj | undefined) ?? {};
  return JSON.stringify([policy, binding, str(meta.namespace), str(meta.name)]);
}

/** An RFC 6902 patch on `object`; a failed `test` leaves it as it was, as in kube. */
function patchWith(object: Obj, operations: Record<string, unknown>[]): Obj {
  try {
    const patched = applyJSONPatch(cloneJson(object), operations);
    if (patched === null || typeof patched !== "object" || Array.isArray(patched)) {
      throw new Error("JSON Patch: the patched document is not an object");
    }
    return patched as Obj;
  } catch (e) {
    if (e instanceof PatchError && /: test failed$/.test(e.message)) return object;
    if (e instanceof PatchError) throw new Error(`JSON Patch: ${e.message}`);
    throw e;
  }
}

/** SMD's findAtomics: the paths of atomic maps and lists the configuration sets, as `.a.b[0]`. */
function findAtomics(config: Json, root: TypeNode): string[] {
  const out: string[] = [];
  const walk = (v: Json, declared: TypeNode, path: string) => {
    const t = typeFor(declared, v);
    if (t.kind === "map" && v !== null && typeof v === "object" && !Array.isArray(v)) {
      if (t.atomic) out.push(path);
      for (const [k, x] of Object.entries(v)) {
        const ft = t.field(k);
        if (ft) walk(x, ft, `${path}.${k}`);
      }
    } else if (t.kind === "list" && Array.isArray(v)) {
      if (t.listType === "atomic") out.push(path);
      for (const [i, x] of v.entries()) walk(x, t.element(), `${path}[${i}]`);
    }
  };
  walk(config, root, "");
  return out;
}
