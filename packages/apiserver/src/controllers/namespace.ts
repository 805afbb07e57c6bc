// What kube's namespace controller does: once a namespace is being deleted, delete everything in
// it, then drop its `kubernetes` finalizer so the namespace itself goes. Objects holding
// finalizers keep the namespace in Terminating until they are gone.
import { namespacedStores } from "../discovery.js";
import type { ServerContext } from "../handlers/context.js";
import { deleteStored, finalizeIfDone } from "../handlers/finalize.js";
import { storeNameOf } from "../registry/index.js";
import type { Obj } from "../storage/index.js";
import { Debouncer } from "./debouncer.js";

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
    let remaining = 0;
    for (const [store, def] of namespacedStores(server.registry)) {
      for (const o of server.storage.list(store, name)) {
        if (!(o.obj.metadata as Obj).deletionTimestamp) {
          const outcome = deleteStored(server, def, o, {});
          if (!outcome.removed) remaining++;
        } else remaining++;
      }
    }
    if (remaining > 0) return;
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
}
