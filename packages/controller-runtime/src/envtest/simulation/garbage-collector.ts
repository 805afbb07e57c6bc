// Garbage collection, simulated: kube-controller-manager's garbage collector for a test API server
// that has none (kube-apiserver alone leaves dependents behind when their owner goes). Written
// with the library: a metadata-only informer per deletable kind, an index of dependents by owner
// uid, and a small work queue. What it does, as kube's does:
// - an object whose owners are all gone is deleted (background; with its uid as precondition);
//   references to owners that are gone are dropped when some owner remains;
// - an owner being deleted with the `orphan` finalizer has itself removed from its dependents'
//   ownerReferences, then loses the finalizer;
// - an owner being deleted with `foregroundDeletion` has its dependents deleted (foreground too),
//   and loses the finalizer once none blocks it; in a circle of such owners, the dependents'
//   references stop blocking (kube's cycle breaking), so that the circle goes.
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { DeepReadonly, Kind } from "../../api/index.js";
import { newCache, type PartialObjectMetadata } from "../../cache/index.js";
import { type Client, type ClientReader, jsonPatch, newAPIReader, newClient } from "../../client/index.js";
import type { Logger } from "../../log/index.js";
import { isConflict, isNotFound, type RESTClient, type RESTConfig } from "../../rest/index.js";
import { type DiscoveredKind, discoverDeletableKinds } from "./discovery.js";

interface Ref {
  kind: Kind<PartialObjectMetadata>;
  namespace: string;
  name: string;
}

const ORPHAN = "orphan";
const FOREGROUND = "foregroundDeletion";

export class GarbageCollector {
  readonly #config: RESTConfig;
  readonly #rest: RESTClient;
  readonly #log: Logger;
  #client: Client | undefined;
  #reader: (ClientReader & { close(): Promise<void> }) | undefined;
  #kinds: DiscoveredKind[] = [];
  /** `apiVersion/kind` → its discovered kind, to find an owner's informer. */
  readonly #byKind = new Map<string, DiscoveredKind>();
  /** owner uid → keys of its dependents. */
  readonly #dependents = new Map<string, Set<string>>();
  readonly #objects = new Map<string, { ref: Ref; obj: DeepReadonly<PartialObjectMetadata> }>();
  readonly #uids = new Map<string, string>(); // uid → key
  readonly #pending = new Set<string>();
  #wake: (() => void) | undefined;

  constructor(config: RESTConfig, rest: RESTClient, log: Logger) {
    this.#config = config;
    this.#rest = rest;
    this.#log = log;
  }

