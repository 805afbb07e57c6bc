// The admission chain: the MutatingAdmissionPolicies and the mutating webhooks one after another
// (with one round of reinvocation for `reinvocationPolicy: IfNeeded`), then the
// ValidatingAdmissionPolicies and the validating webhooks in parallel.
// Each call honours sideEffects under dryRun, failurePolicy, timeoutSeconds, the
// AdmissionReview version and, under matchPolicy Equivalent, the version the webhook asked for.
import { applyJSONPatch, PatchError } from "controller-runtime/patch";
import type { Decide } from "../cel/authz.js";
import { deepEqual } from "../object/meta.js";
import type { Registry, ResourceDefinition } from "../registry/index.js";
import { celMatch } from "../lazy.js";
import { forbidden, internalError } from "../status.js";
import type { Obj, Storage } from "../storage/index.js";
import { callWebhook, type ServiceResolver, WebhookCallError } from "./client.js";
import { WebhookConfigurations } from "./configurations.js";
import { CallingWebhookError, deniedError, dryRunUnsupported, failedClosed } from "./errors.js";
import { type Invocation, isExempt, matchRules, shouldCall } from "./matching.js";
import { AdmissionPolicies, requestResource } from "./policies.js";
import { MutatingAdmissionPolicies, PolicyReinvocation } from "./mutating-policies.js";
import {
  admissionRequest,
  admissionReview,
  InvalidResponseError,
  pickReviewVersion,
  UndecodableResponseError,
  verifyAdmissionResponse,
} from "./review.js";
import type { AdmissionAttributes, ResolvedWebhook } from "./types.js";
import { cloneJson } from "../object/deep-json.js";

/** Converts a custom resource between two served versions of its CRD. */
export type VersionConverter = (
  obj: Readonly<Obj>,
  from: ResourceDefinition,
  to: ResourceDefinition,
) => Promise<Obj>;

export interface AdmissionOptions {
  storage: Storage;
  registry: Registry;
  serviceResolver: ServiceResolver;
  /** Aborted when the server stops: calls in flight end. */
  signal: AbortSignal;
  /** For webhooks that asked for another version of a CRD. Default: rewrites apiVersion only. */
  convert?: VersionConverter;
  /** The server's authorizer, for CEL's `authorizer`. Default: allows everything. */
  decide?: Decide;
}

const allowAll: Decide = () => ({ allowed: true, reason: "" });

const rewriteApiVersion: VersionConverter = async (obj, _from, to) => ({
  ...cloneJson(obj as Obj),
  apiVersion: to.group ? `${to.group}/${to.version}` : to.version,
});

/** What the mutating webhooks remember between rounds, as {@link PolicyReinvocation} for policies. */
class WebhookReinvocation {
  lastOutput: Obj | undefined;
  readonly previously = new Set<ResolvedWebhook>();
  readonly reinvoke = new Set<ResolvedWebhook>();

  requireReinvoking(): void {
    for (const h of this.previously) this.reinvoke.add(h);
    this.previously.clear();
  }
}

/** Calls the stored webhook configurations for the requests of one API server. */
export class Admission {
  readonly #opts: AdmissionOptions;
  readonly #configs: WebhookConfigurations;
  readonly #policies: AdmissionPolicies;
  readonly #mutatingPolicies: MutatingAdmissionPolicies;
  readonly #convert: VersionConverter;

