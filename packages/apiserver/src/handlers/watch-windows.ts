// Where each resource's watch history begins, as kube-apiserver's watch cache sees it. The cache
// of a resource starts with a list at the server's current resourceVersion, when the server
// starts (or when it begins to serve a CRD's current spec), and keeps only what happened after;
// it holds at least its newest 100 events and every event of the last 75 s, up to 102 400
// (kube 1.26's watch cache sizing). A watch from an older version is answered `410 Expired`
// ("too old resource version"), even when the storage still holds those changes. Clients relist
// then; the window makes them do so here too (after a restart on the same storage, after a burst
// of writes), so their relist path is exercised.
import type { Storage } from "../storage/index.js";

/** How much each resource's watch cache keeps. */
export interface WatchCacheSize {
  /** Events always kept. Default: 100 (kube's lower bound). */
  minEvents: number;
  /** Events younger than this are kept too, in ms. Default: 75 000 (kube's eventFreshDuration). */
  freshMs: number;
  /** Never more events than this. Default: 102 400 (kube's upper bound). */
  maxEvents: number;
}

export const defaultWatchCacheSize: WatchCacheSize = {
  minEvents: 100,
  freshMs: 75_000,
  maxEvents: 100 * 1024,
};

export class WatchWindows {
  readonly #storage: Storage;
  readonly #size: WatchCacheSize;
  readonly #startedAt: number;
  readonly #byStore = new Map<string, number>();

  constructor(storage: Storage, size: WatchCacheSize = defaultWatchCacheSize) {
    this.#storage = storage;
    this.#size = size;
    this.#startedAt = storage.resourceVersion;
  }

  /** The store's watch cache starts again at the current version (a CRD's spec was served anew). */
  begin(store: string): void {
    this.#byStore.set(store, this.#storage.resourceVersion);
  }

  /**
   * The oldest version a watch of `store` may start from: the latest of where its cache began,
   * what its cache dropped, and where the storage's history was compacted.
   */
  oldest(store: string): number {
    const began = this.#byStore.get(store) ?? this.#startedAt;
    const history = this.#storage.history;
    const { minEvents, freshMs, maxEvents } = this.#size;
    const dropped = history.droppedThrough(store, minEvents, Date.now() - freshMs, maxEvents);
    return Math.max(began, dropped, history.compactedThrough);
  }
}