  async start(signal: AbortSignal): Promise<void> {
    this.#kinds = await discoverDeletableKinds(this.#rest);
    for (const k of this.#kinds) this.#byKind.set(`${k.kind.apiVersion}/${k.kind.kind}`, k);
    const cache = newCache(this.#config);
    this.#client = newClient(this.#config, { cache });
    // Owners are confirmed gone by a live read, never by a cache that may not have seen them yet.
    this.#reader = newAPIReader(this.#config);
    const cacheDone = cache.start(signal);
    try {
      for (const k of this.#kinds) {
        const informer = await cache.getInformer(k.kind);
        informer.addEventHandler({
          onAdd: (obj) => this.#observe(k, obj),
          onUpdate: (_old, obj) => this.#observe(k, obj),
          onDelete: (obj) => {
            const o = "obj" in obj && obj.obj ? obj.obj : (obj as DeepReadonly<PartialObjectMetadata>);
            this.#forget(k, o);
          },
        });
      }
      await this.#work(signal);
    } finally {
      await cacheDone.catch(() => {});
      await this.#client?.close();
      await this.#reader?.close();
    }
  }

  #key(kind: Kind, namespace: string | undefined, name: string): string {
    return `${kind.apiVersion}/${kind.kind}/${namespace ?? ""}/${name}`;
  }

  #observe(k: DiscoveredKind, obj: DeepReadonly<PartialObjectMetadata>): void {
    const meta = obj.metadata;
    const key = this.#key(k.kind, meta.namespace, meta.name ?? "");
    const previous = this.#objects.get(key);
    for (const o of previous?.obj.metadata.ownerReferences ?? []) this.#dependents.get(o.uid)?.delete(key);
    this.#objects.set(key, {
      ref: { kind: k.kind, namespace: meta.namespace ?? "", name: meta.name ?? "" },
      obj,
    });
    if (meta.uid) this.#uids.set(meta.uid, key);
    for (const o of meta.ownerReferences ?? []) {
      const set = this.#dependents.get(o.uid) ?? new Set<string>();
      set.add(key);
      this.#dependents.set(o.uid, set);
    }
    if ((meta.ownerReferences?.length ?? 0) > 0 || meta.deletionTimestamp) this.#enqueue(key);
  }

  #forget(k: DiscoveredKind, obj: DeepReadonly<PartialObjectMetadata>): void {
    const meta = obj.metadata;
    const key = this.#key(k.kind, meta.namespace, meta.name ?? "");
    this.#objects.delete(key);
    if (meta.uid && this.#uids.get(meta.uid) === key) this.#uids.delete(meta.uid);
    for (const o of meta.ownerReferences ?? []) {
      this.#dependents.get(o.uid)?.delete(key);
      // An owner waiting in foreground for its dependents may now be free to go.
      const owner = this.#uids.get(o.uid);
      if (owner) this.#enqueue(owner);
    }
    // Its dependents have lost an owner.
    for (const dep of this.#dependents.get(meta.uid ?? "") ?? []) this.#enqueue(dep);
  }

  #enqueue(key: string): void {
    this.#pending.add(key);
    this.#wake?.();
  }

  async #work(signal: AbortSignal): Promise<void> {
    // One abort listener for the whole loop (not one per idle wait, which would pile up).
    const onAbort = () => this.#wake?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      await this.#loop(signal);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async #loop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const key = this.#pending.values().next().value;
      if (key === undefined) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
        this.#wake = undefined;
        continue;
      }
      this.#pending.delete(key);
      try {
        await this.#process(key, signal);
      } catch (err) {
        if (signal.aborted) return;
        // A conflict or a transient failure: the object is looked at again shortly.
        if (!isConflict(err) && !isNotFound(err))
          this.#log.error(err, "garbage collection failed", { object: key });
        void sleep(100, undefined, { signal })
          .then(() => this.#enqueue(key))
          .catch(() => {});
      }
    }
  }

  async #process(key: string, signal: AbortSignal): Promise<void> {
    const entry = this.#objects.get(key);
    const client = this.#client;
    if (!entry || !client) return;
    const { obj } = entry;
    const meta = obj.metadata;
    if (meta.deletionTimestamp) await this.#finalize(entry.ref, obj, client, signal);
    const owners = meta.ownerReferences ?? [];
    if (owners.length === 0 || meta.deletionTimestamp) return;
    const absent: OwnerReference[] = [];
    let waitingInForeground = false;
    for (const o of owners) {
      const state = await this.#ownerState(o, meta.namespace, signal);
      if (state === "absent") absent.push(o);
      else if (state === "deleting-foreground") waitingInForeground = true;
    }
    if (absent.length === owners.length) {
      await client.delete(asObject(entry.ref, obj), {
        propagationPolicy: "Background",
        preconditions: { uid: meta.uid ?? "" },
        signal,
      });
    } else if (absent.length > 0) {
      // Some owner remains: only the references to the ones gone are dropped.
      const keep = owners.filter((o) => !absent.includes(o));
      await client.patch(
        asObject(entry.ref, obj),
        jsonPatch([
          { op: "test", path: "/metadata/uid", value: meta.uid },
          { op: "replace", path: "/metadata/ownerReferences", value: keep },
        ]),
        { signal },
      );
    } else if (waitingInForeground && owners.every((o) => o.blockOwnerDeletion)) {
      // Every owner is being deleted in the foreground: this dependent goes first.
      await client.delete(asObject(entry.ref, obj), { propagationPolicy: "Foreground", signal });
    }
  }

  // An owner being deleted: orphan its dependents, or delete them before it (foreground).
  async #finalize(
    ref: Ref,
    obj: DeepReadonly<PartialObjectMetadata>,
    client: Client,
    signal: AbortSignal,
  ): Promise<void> {
    const meta = obj.metadata;
    const finalizers = meta.finalizers ?? [];
    const dependents = [...(this.#dependents.get(meta.uid ?? "") ?? [])]
      .map((k) => this.#objects.get(k))
      .filter((d) => d !== undefined);
    if (finalizers.includes(ORPHAN)) {
      for (const d of dependents) {
        const refs = (d.obj.metadata.ownerReferences ?? []).filter((o) => o.uid !== meta.uid);
        await client.patch(
          asObject(d.ref, d.obj),
          jsonPatch([
            { op: "test", path: "/metadata/uid", value: d.obj.metadata.uid },
            { op: "replace", path: "/metadata/ownerReferences", value: refs },
          ]),
          { signal },
        );
      }
      await this.#removeFinalizer(ref, obj, ORPHAN, client, signal);
      return;
    }
    if (finalizers.includes(FOREGROUND)) {
      const unblocked = new Set<string | undefined>();
      for (const d of dependents) {
        const dm = d.obj.metadata;
        const refs = dm.ownerReferences ?? [];
        if (!isWaitingForDependents(dm) || !refs.some((o) => o.uid === meta.uid && o.blockOwnerDeletion))
          continue;
        const itsDependents = [...(this.#dependents.get(dm.uid ?? "") ?? [])].map((k) =>
          this.#objects.get(k),
        );
        if (!itsDependents.some((x) => x && isWaitingForDependents(x.obj.metadata))) continue;
        // A circle of owners deleted in the foreground would wait for each other for ever: as
        // kube's garbage collector does, the dependent's references stop blocking its owners.
        await client.patch(
          asObject(d.ref, d.obj),
          jsonPatch([
            { op: "test", path: "/metadata/uid", value: dm.uid },
            {
              op: "replace",
              path: "/metadata/ownerReferences",
              value: refs.map((o) => ({ ...o, blockOwnerDeletion: false })),
            },
          ]),
          { signal },
        );
        unblocked.add(dm.uid);
      }
      const blocking = dependents.filter(
        (d) =>
          !unblocked.has(d.obj.metadata.uid) &&
          (d.obj.metadata.ownerReferences ?? []).some((o) => o.uid === meta.uid && o.blockOwnerDeletion),
      );
      for (const d of dependents) {
        if (!d.obj.metadata.deletionTimestamp) {
          await client
            .delete(asObject(d.ref, d.obj), { propagationPolicy: "Foreground", signal })
            .catch((err) => {
              if (!isNotFound(err)) throw err;
            });
        }
      }
      // The last blocking dependent's deletion enqueues this owner again.
      if (blocking.length === 0) await this.#removeFinalizer(ref, obj, FOREGROUND, client, signal);
    }
  }

  async #removeFinalizer(
    ref: Ref,
    obj: DeepReadonly<PartialObjectMetadata>,
    finalizer: string,
    client: Client,
    signal: AbortSignal,
  ): Promise<void> {
    const finalizers = obj.metadata.finalizers ?? [];
    await client.patch(
      asObject(ref, obj),
      jsonPatch([
        { op: "test", path: "/metadata/finalizers", value: finalizers },
        { op: "replace", path: "/metadata/finalizers", value: finalizers.filter((f) => f !== finalizer) },
      ]),
      { signal },
    );
  }

  /** Whether an owner exists (by uid, as kube's GC checks), read live when not watched. */
  async #ownerState(
    o: OwnerReference,
    namespace: string | undefined,
    signal: AbortSignal,
  ): Promise<"present" | "absent" | "deleting-foreground"> {
    const known = this.#uids.get(o.uid);
    if (known) {
      const owner = this.#objects.get(known)?.obj.metadata;
      if (owner?.deletionTimestamp && owner.finalizers?.includes(FOREGROUND)) return "deleting-foreground";
      return "present";
    }
    const k = this.#byKind.get(`${o.apiVersion}/${o.kind}`);
    if (!k || !this.#reader) return "present"; // a kind we cannot see: never collect on a guess
    try {
      const live = await this.#reader.get(
        k.kind,
        { namespace: k.namespaced ? namespace : undefined, name: o.name },
        { signal },
      );
      return live.metadata.uid === o.uid ? "present" : "absent";
    } catch (err) {
      if (isNotFound(err)) return "absent";
      throw err;
    }
  }
}

// A metadata-only object carries its kind's apiVersion and kind, which is all a write needs.
function asObject(ref: Ref, obj: DeepReadonly<PartialObjectMetadata>): PartialObjectMetadata {
  return {
    apiVersion: ref.kind.apiVersion,
    kind: ref.kind.kind,
    metadata: {
      name: ref.name,
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
      uid: obj.metadata.uid,
    },
  };
}

/** Being deleted in the foreground: waiting for its blocking dependents to go first. */
function isWaitingForDependents(meta: DeepReadonly<PartialObjectMetadata["metadata"]>): boolean {
  return !!meta?.deletionTimestamp && (meta.finalizers ?? []).includes(FOREGROUND);
}