  constructor(opts: AdmissionOptions) {
    this.#opts = opts;
    this.#configs = new WebhookConfigurations(opts.storage);
    this.#convert = opts.convert ?? rewriteApiVersion;
    this.#policies = new AdmissionPolicies(
      opts.storage,
      opts.registry,
      opts.decide ?? allowAll,
      this.#convert,
    );
    this.#mutatingPolicies = new MutatingAdmissionPolicies(
      opts.storage,
      opts.registry,
      opts.decide ?? allowAll,
      this.#convert,
    );
  }

  /**
   * Whether any webhook's or bound admission policy's rules select this request: when none does,
   * the write path stays synchronous.
   */
  interested(attrs: AdmissionAttributes): boolean {
    if (isExempt(attrs.def)) return false;
    if (this.#policies.interested(attrs) || this.#mutatingPolicies.interested(attrs)) return true;
    const registry = this.#opts.registry;
    for (const h of this.#configs.mutating()) if (matchRules(h, attrs, registry) !== undefined) return true;
    for (const h of this.#configs.validating()) if (matchRules(h, attrs, registry) !== undefined) return true;
    return false;
  }

  /**
   * Whether any webhook or bound admission policy is configured at all: without one, a write
   * skips building its attributes.
   */
  hasWebhooks(): boolean {
    return (
      this.#configs.mutating().length > 0 ||
      this.#configs.validating().length > 0 ||
      this.#policies.any() ||
      this.#mutatingPolicies.any()
    );
  }

  /**
   * Runs the MutatingAdmissionPolicies, then the mutating webhooks; answers the (possibly patched)
   * object. Warnings are appended. As kube's admission chain: when either changed the object, a
   * second round runs again the policies and webhooks with `reinvocationPolicy: IfNeeded` that
   * ran before a later change (each plugin also counts what the other changed in between).
   */
  async mutate(attrs: AdmissionAttributes, warnings: string[]): Promise<Obj | undefined> {
    const policyState = new PolicyReinvocation();
    const webhookState = new WebhookReinvocation();
    let object = attrs.object;
    for (const round of [0, 1] as const) {
      const byPolicies = await this.#mutatingPolicies.mutate({ ...attrs, object }, round, policyState);
      object = byPolicies.object;
      const byWebhooks = await this.#mutateByWebhooks({ ...attrs, object }, warnings, round, webhookState);
      object = byWebhooks.object;
      if (!byPolicies.reinvoke && !byWebhooks.reinvoke) break;
    }
    return object;
  }

  /** One round of the mutating webhooks (kube's webhook/mutating/dispatcher.go). */
  async #mutateByWebhooks(
    attrs: AdmissionAttributes,
    warnings: string[],
    round: 0 | 1,
    state: WebhookReinvocation,
  ): Promise<{ object: Obj | undefined; reinvoke: boolean }> {
    const hooks = this.#configs.mutating();
    let object = attrs.object;
    let reinvoke = false;
    if (round === 1 && state.lastOutput !== undefined && !deepEqual(state.lastOutput, object)) {
      state.requireReinvoking();
    }
    for (const hook of hooks) {
      const current = { ...attrs, object };
      // As kube's dispatcher: whether the webhook would be called (its matchConditions, whose
      // error fails the request under Fail) comes first, then whether the round calls it.
      const invocation = await this.#matching(
        shouldCall(hook, current, this.#opts.registry, this.#opts.storage),
        current,
      );
      if (!invocation) continue;
      if (round === 1 && !state.reinvoke.has(hook)) continue;
      try {
        const next = await this.#callMutating(invocation, current, warnings);
        if (next !== undefined) {
          object = next.object;
          if (next.changed) {
            state.requireReinvoking();
            reinvoke = true;
          }
        }
      } catch (e) {
        if (!(e instanceof CallingWebhookError)) throw e;
        if (hook.failurePolicy !== "Ignore") throw failedClosed(e);
      }
      if (hook.reinvocationPolicy === "IfNeeded") state.previously.add(hook);
    }
    state.lastOutput = object && cloneJson(object);
    return { object, reinvoke };
  }

  /**
   * Runs the ValidatingAdmissionPolicies, then the validating webhooks in parallel; the first
   * failure in configuration order wins.
   */
  async validate(attrs: AdmissionAttributes, warnings: string[]): Promise<void> {
    await this.#policies.validate(attrs, warnings);
    const invocations: Invocation[] = [];
    for (const hook of this.#configs.validating()) {
      const inv = await this.#matching(
        shouldCall(hook, attrs, this.#opts.registry, this.#opts.storage),
        attrs,
      );
      if (inv) invocations.push(inv);
    }
    if (invocations.length === 0) return;
    const outcomes = await Promise.all(
      invocations.map(async (inv) => {
        const own: string[] = [];
        try {
          await this.#call(inv, attrs, own);
          return { inv, own, error: undefined as unknown };
        } catch (error) {
          return { inv, own, error };
        }
      }),
    );
    let first: unknown;
    for (const { inv, own, error } of outcomes) {
      warnings.push(...own);
      if (error === undefined || first !== undefined) continue;
      if (!(error instanceof CallingWebhookError)) first = error;
      else if (inv.hook.failurePolicy !== "Ignore") first = failedClosed(error);
    }
    if (first !== undefined) throw first;
  }

  /**
   * The invocation if the webhook's matchConditions hold too (kube's ShouldCallHook, last): a
   * false condition skips it; errors with none false fail the request with kube's 403 under
   * failurePolicy Fail, and skip the webhook under Ignore.
   */
  async #matching(inv: Invocation | undefined, attrs: AdmissionAttributes): Promise<Invocation | undefined> {
    if (!inv || inv.hook.matchConditions.length === 0) return inv;
    const { evaluateMatchConditions } = await celMatch.load();
    // The conditions see what the webhook would be sent: the objects in the version it matched.
    const { object, oldObject } = await this.#versioned(attrs, inv.def);
    const outcome = evaluateMatchConditions(
      inv.hook.matchConditions,
      { object: object ?? null, oldObject: oldObject ?? null, request: admissionRequest(attrs, inv.def) },
      { decide: this.#opts.decide ?? allowAll, user: attrs.user, resource: requestResource(attrs) },
    );
    if ("error" in outcome) {
      if (inv.hook.failurePolicy === "Ignore") return undefined;
      throw forbidden(
        { group: attrs.def.group, resource: attrs.def.plural, kind: attrs.def.kind },
        attrs.name,
        outcome.error,
      );
    }
    return outcome.call ? inv : undefined;
  }

  /**
   * The object as the webhook's patch left it, defaulted as kube's dispatcher does after each
   * webhook; `changed` compares before the defaults, as kube does. Undefined without a patch.
   */
  async #callMutating(
    inv: Invocation,
    attrs: AdmissionAttributes,
    warnings: string[],
  ): Promise<{ object: Obj; changed: boolean } | undefined> {
    const answer = await this.#call(inv, attrs, warnings);
    if (!answer.patch) return undefined;
    const name = inv.hook.name;
    let ops: unknown;
    try {
      ops = JSON.parse(answer.patch.toString("utf8"));
    } catch (e) {
      throw new CallingWebhookError(
        name,
        `received undecodable patch in webhook response: ${(e as Error).message}`,
      );
    }
    if (!Array.isArray(ops)) {
      throw new CallingWebhookError(
        name,
        "received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch",
      );
    }
    if (ops.length === 0) return undefined;
    if (attrs.object === undefined) {
      throw internalError(
        `admission webhook "${name}" attempted to modify the object, which is not supported for this operation`,
      );
    }
    if (answer.patchType !== "JSONPatch") {
      throw new CallingWebhookError(name, `unsupported patch type "${answer.patchType}"`);
    }
    let patched: unknown;
    try {
      patched = applyJSONPatch(cloneJson(answer.sent as Obj), ops);
    } catch (e) {
      if (e instanceof PatchError) throw internalError(e.message);
      throw e;
    }
    if (patched === null || typeof patched !== "object" || Array.isArray(patched)) {
      throw internalError(`admission webhook "${name}" patched the object into a non-object`);
    }
    const result = patched as Obj;
    const changed = !deepEqual(answer.sent, result);
    attrs.defaults?.(inv.def, result);
    // The webhook worked in the version it asked for; the request goes on in its own.
    return {
      object: inv.def === attrs.def ? result : await this.#convert(result, inv.def, attrs.def),
      changed,
    };
  }

  /** The request's objects in the version `def` (a webhook matched under matchPolicy Equivalent). */
  async #versioned(
    attrs: AdmissionAttributes,
    def: ResourceDefinition,
  ): Promise<{ object: Obj | undefined; oldObject: Readonly<Obj> | undefined }> {
    if (def === attrs.def) return { object: attrs.object, oldObject: attrs.oldObject };
    return {
      object: attrs.object && (await this.#convert(attrs.object, attrs.def, def)),
      oldObject: attrs.oldObject && (await this.#convert(attrs.oldObject, attrs.def, def)),
    };
  }

  /** One call: the review, the HTTP round trip and the checks on the answer; throws a denial. */
  async #call(
    inv: Invocation,
    attrs: AdmissionAttributes,
    warnings: string[],
  ): Promise<{ patch: Buffer | undefined; patchType: string; sent: Obj | undefined }> {
    const hook = inv.hook;
    if (attrs.dryRun) {
      if (hook.sideEffects === undefined)
        throw new CallingWebhookError(hook.name, "Webhook SideEffects is nil");
      if (hook.sideEffects !== "None" && hook.sideEffects !== "NoneOnDryRun")
        throw dryRunUnsupported(hook.name);
    }
    const version = pickReviewVersion(hook.admissionReviewVersions);
    if (!version) {
      throw new CallingWebhookError(
        hook.name,
        "could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)",
      );
    }
    const { object, oldObject } = await this.#versioned(attrs, inv.def);
    const review = admissionReview(version, attrs, inv.def, object, oldObject);
    let body: Buffer;
    try {
      body = await callWebhook({
        clientConfig: hook.clientConfig,
        body: review.body,
        timeoutSeconds: hook.timeoutSeconds,
        resolver: this.#opts.serviceResolver,
        signal: this.#opts.signal,
      });
    } catch (e) {
      if (e instanceof WebhookCallError)
        throw new CallingWebhookError(hook.name, `failed to call webhook: ${e.message}`);
      throw e;
    }
    let answer: ReturnType<typeof verifyAdmissionResponse>;
    try {
      answer = verifyAdmissionResponse(version, review.uid, hook.mutating, body);
    } catch (e) {
      if (e instanceof UndecodableResponseError) {
        throw new CallingWebhookError(hook.name, `failed to call webhook: ${e.message}`);
      }
      if (e instanceof InvalidResponseError) {
        throw new CallingWebhookError(hook.name, `received invalid webhook response: ${e.message}`);
      }
      throw e;
    }
    warnings.push(...answer.warnings);
    if (!answer.allowed) throw deniedError(hook.name, answer.result);
    return { patch: answer.patch, patchType: answer.patchType, sent: object as Obj | undefined };
  }
}
