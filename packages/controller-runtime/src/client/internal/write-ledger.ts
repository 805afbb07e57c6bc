// What read-your-writes remembers: per kind and object, the last write made through this client
// that a cached read has not yet been seen to reflect (the resourceVersion it produced, or a
// delete). A read hands the pending writes of what it reads to the cache, which waits for them;
// once the read went through, they are forgotten. Writes never read again are forgotten after
// `FORGET_AFTER_MS`, by which time an informer that is not broken has long seen them.
import type { Status } from "kubernetes-types/meta/v1.js";
import type { DeepReadonly, Kind, KubeObject } from "../../api/index.js";
import type { WrittenObject } from "../../cache/index.js";

const FORGET_AFTER_MS = 60_000;
const SWEEP_EVERY_MS = 5_000;

interface Entry extends WrittenObject {
  readonly at: number;
}

/** Writes by object key, for one kind (its group and kind: every version shares resourceVersions). */
type KindLedger = Map<string, Entry>;

function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

function kindKey(kind: Kind): string {
  return `${kind.group}/${kind.kind}`;
}

export class WriteLedger {
  readonly #kinds = new Map<string, KindLedger>();
  #lastSweep = performance.now();

  /** A create, update, patch or apply of `kind` answered with `written`. */
  recordWrite(
    kind: Kind,
    namespace: string | undefined,
    name: string,
    written: DeepReadonly<KubeObject>,
  ): void {
    const meta = written.metadata;
    const resourceVersion = meta?.resourceVersion;
    if (!resourceVersion) return;
    const ns = kind.namespaced ? namespace : undefined;
    if (
      meta?.deletionTimestamp &&
      (meta.finalizers?.length ?? 0) === 0 &&
      (meta.deletionGracePeriodSeconds ?? 0) === 0 &&
      written.kind !== "Scale"
    ) {
      // The last finalizer removed from a deleting object: the server deletes it next (unless a
      // grace period still holds it, a bound Pod's: its kubelet deletes it).
      this.#put(kind, {
        namespace: ns,
        name: meta.name ?? name,
        deleted: meta.uid ? { uid: meta.uid } : {},
        at: performance.now(),
      });
      return;
    }
    this.#put(kind, {
      namespace: ns,
      name: written.metadata?.name ?? name,
      resourceVersion,
      labels: written.metadata?.labels ?? {},
      at: performance.now(),
    });
  }

  /**
   * A delete of `kind` answered with `answer`: an object still held by finalizers (or by
   * foreground deletion), or by a grace period (a Pod bound to a node, left for its kubelet), is a
   * write of its new version; otherwise the object is gone.
   */
  recordDelete(
    kind: Kind,
    namespace: string | undefined,
    name: string,
    answer: DeepReadonly<KubeObject | Status>,
  ): void {
    const ns = kind.namespaced ? namespace : undefined;
    const at = performance.now();
    const meta = answer.kind === "Status" ? undefined : (answer as KubeObject).metadata;
    const held = (meta?.finalizers?.length ?? 0) > 0 || (meta?.deletionGracePeriodSeconds ?? 0) > 0;
    if (meta?.deletionTimestamp && held && meta.resourceVersion) {
      this.#put(kind, { namespace: ns, name, resourceVersion: meta.resourceVersion, at });
      return;
    }
    const uid = meta?.uid ?? (answer as Status).details?.uid;
    this.#put(kind, { namespace: ns, name, deleted: uid ? { uid } : {}, at });
  }

  /** The pending write of one object, if any. */
  forGet(kind: Kind, namespace: string | undefined, name: string): Entry[] | undefined {
    const entry = this.#kinds
      .get(kindKey(kind))
      ?.get(objectKey(kind.namespaced ? namespace : undefined, name));
    return entry ? [entry] : undefined;
  }

  /** The pending writes of a list of `kind` in `namespace` (every namespace when undefined). */
  forList(kind: Kind, namespace: string | undefined): Entry[] | undefined {
    const ledger = this.#kinds.get(kindKey(kind));
    if (!ledger || ledger.size === 0) return undefined;
    const ns = kind.namespaced ? namespace || undefined : undefined;
    const out: Entry[] = [];
    for (const e of ledger.values()) if (ns === undefined || e.namespace === ns) out.push(e);
    return out.length > 0 ? out : undefined;
  }

  /** Forgets `seen` (a read reflected them), unless a newer write replaced one meanwhile. */
  forget(kind: Kind, seen: readonly Entry[]): void {
    const ledger = this.#kinds.get(kindKey(kind));
    if (!ledger) return;
    for (const e of seen) {
      const key = objectKey(e.namespace, e.name);
      if (ledger.get(key) === e) ledger.delete(key);
    }
  }

  #put(kind: Kind, entry: Entry): void {
    const key = kindKey(kind);
    let ledger = this.#kinds.get(key);
    if (!ledger) {
      ledger = new Map();
      this.#kinds.set(key, ledger);
    }
    const objKey = objectKey(entry.namespace, entry.name);
    ledger.delete(objKey); // re-inserted last: the map stays in write order for the sweep
    ledger.set(objKey, entry);
    if (entry.at - this.#lastSweep >= SWEEP_EVERY_MS) this.#sweep(entry.at);
  }

  /** Drops writes older than FORGET_AFTER_MS; each map is in write order, so it stops at the first newer one. */
  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [key, ledger] of this.#kinds) {
      for (const [objKey, e] of ledger) {
        if (now - e.at < FORGET_AFTER_MS) break;
        ledger.delete(objKey);
      }
      if (ledger.size === 0) this.#kinds.delete(key);
    }
  }
}
