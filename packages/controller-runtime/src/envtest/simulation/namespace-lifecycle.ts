// Namespace deletion, simulated: kube-controller-manager's namespace controller for a test API
// server that has none (kube-apiserver alone leaves a deleted namespace Terminating for ever).
// For a namespace being deleted with the `kubernetes` finalizer in spec.finalizers, its Pods are
// deleted first and nothing else while one remains (kube 1.34, OrderedNamespaceDeletion), then
// every other namespaced object; once none is left the finalizer is removed through the
// namespace's finalize subresource, so that the API server removes the namespace. Each pass
// writes kube's five deletion conditions into the namespace's status, as the embedded server's
// own controller does (api's namespaceDeletion).
import type { Namespace } from "kubernetes-types/core/v1.js";
import type { PartialObjectMetadata } from "../../cache/index.js";
import { kinds, type DeepReadonly, type Kind, namespaceDeletion } from "../../api/index.js";
import { controllerManagedBy } from "../../builder/index.js";
import type { ClientReader } from "../../client/index.js";
import type { Client } from "../../client/index.js";
import type { Manager } from "../../manager/index.js";
import type { ReconcileContext, Reconciler, Request, Result } from "../../reconcile/index.js";
import { isConflict, isNotFound, type RESTClient } from "../../rest/index.js";
import { type DiscoveredKind, discoverDeletableKinds } from "./discovery.js";

const FINALIZER = "kubernetes";

export class NamespaceLifecycle implements Reconciler {
  #kinds: Promise<DiscoveredKind[]> | undefined;

  constructor(
    private readonly client: Client,
    private readonly reader: ClientReader,
    private readonly rest: RESTClient,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<Result> {
    let ns: DeepReadonly<Namespace>;
    try {
      ns = await this.reader.get(kinds.Namespace, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    if (!ns.metadata?.deletionTimestamp || !ns.spec?.finalizers?.includes(FINALIZER)) return {};
    const name = ns.metadata.name ?? "";
    // Discovered once, on the first deletion: CRDs installed before it are included.
    this.#kinds ??= discoverDeletableKinds(this.rest).catch((err) => {
      this.#kinds = undefined;
      throw err;
    });
    const namespaced = (await this.#kinds).filter((k) => k.namespaced);
    const isPods = (k: Kind) => k.group === "" && k.plural === "pods";
    const pods = namespaced.find((k) => isPods(k.kind));
    if (pods) {
      const left = await this.#deleteContent(pods.kind, name, signal);
      if (left.remaining.size > 0) {
        // kube ends the pass here, before counting the rest: its conditions then say all is well.
        await this.#writeConditions(ns, undefined, signal);
        return { requeueAfter: 200 };
      }
    }
    const totals: namespaceDeletion.ContentTotals = { remaining: new Map(), finalizers: new Map() };
    for (const { kind } of namespaced) {
      if (isPods(kind)) continue;
      const left = await this.#deleteContent(kind, name, signal);
      for (const [k, n] of left.remaining) totals.remaining.set(k, n);
      for (const [f, n] of left.finalizers) totals.finalizers.set(f, (totals.finalizers.get(f) ?? 0) + n);
    }
    await this.#writeConditions(ns, totals, signal);
    // Objects with finalizers of their own go when their controllers let them.
    if (totals.remaining.size > 0) return { requeueAfter: 200 };
    try {
      await this.rest.request({
        method: "PUT",
        path: `/api/v1/namespaces/${encodeURIComponent(name)}/finalize`,
        body: { ...ns, spec: { ...ns.spec, finalizers: ns.spec.finalizers.filter((f) => f !== FINALIZER) } },
        signal,
      });
    } catch (err) {
      if (isNotFound(err)) return {};
      if (isConflict(err)) return { requeueAfter: 50 };
      throw err;
    }
    return {};
  }

  /** Deletes the namespace's objects of `kind`; what is left, as kube's deleter counts it. */
  async #deleteContent(
    kind: Kind<PartialObjectMetadata>,
    namespace: string,
    signal: AbortSignal,
  ): Promise<namespaceDeletion.ContentTotals> {
    const left: namespaceDeletion.ContentTotals = { remaining: new Map(), finalizers: new Map() };
    const before = await this.reader.list(kind, { inNamespace: namespace, signal });
    if (before.items.length === 0) return left;
    await this.client
      .deleteAllOf(kind, { inNamespace: namespace, propagationPolicy: "Background", signal })
      .catch((err) => {
        if (!isNotFound(err)) throw err;
      });
    const after = await this.reader.list(kind, { inNamespace: namespace, signal });
    if (after.items.length === 0) return left;
    left.remaining.set(`${kind.plural}.${kind.group}`, after.items.length);
    for (const o of after.items) {
      for (const f of o.metadata?.finalizers ?? []) left.finalizers.set(f, (left.finalizers.get(f) ?? 0) + 1);
    }
    return left;
  }

  /** The namespace's deletion conditions for this pass, written (status subresource) when changed. */
  async #writeConditions(
    ns: DeepReadonly<Namespace>,
    totals: namespaceDeletion.ContentTotals | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    const before = (ns.status?.conditions ?? []) as unknown as Record<string, unknown>[];
    const after = namespaceDeletion.namespaceConditions(before, totals, new Date());
    if (namespaceDeletion.sameConditions(before, after)) return;
    await this.rest
      .request({
        method: "PUT",
        path: `/api/v1/namespaces/${encodeURIComponent(ns.metadata?.name ?? "")}/status`,
        body: { ...ns, status: { ...ns.status, conditions: after } },
        signal,
      })
      .catch((err) => {
        // A newer namespace (or none) is the next pass's: it writes from what it reads.
        if (!isConflict(err) && !isNotFound(err)) throw err;
      });
  }
}

export function setupNamespaceLifecycle(mgr: Manager, rest: RESTClient): void {
  controllerManagedBy(mgr)
    .named("simulated-namespace-controller")
    .for(kinds.Namespace)
    .complete(new NamespaceLifecycle(mgr.getClient(), mgr.getAPIReader(), rest));
}
