// The webhooks of the stored Mutating/ValidatingWebhookConfigurations, in kube's order
// (configurations sorted by name, webhooks in their order), with v1 defaults applied. Resolved
// again only when a configuration changed (the store's revision).
import { labelSelectorFromObject, type LabelSelector } from "controller-runtime/api";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import type { ClientConfig, ResolvedRule, ResolvedWebhook } from "./types.js";

export const mutatingStore = "admissionregistration.k8s.io/mutatingwebhookconfigurations";
export const validatingStore = "admissionregistration.k8s.io/validatingwebhookconfigurations";

interface Cached {
  /** The store's revision the hooks were resolved at; -1 before the first time. */
  revision: number;
  hooks: ResolvedWebhook[];
}

/** Per-server cache of the resolved webhooks of both kinds. */
export class WebhookConfigurations {
  readonly #storage: Storage;
  #mutating: Cached = { revision: -1, hooks: [] };
  #validating: Cached = { revision: -1, hooks: [] };

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  mutating(): readonly ResolvedWebhook[] {
    this.#mutating = this.#refresh(mutatingStore, true, this.#mutating);
    return this.#mutating.hooks;
  }

  validating(): readonly ResolvedWebhook[] {
    this.#validating = this.#refresh(validatingStore, false, this.#validating);
    return this.#validating.hooks;
  }

  #refresh(store: string, mutating: boolean, cached: Cached): Cached {
    const revision = this.#storage.revision(store);
    if (revision === cached.revision) return cached;
    return { revision, hooks: resolveAll(this.#storage.list(store), mutating) };
  }
}

function resolveAll(stored: StoredObject[], mutating: boolean): ResolvedWebhook[] {
  const sorted = [...stored].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: ResolvedWebhook[] = [];
  for (const s of sorted) {
    const webhooks = (s.obj.webhooks as Obj[] | undefined) ?? [];
    webhooks.forEach((w, index) => {
      out.push(resolveWebhook(w, s.name, index, mutating));
    });
  }
  return out;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/**
 * Reads stored label selectors: one that does not parse reads as "everything" and is remembered,
 * so that the requests it would see fail (kube reports it when the webhook or policy is used).
 */
export function selectorReader(): { read(v: unknown): LabelSelector; error(): string | undefined } {
  let error: string | undefined;
  return {
    read(v) {
      try {
        return labelSelectorFromObject((v ?? undefined) as Parameters<typeof labelSelectorFromObject>[0]);
      } catch (e) {
        error = (e as Error).message;
        return labelSelectorFromObject(undefined);
      }
    },
    error: () => error,
  };
}

function resolveWebhook(
  w: Obj,
  configurationName: string,
  index: number,
  mutating: boolean,
): ResolvedWebhook {
  const selectors = selectorReader();
  const selector = selectors.read;
  const rules: ResolvedRule[] = ((w.rules as Obj[] | undefined) ?? []).map((r) => ({
    operations: strings(r.operations),
    apiGroups: strings(r.apiGroups),
    apiVersions: strings(r.apiVersions),
    resources: strings(r.resources),
    scope: typeof r.scope === "string" && r.scope !== "" ? r.scope : "*",
  }));
  const timeout = typeof w.timeoutSeconds === "number" ? w.timeoutSeconds : 10;
  const versions = strings(w.admissionReviewVersions);
  return {
    mutating,
    configurationName,
    index,
    name: String(w.name ?? ""),
    clientConfig: (w.clientConfig as ClientConfig | undefined) ?? {},
    rules,
    failurePolicy: w.failurePolicy === "Ignore" ? "Ignore" : "Fail",
    matchPolicy: w.matchPolicy === "Exact" ? "Exact" : "Equivalent",
    namespaceSelector: selector(w.namespaceSelector),
    objectSelector: selector(w.objectSelector),
    sideEffects: typeof w.sideEffects === "string" ? w.sideEffects : undefined,
    timeoutSeconds: Math.min(Math.max(timeout, 1), 30),
    admissionReviewVersions: versions.length > 0 ? versions : ["v1beta1"],
    reinvocationPolicy: w.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
    selectorError: selectors.error(),
    matchConditions: ((w.matchConditions as Obj[] | undefined) ?? []).map((c) => ({
      name: String(c?.name ?? ""),
      expression: String(c?.expression ?? ""),
    })),
  };
}
