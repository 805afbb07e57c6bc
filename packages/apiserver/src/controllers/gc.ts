// Owner-reference garbage collection, off by default as in envtest (a controller-manager does it
// in a real cluster). One sweep after each burst of changes: objects whose owners are all gone
// are deleted; owners deleted in the foreground wait for their dependents that block them
// (`blockOwnerDeletion`); orphaning owners release theirs. A cycle of owners deleted in the
// foreground would wait forever: as kube's collector, a dependent that is itself waiting for
// dependents being deleted in the foreground stops blocking its owners.
import type { ServerContext } from "../handlers/context.js";
import { deleteStored, finalizeIfDone } from "../handlers/finalize.js";
import { type ResourceDefinition, storeNameOf } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { Debouncer } from "./debouncer.js";

interface OwnerRef {
  uid: string;
  blockOwnerDeletion?: boolean;
}

const deletingDependents = (o: StoredObject) => {
  const meta = o.obj.metadata as Obj;
  return (
    !!meta.deletionTimestamp &&
    ((meta.finalizers as string[] | undefined) ?? []).includes("foregroundDeletion")
  );
};

export class GarbageCollector {
  readonly #server: () => ServerContext;
  readonly #pending: Debouncer<number>;

  constructor(server: () => ServerContext, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#server = server;
    this.#pending = new Debouncer(() => this.#sweep(), signal, onError);
  }

  touch(): void {
    this.#pending.add(0);
  }

  #sweep(): void {
    const server = this.#server();
    const all: { def: ResourceDefinition; o: StoredObject }[] = [];
    const seen = new Set<string>();
    for (const def of server.registry.all()) {
      const store = storeNameOf(def);
      if (seen.has(store)) continue;
      seen.add(store);
      for (const o of server.storage.list(store)) all.push({ def, o });
    }
    const live = new Map<string, { def: ResourceDefinition; o: StoredObject }>();
    for (const e of all) live.set(String((e.o.obj.metadata as Obj).uid), e);
    const dependents = new Map<string, { def: ResourceDefinition; o: StoredObject }[]>();
    for (const e of all) {
      for (const ref of ownerRefs(e.o)) {
        const list = dependents.get(ref.uid) ?? [];
        list.push(e);
        dependents.set(ref.uid, list);
      }
    }
    for (const e of all) {
      const refs = ownerRefs(e.o);
      if (
        refs.length > 0 &&
        refs.every((r) => !live.has(r.uid)) &&
        !(e.o.obj.metadata as Obj).deletionTimestamp
      ) {
        deleteStored(server, e.def, e.o, {});
      }
    }
    for (const e of all) {
      const meta = e.o.obj.metadata as Obj;
      const finalizers = (meta.finalizers as string[] | undefined) ?? [];
      if (!meta.deletionTimestamp) continue;
      const uid = String(meta.uid);
      const deps = (dependents.get(uid) ?? []).filter((d) => server.storage.get(storeNameOf(d.def), d.o.key));
      if (finalizers.includes("orphan")) {
        for (const d of deps) this.#release(d.def, d.o.key, uid);
        this.#dropFinalizer(e.def, e.o.key, "orphan");
      } else if (finalizers.includes("foregroundDeletion")) {
        for (const d of deps) {
          const current = server.storage.get(storeNameOf(d.def), d.o.key);
          if (!current) continue;
          if (!(current.obj.metadata as Obj).deletionTimestamp) {
            deleteStored(server, d.def, current, { propagationPolicy: "Foreground" });
          } else if (deletingDependents(current) && this.#waitsOnForeground(current, dependents)) {
            this.#unblockOwners(d.def, current);
          }
        }
        const blocking = deps.filter((d) => {
          const current = server.storage.get(storeNameOf(d.def), d.o.key);
          return current && ownerRefs(current).some((r) => r.uid === uid && r.blockOwnerDeletion === true);
        });
        if (blocking.length === 0) this.#dropFinalizer(e.def, e.o.key, "foregroundDeletion");
      }
    }
  }

  /** Whether some dependent of `o` is itself waiting for its dependents: a possible cycle. */
  #waitsOnForeground(
    o: StoredObject,
    dependents: Map<string, { def: ResourceDefinition; o: StoredObject }[]>,
  ): boolean {
    const server = this.#server();
    return (dependents.get(String((o.obj.metadata as Obj).uid)) ?? []).some((d) => {
      const current = server.storage.get(storeNameOf(d.def), d.o.key);
      return current !== undefined && deletingDependents(current);
    });
  }

  /** kube's unblockOwnerReferences: every blocking owner reference becomes non-blocking. */
  #unblockOwners(def: ResourceDefinition, current: StoredObject): void {
    const server = this.#server();
    if (!ownerRefs(current).some((r) => r.blockOwnerDeletion === true)) return;
    const next = JSON.parse(current.json) as Obj;
    const meta = next.metadata as Obj;
    for (const r of meta.ownerReferences as OwnerRef[])
      if (r.blockOwnerDeletion === true) r.blockOwnerDeletion = false;
    const stored = server.storage.put(storeNameOf(def), next);
    server.hooks.afterWrite(def, stored, current);
  }

  #release(def: ResourceDefinition, key: string, ownerUid: string): void {
    const server = this.#server();
    const current = server.storage.get(storeNameOf(def), key);
    if (!current) return;
    const next = JSON.parse(current.json) as Obj;
    const meta = next.metadata as Obj;
    meta.ownerReferences = ((meta.ownerReferences as OwnerRef[]) ?? []).filter((r) => r.uid !== ownerUid);
    if ((meta.ownerReferences as OwnerRef[]).length === 0) delete meta.ownerReferences;
    const stored = server.storage.put(storeNameOf(def), next);
    server.hooks.afterWrite(def, stored, current);
  }

  #dropFinalizer(def: ResourceDefinition, key: string, finalizer: string): void {
    const server = this.#server();
    const current = server.storage.get(storeNameOf(def), key);
    if (!current) return;
    const next = JSON.parse(current.json) as Obj;
    const meta = next.metadata as Obj;
    meta.finalizers = ((meta.finalizers as string[]) ?? []).filter((f) => f !== finalizer);
    if ((meta.finalizers as string[]).length === 0) delete meta.finalizers;
    const stored = server.storage.put(storeNameOf(def), next);
    server.hooks.afterWrite(def, stored, current);
    finalizeIfDone(server, def, stored);
  }
}

function ownerRefs(o: StoredObject): OwnerRef[] {
  const refs = (o.obj.metadata as Obj).ownerReferences;
  return Array.isArray(refs) ? (refs as OwnerRef[]).filter((r) => r && typeof r.uid === "string") : [];
}
