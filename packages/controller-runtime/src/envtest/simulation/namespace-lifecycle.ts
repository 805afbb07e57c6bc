// Namespace deletion, simulated: kube-controller-manager's namespace controller for a test API
// server that has none (kube-apiserver alone leaves a deleted namespace Terminating for ever).
// For a namespace being deleted with the `kubernetes` finalizer in spec.finalizers, every
// namespaced object in it is deleted, and once none is left the finalizer is removed through the
// namespace's finalize subresource, so that the API server removes the namespace.
import type { Namespace } from "kubernetes-types/core/v1.js";
import { kinds, type DeepReadonly } from "../../api/index.js";
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
    let remaining = 0;
    for (const { kind } of namespaced) {
      const list = await this.reader.list(kind, { inNamespace: name, signal });
      if (list.items.length === 0) continue;
      remaining += list.items.length;
      await this.client
        .deleteAllOf(kind, { inNamespace: name, propagationPolicy: "Background", signal })
        .catch((err) => {
          if (!isNotFound(err)) throw err;
        });
    }
    // Objects with finalizers of their own go when their controllers let them.
    if (remaining > 0) return { requeueAfter: 200 };
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
}

export function setupNamespaceLifecycle(mgr: Manager, rest: RESTClient): void {
  controllerManagedBy(mgr)
    .named("simulated-namespace-controller")
    .for(kinds.Namespace)
    .complete(new NamespaceLifecycle(mgr.getClient(), mgr.getAPIReader(), rest));
}
