// kube-controller-manager's resource quota controller, simulated: every ResourceQuota gets
// status.hard = spec.hard and status.used recomputed from the objects of its namespace (object
// counts, Pods' compute resources in the quota's scopes, claims' storage), when the quota is
// created or its spec changes, when an object it counts changes, and on a periodic full resync.
// Admission (in the API server) charges creates as they happen; this controller gives back what
// deleted objects used and corrects any drift. Like kube's, it ignores changes to a quota's status
// alone until the next resync (kube's --resource-quota-sync-period is 5 minutes; a test cluster
// resyncs every few seconds so that a test need not wait).
import type { ResourceQuota } from "kubernetes-types/core/v1.js";
import { defineKind, type Kind, type KubeObject, kinds, quota } from "../../api/index.js";
import { controllerManagedBy } from "../../builder/index.js";
import type { Client, ClientReader } from "../../client/index.js";
import { enqueueRequestsFromMapFunc } from "../../handler/index.js";
import type { Manager } from "../../manager/index.js";
import { funcs } from "../../predicate/index.js";
import type { ReconcileContext, Reconciler, Request, Result } from "../../reconcile/index.js";
import { isConflict, isNotFound, type RESTClient } from "../../rest/index.js";
import { type DiscoveredKind, discoverDeletableKinds } from "./discovery.js";

export const ResourceQuotaKind = defineKind<ResourceQuota>({
  group: "",
  version: "v1",
  kind: "ResourceQuota",
  plural: "resourcequotas",
  namespaced: true,
});
const ReplicationControllerKind = defineKind<KubeObject>({
  group: "",
  version: "v1",
  kind: "ReplicationController",
  plural: "replicationcontrollers",
  namespaced: true,
});

/** What the controller watches: the kinds whose changes most often change a quota's usage. */
const WATCHED: Kind<KubeObject>[] = [
  kinds.Pod,
  kinds.Service,
  kinds.PersistentVolumeClaim,
  kinds.ConfigMap,
  kinds.Secret,
  kinds.ReplicaSet,
  ReplicationControllerKind,
] as Kind<KubeObject>[];

const RESYNC_MS = 5_000;

type Obj = Record<string, unknown>;

export function setupResourceQuotaController(mgr: Manager, rest: RESTClient): void {
  const reader = mgr.getAPIReader();
  const cached = mgr.getClient();
  // Every quota of the object's namespace: the object may count against any of them.
  const quotasOfNamespace = enqueueRequestsFromMapFunc<KubeObject>(async (o) => {
    const namespace = o?.metadata?.namespace;
    if (!namespace) return [];
    const list = await cached.list(ResourceQuotaKind, { inNamespace: namespace });
    return list.items.map((q) => ({ namespace, name: q.metadata?.name ?? "" }));
  });
  let builder = controllerManagedBy(mgr)
    .named("simulated-resourcequota-controller")
    // A quota's own status changes are its writers' (admission, this controller): not a cause.
    .for(ResourceQuotaKind, {
      predicates: [
        funcs({
          update: (e) => JSON.stringify(e.objectOld.spec ?? {}) !== JSON.stringify(e.objectNew.spec ?? {}),
        }),
      ],
    })
    // Another quota coming or going changes the `resourcequotas` count of the namespace.
    .watches(ResourceQuotaKind as Kind<KubeObject>, quotasOfNamespace, {
      predicates: [funcs({ update: () => false })],
    });
  for (const kind of WATCHED) builder = builder.watches(kind, quotasOfNamespace);
  builder.complete(new ResourceQuotaSimulator(mgr.getClient(), reader, rest));
}

class ResourceQuotaSimulator implements Reconciler {
  #kinds = new Map<string, Kind<KubeObject>>();
  #discovered = 0;

  constructor(
    private readonly client: Client,
    private readonly reader: ClientReader,
    private readonly rest: RESTClient,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<Result> {
    let rq: ResourceQuota;
    try {
      rq = (await this.reader.get(ResourceQuotaKind, req, { signal })) as ResourceQuota;
    } catch (err) {
      if (isNotFound(err)) return {};
      throw err;
    }
    const specHard = (rq.spec?.hard ?? {}) as Record<string, string>;
    const hard = quota.parseResourceList(specHard);
    const names = [...hard.keys()];
    const oldUsed = quota.parseResourceList(rq.status?.used);
    let used: quota.ResourceList = new Map(oldUsed);
    const now = Date.now();
    for (const evaluator of quota.evaluatorsForNames(names)) {
      const matched = evaluator.matchingResources(names);
      const kind = await this.kindOf(evaluator.group, evaluator.resource, signal);
      // A resource the server does not serve keeps what its usage was (kube's controller
      // cannot list it either).
      if (!kind) continue;
      const list = await this.reader.list(kind, { inNamespace: req.namespace, signal });
      const usage = quota.usageOf(rq as Obj, evaluator, matched, list.items as Obj[], now);
      for (const [k, v] of usage) used.set(k, v);
    }
    used = quota.maskList(used, names);
    const statusHard = quota.parseResourceList(rq.status?.hard);
    const dirty =
      rq.status?.hard === undefined ||
      rq.status?.used === undefined ||
      !quota.listsEqual(hard, statusHard) ||
      !quota.listsEqual(used, oldUsed);
    if (dirty) {
      const next: ResourceQuota = {
        ...rq,
        apiVersion: "v1",
        kind: "ResourceQuota",
        status: { hard: { ...specHard }, used: quota.resourceListJSON(used) },
      };
      try {
        await this.client.status().update(next, { signal });
      } catch (err) {
        if (isNotFound(err)) return {};
        if (isConflict(err)) return { requeueAfter: 50 };
        throw err;
      }
    }
    return { requeueAfter: RESYNC_MS };
  }

  /** The Kind listing a group's resource: the core ones known, others discovered (CRDs too). */
  async kindOf(group: string, resource: string, signal: AbortSignal): Promise<Kind<KubeObject> | undefined> {
    const key = `${resource}.${group}`;
    const known = [...WATCHED, ResourceQuotaKind as Kind<KubeObject>].find(
      (k) => k.group === group && k.plural === resource,
    );
    if (known) return known;
    const found = this.#kinds.get(key);
    if (found) return found;
    // Rediscovered at most every few seconds: a resource may be served later (a new CRD).
    if (Date.now() - this.#discovered < RESYNC_MS) return undefined;
    this.#discovered = Date.now();
    signal.throwIfAborted();
    const discovered: DiscoveredKind[] = await discoverDeletableKinds(this.rest);
    for (const { kind } of discovered)
      this.#kinds.set(`${kind.plural}.${kind.group}`, kind as Kind<KubeObject>);
    return this.#kinds.get(key);
  }
}
