// The CustomResourceDefinition lifecycle kube's apiextensions controllers run: serving a CRD's
// resources once it is accepted (conditions NamesAccepted and Established), and on deletion
// removing every custom object before the CRD itself goes.
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { type CRDStatusUpdate, crdConditions, type NamesInUse, resourcesFromCRD } from "../crd/index.js";
import type { ServerContext } from "../handlers/context.js";
import { deleteStored, finalizeIfDone } from "../handlers/finalize.js";
import { type ResourceDefinition, storeNameOf } from "../registry/index.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { apiServiceStore, ensureLocalAPIService } from "../seed.js";
import { Debouncer } from "./debouncer.js";
import { stringifyJson } from "../object/deep-json.js";
import { updateManagedFields } from "../object/managed-fields.js";
import { apiVersionOfDef, kubeTime, normalizeOrder } from "../object/meta.js";
import { applyDefaults, pruneObject } from "../schema/index.js";

export const crdStore = "apiextensions.k8s.io/customresourcedefinitions";

/**
 * Decodes the objects stored in `def`'s version again with its schema, as kube decodes objects
 * from etcd on every read: fields the schema no longer has are pruned, defaults added later are
 * applied to old objects.
 */
function defaultStored(server: ServerContext, def: ResourceDefinition): void {
  if (!def.schema) return;
  const store = storeNameOf(def);
  const apiVersion = apiVersionOfDef(def);
  for (const o of server.storage.list(store)) {
    if (o.obj.apiVersion !== apiVersion) continue;
    const obj = JSON.parse(o.json) as Obj;
    pruneObject(def, obj, { objectMeta: server.objectMetaSchema() });
    const decoded = normalizeOrder(def, applyDefaults(def, obj));
    const json = JSON.stringify(decoded);
    if (json !== o.json) server.storage.redecode(store, o.key, decoded);
  }
}
import { crdCleanupFinalizer } from "../kinds/index.js";

export class CrdController {
  readonly #server: () => ServerContext;
  readonly #pending: Debouncer<string>;
  /** The spec (as JSON) each served CRD was registered from. */
  readonly #served = new Map<string, string>();

  readonly #delayMs: number;
  readonly #signal: AbortSignal;
  readonly #onError: (err: unknown) => void;

