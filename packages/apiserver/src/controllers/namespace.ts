// What kube's namespace controller does: once a namespace is being deleted, delete everything in
// it, then drop its `kubernetes` finalizer so the namespace itself goes. Objects holding
// finalizers keep the namespace in Terminating until they are gone. As kube 1.33+
// (OrderedNamespaceDeletion, GA in 1.34): Pods go first, and nothing else is deleted while one
// remains, so a workload never runs without the Secrets, ConfigMaps and policies it was given.
// Each pass writes kube's five deletion conditions into the namespace's status
// (controller-runtime/api's namespaceDeletion, shared with envtest's simulated controller).
import { namespacedStores } from "../discovery.js";
import type { ServerContext } from "../handlers/context.js";
import { deleteStored, finalizeIfDone } from "../handlers/finalize.js";
import type { ResourceDefinition } from "../registry/resource.js";
import { storeNameOf } from "../registry/index.js";
import type { Obj } from "../storage/index.js";
import { Debouncer } from "./debouncer.js";
import { namespaceDeletion } from "controller-runtime/api";

export class NamespaceController {
  readonly #server: () => ServerContext;
  readonly #pending: Debouncer<string>;

  constructor(server: () => ServerContext, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#server = server;
    this.#pending = new Debouncer(
      (names) => {
        for (const n of names) this.#sync(n);
      },
      signal,
      onError,
    );
  }

  /** Notes that a namespace may need work (it is terminating, or something in it left). */
  touch(namespace: string): void {
    this.#pending.add(namespace);
  }

  #sync(name: string): void {
    const server = this.#server();
    const nsDef = server.registry.lookup("", "v1", "namespaces")!;
    const ns = server.storage.get(storeNameOf(nsDef), name);
    if (!ns || !(ns.obj.metadata as Obj).deletionTimestamp) return;
    const stores = namespacedStores(server.registry);
    const podStore = [...stores].find(([, def]) => def.group === "" && def.plural === "pods")?.[0];
    if (podStore !== undefined) {
      const pods = this.#deleteContent(server, name, podStore, stores.get(podStore)!);
      if (pods.remaining.size > 0) {
        // kube returns before counting the rest: its conditions then say all is well.
        this.#writeConditions(server, nsDef, name, undefined);
        return;
      }
    }
    const totals: namespaceDeletion.ContentTotals = { remaining: new Map(), finalizers: new Map() };
    for (const [store, def] of stores) {
      if (store === podStore) continue;
      const left = this.#deleteContent(server, name, store, def);
      for (const [k, n] of left.remaining) totals.remaining.set(k, n);
      for (const [f, n] of left.finalizers) totals.finalizers.set(f, (totals.finalizers.get(f) ?? 0) + n);
    }
    this.#writeConditions(server, nsDef, name, totals);
    if (totals.remaining.size > 0) return;
    const current = server.storage.get(storeNameOf(nsDef), name);
    if (!current) return;
    const next = JSON.parse(current.json) as Obj;
    const spec = (next.spec ?? {}) as Obj;
    if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) {
      spec.finalizers = (spec.finalizers as string[]).filter((f) => f !== "kubernetes");
      next.spec = spec;
      const stored = server.storage.put(storeNameOf(nsDef), next);
      finalizeIfDone(server, nsDef, stored);
      return;
    }
    finalizeIfDone(server, nsDef, current);
  }

  /** Deletes what `store` holds in `namespace`; what is left, as kube's deleter counts it. */
  #deleteContent(
    server: ServerContext,
    namespace: string,
    store: string,
    def: ResourceDefinition,
  ): namespaceDeletion.ContentTotals {
    const left: namespaceDeletion.ContentTotals = { remaining: new Map(), finalizers: new Map() };
    let remaining = 0;
    for (const o of server.storage.list(store, namespace)) {
      const meta = o.obj.metadata as Obj;
      if (!meta.deletionTimestamp && deleteStored(server, def, o, {}).removed) continue;
      remaining++;
      for (const f of (meta.finalizers as string[] | undefined) ?? [])
        left.finalizers.set(f, (left.finalizers.get(f) ?? 0) + 1);
    }
    if (remaining > 0) left.remaining.set(`${def.plural}.${def.group}`, remaining);
    return left;
  }

  /** The namespace's status conditions for this pass, written only when they changed. */
  #writeConditions(
    server: ServerContext,
    nsDef: ResourceDefinition,
    name: string,
    totals: namespaceDeletion.ContentTotals | undefined,
  ): void {
    const current = server.storage.get(storeNameOf(nsDef), name);
    if (!current) return;
    const next = JSON.parse(current.json) as Obj;
    const status = (next.status ?? {}) as Obj;
    const before = (status.conditions as Obj[] | undefined) ?? [];
    const after = namespaceDeletion.namespaceConditions(before, totals, new Date());
    if (namespaceDeletion.sameConditions(before, after)) return;
    status.conditions = after;
    next.status = status;
    server.storage.put(storeNameOf(nsDef), next);
  }
}
