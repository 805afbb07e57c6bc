// The CustomResourceDefinition lifecycle kube's apiextensions controllers run: serving a CRD's
// resources once it is accepted (conditions NamesAccepted and Established), and on deletion
// removing every custom object before the CRD itself goes.
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { resourcesFromCRD } from "../crd/index.js";
import type { ServerContext } from "../handlers/context.js";
import { deleteStored, finalizeIfDone } from "../handlers/finalize.js";
import { kubeTime } from "../object/meta.js";
import { type ResourceDefinition, storeKeyOf } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { Debouncer } from "./debouncer.js";

export const crdStore = "apiextensions.k8s.io/customresourcedefinitions";
import { crdCleanupFinalizer } from "../kinds/index.js";

interface Condition {
  type: string;
  status: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export class CrdController {
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

  touch(name: string): void {
    // Serve at once, so a client that sees the CRD created can use it; conditions follow.
    this.#register(name);
    this.#pending.add(name);
  }

  removed(stored: StoredObject): void {
    const server = this.#server();
    for (const d of server.registry.removeCrd(stored.name)) server.storage.dropStore(storeKeyOf(d));
  }

  #register(name: string): void {
    const server = this.#server();
    const crd = server.storage.get(crdStore, name);
    if (!crd || (crd.obj.metadata as Obj).deletionTimestamp) return;
    let defs: ResourceDefinition[];
    try {
      defs = resourcesFromCRD(crd.obj as unknown as CustomResourceDefinition);
    } catch {
      return; // validation rejects such CRDs; one that slipped through is simply not served
    }
    server.registry.removeCrd(name);
    for (const d of defs) server.registry.add(d);
  }

  #sync(name: string): void {
    const server = this.#server();
    const crd = server.storage.get(crdStore, name);
    if (!crd) return;
    const crdDef = server.registry.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")!;
    if ((crd.obj.metadata as Obj).deletionTimestamp) {
      this.#cleanup(crd, crdDef);
      return;
    }
    const next = JSON.parse(crd.json) as Obj;
    const spec = next.spec as CustomResourceDefinition["spec"];
    const status = (next.status ?? {}) as Obj;
    const now = kubeTime(server.now());
    const conditions = ((status.conditions as Condition[] | null | undefined) ?? []).slice();
    const set = (c: Omit<Condition, "lastTransitionTime">) => {
      const i = conditions.findIndex((x) => x.type === c.type);
      if (i >= 0 && conditions[i].status === c.status) return false;
      const full = {
        type: c.type,
        status: c.status,
        lastTransitionTime: now,
        reason: c.reason,
        message: c.message,
      };
      if (i >= 0) conditions[i] = full;
      else conditions.push(full);
      return true;
    };
    let changed = set({
      type: "NamesAccepted",
      status: "True",
      reason: "NoConflicts",
      message: "no conflicts found",
    });
    changed =
      set({
        type: "Established",
        status: "True",
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      }) || changed;
    const names = spec.names;
    const acceptedNames: Obj = { plural: names.plural };
    if (names.singular) acceptedNames.singular = names.singular;
    if (names.shortNames?.length) acceptedNames.shortNames = names.shortNames;
    acceptedNames.kind = names.kind;
    acceptedNames.listKind = names.listKind || `${names.kind}List`;
    if (names.categories?.length) acceptedNames.categories = names.categories;
    if (JSON.stringify(status.acceptedNames) !== JSON.stringify(acceptedNames)) changed = true;
    const stored = new Set((status.storedVersions as string[] | undefined) ?? []);
    const storageVersion = spec.versions.find((v) => v.storage)?.name;
    if (storageVersion && !stored.has(storageVersion)) {
      stored.add(storageVersion);
      changed = true;
    }
    if (!changed) return;
    next.status = { conditions, acceptedNames, storedVersions: [...stored] };
    const written = server.storage.put(crdStore, next);
    server.hooks.afterWrite(crdDef, written, crd);
  }

  #cleanup(crd: StoredObject, crdDef: ResourceDefinition): void {
    const server = this.#server();
    const defs = server.registry.all().filter((d) => d.crdName === crd.name);
    let remaining = 0;
    const seen = new Set<string>();
    for (const d of defs) {
      const store = storeKeyOf(d);
      if (seen.has(store)) continue;
      seen.add(store);
      for (const o of server.storage.list(store)) {
        if ((o.obj.metadata as Obj).deletionTimestamp) remaining++;
        else if (!deleteStored(server, d, o, {}).removed) remaining++;
      }
    }
    if (remaining > 0) return;
    const next = JSON.parse(crd.json) as Obj;
    const meta = next.metadata as Obj;
    const finalizers = ((meta.finalizers as string[] | undefined) ?? []).filter(
      (f) => f !== crdCleanupFinalizer,
    );
    if (finalizers.length > 0) meta.finalizers = finalizers;
    else delete meta.finalizers;
    const written = server.storage.put(crdStore, next);
    finalizeIfDone(server, crdDef, written);
  }
}
