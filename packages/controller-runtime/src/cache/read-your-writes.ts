// Reads after writes: a cache read told of writes made through the client waits until the
// informer has seen them, so a reconciler never reads an older state than it wrote (its own
// update, then a re-trigger, then a stale get: controller-runtime #1464). A write is seen once the
// store holds the version it produced or a later one, or once the informer's reflector for the
// object's namespace has passed that version (the object may have left the informer's selector);
// a delete is seen once the store no longer holds the deleted object. A write that takes the
// object out of the informer's label selector is seen once the object left the store. Field
// selectors are not evaluated here: a write an informer's field selector excludes is seen only
// once the informer's watch passes its version.
import type { DeepReadonly, Kind, KubeObject } from "../api/index.js";
import { CacheSyncError, StaleCacheError } from "./errors.js";
import type { Informer } from "./informer.js";
import { compareResourceVersions } from "./resource-version.js";

/** A write a cache read must see: the version it produced, or a deletion. */
export interface WrittenObject {
  /** The object's namespace; undefined for cluster-scoped kinds. */
  namespace?: string;
  name: string;
  /** The resourceVersion the write produced. */
  resourceVersion?: string;
  /**
   * The labels the write left on the object. When the informer's label selector excludes them,
   * the informer never gets the new version: the write is seen once the object left the store.
   */
  labels?: Readonly<Record<string, string>>;
  /** Set for a delete: the object is gone (of this uid, when known; a new object may take the name). */
  deleted?: { uid?: string };
}

/** Options of a read that must see writes. */
export interface ReadAfterWrites {
  /** Writes the read must see. Default: none. */
  after?: readonly WrittenObject[];
  /** How long to wait for them before rejecting with a `StaleCacheError`. Default: 5000. */
  staleAfterMs?: number;
}

/** Whether `informer`'s store reflects `w`. */
export function hasSeen<T extends KubeObject>(informer: Informer<T>, w: WrittenObject): boolean {
  const ns = informer.kind.namespaced ? w.namespace : undefined;
  const obj: DeepReadonly<KubeObject> | undefined = informer.store.getIn(ns, w.name);
  if (w.deleted)
    return obj === undefined || (w.deleted.uid !== undefined && obj.metadata?.uid !== w.deleted.uid);
  const rv = w.resourceVersion;
  if (!rv) return true;
  const stored = obj?.metadata?.resourceVersion;
  if (stored && compareResourceVersions(stored, rv) >= 0) return true;
  const selector = informer.labelSelectorOf(ns);
  if (selector && w.labels && !selector.matches(w.labels)) return obj === undefined;
  const seen = informer.seenResourceVersion(ns);
  return seen !== "" && compareResourceVersions(seen, rv) >= 0;
}

function pendingOf<T extends KubeObject>(
  informer: Informer<T>,
  after: readonly WrittenObject[],
): WrittenObject[] {
  return after.filter((w) => !hasSeen(informer, w));
}

/**
 * Resolves once `informer` has seen every write in `opts.after`; rejects with a `StaleCacheError`
 * after `opts.staleAfterMs`, or with the signal's reason. Returns at once (no promise) when there
 * is nothing to wait for, which is the common case: a read long after the write.
 */
export function awaitWrites<T extends KubeObject>(
  informer: Informer<T>,
  opts: ReadAfterWrites & { signal?: AbortSignal },
): Promise<void> | undefined {
  const after = opts.after;
  if (after === undefined || after.length === 0) return undefined;
  if (after.every((w) => hasSeen(informer, w))) return undefined;
  return waitForWrites(informer, after, opts);
}

async function waitForWrites<T extends KubeObject>(
  informer: Informer<T>,
  after: readonly WrittenObject[],
  opts: ReadAfterWrites & { signal?: AbortSignal },
): Promise<void> {
  const limit = opts.staleAfterMs ?? 5000;
  const started = performance.now();
  const timeout = AbortSignal.timeout(limit);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const seen = await informer.waitUntil(() => after.every((w) => hasSeen(informer, w)), signal);
  if (seen) return;
  opts.signal?.throwIfAborted();
  if (informer.isStopped()) {
    throw new CacheSyncError(`the ${informer.kind.kind} informer stopped; the cache is shutting down`);
  }
  const kind: Kind<T> = informer.kind;
  throw new StaleCacheError(kind, pendingOf(informer, after), performance.now() - started);
}