  constructor(
    server: () => ServerContext,
    signal: AbortSignal,
    onError: (err: unknown) => void,
    delayMs = 0,
  ) {
    this.#server = server;
    this.#onError = onError;
    this.#delayMs = delayMs;
    this.#signal = signal;
    this.#pending = new Debouncer(
      (names) => {
        for (const n of names) this.#sync(n);
      },
      signal,
      onError,
    );
  }

  touch(name: string): void {
    if (this.#delayMs > 0) {
      // As kube-apiserver, a while later (its informers and controllers take about a second).
      const timer = setTimeout(() => {
        if (this.#signal.aborted) return;
        this.#register(name);
        this.#pending.add(name);
      }, this.#delayMs);
      timer.unref();
      return;
    }
    // Serve at once, so a client that sees the CRD created can use it; conditions follow.
    this.#register(name);
    this.#pending.add(name);
  }

  removed(stored: StoredObject): void {
    const server = this.#server();
    for (const d of server.registry.removeCrd(stored.name)) server.storage.dropStore(storeNameOf(d));
    this.#served.delete(stored.name);
    const group = (stored.obj as unknown as CustomResourceDefinition).spec?.group;
    if (group) {
      this.#unregisterAPIServices(group);
      this.#requeueGroup(group, stored.name);
    }
  }

  /**
   * The names other resources of `group` use: built-ins, other CRDs' served resources, and other
   * CRDs' accepted names (kube's naming controller compares with those).
   */
  #namesInUse(group: string, except: string): NamesInUse[] {
    const server = this.#server();
    const out: NamesInUse[] = server.registry
      .all()
      .filter((d) => d.group === group && d.crdName !== except)
      .map((d) => ({
        plural: d.plural,
        singular: d.singular,
        kind: d.kind,
        listKind: d.listKind,
        shortNames: d.shortNames,
      }));
    for (const o of server.storage.list(crdStore)) {
      const other = o.obj as unknown as CustomResourceDefinition;
      if (o.name === except || other.spec?.group !== group) continue;
      if (other.status?.acceptedNames?.plural) out.push(other.status.acceptedNames);
    }
    return out;
  }

  /** The status kube's controllers would give the CRD now. */
  #status(crd: StoredObject): CRDStatusUpdate {
    const obj = crd.obj as unknown as CustomResourceDefinition;
    return crdConditions(obj, this.#server().now(), this.#namesInUse(obj.spec.group, crd.name));
  }

  #register(name: string): void {
    const server = this.#server();
    const crd = server.storage.get(crdStore, name);
    if (!crd || (crd.obj.metadata as Obj).deletionTimestamp) return;
    let defs: ResourceDefinition[];
    try {
      defs = resourcesFromCRD(crd.obj as unknown as CustomResourceDefinition);
    } catch (e) {
      // Validation rejects such CRDs; one that slipped through is not served, and said so (a deep
      // schema once went unserved here without a word).
      this.#onError(e);
      return;
    }
    // A CRD whose names clash with another resource of its group is not served (not Established).
    const established = this.#status(crd).conditions.find((c) => c.type === "Established");
    if (established?.status !== "True") return;
    // Re-registering an unchanged spec would only invalidate what is built from the registry.
    // stringifyJson: a spec's schema may nest past what JSON.stringify's recursion takes.
    const spec = stringifyJson((crd.obj as Obj).spec);
    if (this.#served.get(name) === spec && server.registry.all().some((d) => d.crdName === name)) return;
    server.registry.removeCrd(name);
    for (const d of defs) server.registry.add(d);
    // kube builds a new storage and watch cache for each served spec of a CRD.
    for (const store of new Set(defs.map(storeNameOf))) server.watchWindows.begin(store);
    this.#served.set(name, spec);
    for (const d of defs) defaultStored(server, d);
    // kube's crd-autoregistration: each served group version of a CRD gets a local APIService.
    for (const d of defs) ensureLocalAPIService(server, d.group, d.version, "true");
  }

  /** Drops the automanaged APIServices of `group`'s versions no resource serves any more. */
  #unregisterAPIServices(group: string): void {
    const server = this.#server();
    const served = new Set(
      server.registry
        .all()
        .filter((d) => d.group === group)
        .map((d) => d.version),
    );
    const def = server.registry.lookup("apiregistration.k8s.io", "v1", "apiservices")!;
    for (const o of server.storage.list(apiServiceStore)) {
      const spec = (o.obj.spec ?? {}) as Obj;
      const labels = ((o.obj.metadata as Obj).labels ?? {}) as Record<string, string>;
      if (spec.group !== group || served.has(String(spec.version))) continue;
      if (labels["kube-aggregator.kubernetes.io/automanaged"] !== "true") continue;
      deleteStored(server, def, o, {});
    }
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
    const update = this.#status(crd);
    const stored = new Set((status.storedVersions as string[] | undefined) ?? []);
    const storageVersion = spec.versions.find((v) => v.storage)?.name;
    if (storageVersion) stored.add(storageVersion);
    const nextStatus: Obj = { ...status, ...update, storedVersions: [...stored] };
    if (JSON.stringify(nextStatus) === JSON.stringify(status)) return;
    next.status = nextStatus;
    // kube's controllers write through /status as kube-apiserver: an entry of their own.
    const managedFields = updateManagedFields(crd.obj, next, {
      manager: "kube-apiserver",
      def: crdDef,
      apiVersion: "apiextensions.k8s.io/v1",
      subresource: "status",
      time: kubeTime(server.now()),
      types: server.types,
    });
    if (managedFields.length > 0) (next.metadata as Obj).managedFields = managedFields;
    const written = server.storage.put(crdStore, normalizeOrder(crdDef, next));
    server.hooks.afterWrite(crdDef, written, crd);
  }

  /** Looks again at the CRDs of `group`: a name freed by one may be accepted for another. */
  #requeueGroup(group: string, except: string): void {
    for (const o of this.#server().storage.list(crdStore)) {
      const other = o.obj as unknown as CustomResourceDefinition;
      if (o.name !== except && other.spec?.group === group) this.touch(o.name);
    }
  }

  #cleanup(crd: StoredObject, crdDef: ResourceDefinition): void {
    const server = this.#server();
    const defs = server.registry.all().filter((d) => d.crdName === crd.name);
    let remaining = 0;
    const seen = new Set<string>();
    for (const d of defs) {
      const store = storeNameOf(d);
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
