// Writes a new server makes to its storage before anyone asks (its system objects, the bootstrap
// RBAC policy), made on the storage's first use instead of at start: a cold start, and the
// /readyz its client waits for, do not pay for them (~20 ms of a fresh process).
//
// A fill may name the stores it writes. A read of one of those runs the fills naming it, and no
// other: an anonymous /readyz, which RBAC must authorize, reads the bootstrap policy's bindings,
// not the system namespaces. A fill naming one store may name the one object it writes there
// too: a get of another key leaves it for later (the /readyz reads one ClusterRole of 62). Any other use (a read of another store, a write, the storage's
// resourceVersion) runs every fill left, in the order they were added, so no one sees the
// storage without them. A fill that names no stores may write any store no other fill names. A
// fill touching a store it may not is an internal error, thrown at once, so that such a fill
// fails every test instead of leaving an object unseen by some reads.

interface Fill {
  readonly run: () => void;
  /** The stores it writes; undefined: any store no other fill names. */
  readonly stores: ReadonlySet<string> | undefined;
  /** The key of the one object it writes, when it names one store. */
  readonly key: string | undefined;
}

export class DeferredFills {
  #pending: Fill[] = [];
  /** Stores some fill named: their reads run only the fills naming them; no other fill touches them. */
  readonly #named = new Set<string>();
  /** The fill running now: the storage's uses pass through, checked against what it may touch. */
  #running: Fill | undefined;

  get pending(): boolean {
    return this.#pending.length > 0 || this.#running !== undefined;
  }

  add(run: () => void, stores?: readonly string[], key?: string): void {
    for (const s of stores ?? []) this.#named.add(s);
    this.#pending.push({ run, stores: stores && new Set(stores), key });
  }

  /**
   * Before a use of `store` (a read of it when `reading`, of its object `key` alone when given),
   * or of the whole storage (no store).
   */
  before(store: string | undefined, reading: boolean, key?: string): void {
    const running = this.#running;
    if (running) {
      if (store !== undefined && !(running.stores?.has(store) ?? !this.#named.has(store))) {
        throw new Error(`internal error: a deferred storage fill used ${store}, which it may not`);
      }
      return;
    }
    const runs =
      reading && store !== undefined && this.#named.has(store)
        ? this.#pending.filter(
            (f) => f.stores?.has(store) && (key === undefined || f.key === undefined || f.key === key),
          )
        : this.#pending;
    if (runs.length === 0) return;
    this.#pending = this.#pending.filter((f) => !runs.includes(f));
    for (const fill of runs) {
      this.#running = fill;
      try {
        fill.run();
      } finally {
        this.#running = undefined;
      }
    }
  }
}
