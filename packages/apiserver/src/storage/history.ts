// A bounded, global log of changes: watches replay from it and lists at an older resourceVersion
// are rebuilt from it. When it is full the oldest entries fall off, and versions before them
// become "too old" (410 Expired), as after an etcd compaction. It is bounded in bytes too, so
// rewriting a large object over and over cannot fill the memory with its old versions.
import type { StoredEvent } from "./types.js";

export class History {
  readonly #capacity: number;
  readonly #maxBytes: number;
  #bytes = 0;
  readonly #ring: (StoredEvent | undefined)[];
  #start = 0;
  #size = 0;
  /** The resourceVersion of the newest event that fell off (0 while nothing has). */
  #compactedThrough = 0;

  constructor(capacity: number, compactedThrough = 0, maxBytes = Number.POSITIVE_INFINITY) {
    this.#capacity = Math.max(1, capacity);
    this.#maxBytes = maxBytes;
    this.#ring = new Array(this.#capacity);
    this.#compactedThrough = compactedThrough;
  }

  get compactedThrough(): number {
    return this.#compactedThrough;
  }

  /** Whether every change after `rv` is still here. */
  covers(rv: number): boolean {
    return rv >= this.#compactedThrough;
  }

  /** Bytes of the objects the kept events hold (their JSON). */
  get bytes(): number {
    return this.#bytes;
  }

  push(ev: StoredEvent): void {
    const size = ev.object.json.length;
    while (this.#size > 0 && (this.#size === this.#capacity || this.#bytes + size > this.#maxBytes)) {
      this.#dropOldest();
    }
    this.#ring[(this.#start + this.#size) % this.#capacity] = ev;
    this.#size++;
    this.#bytes += size;
  }

  /**
   * Forgets every change up to `rv`, as an etcd compaction does: lists and watches from a version
   * below `rv` answer 410 Expired from then on. (Injected by tests through `env.faults.compact`.)
   */
  compact(rv: number): void {
    while (this.#size > 0 && this.#ring[this.#start]!.rv <= rv) this.#dropOldest();
    if (rv > this.#compactedThrough) this.#compactedThrough = rv;
  }

  #dropOldest(): void {
    const dropped = this.#ring[this.#start];
    if (dropped) {
      this.#compactedThrough = dropped.rv;
      this.#bytes -= dropped.object.json.length;
    }
    this.#ring[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.#capacity;
    this.#size--;
  }

  /**
   * The version of the newest event of `store` a watch cache keeping its newest `keep` events
   * plus every one since `freshSince` (up to `max`) would have dropped; 0 when it drops none.
   */
  droppedThrough(store: string, keep: number, freshSince: number, max: number): number {
    let count = 0;
    for (let i = this.#size - 1; i >= 0; i--) {
      const ev = this.#ring[(this.#start + i) % this.#capacity]!;
      if (ev.store !== store) continue;
      count++;
      if (count > max || (count > keep && ev.at < freshSince)) return ev.rv;
    }
    return 0;
  }

  /** Events of one store with a version above `rv`, oldest first. */
  since(rv: number, store: string): StoredEvent[] {
    const out: StoredEvent[] = [];
    // Binary search for the first event above rv: versions in the ring increase.
    let lo = 0;
    let hi = this.#size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const ev = this.#ring[(this.#start + mid) % this.#capacity]!;
      if (ev.rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.#size; i++) {
      const ev = this.#ring[(this.#start + i) % this.#capacity]!;
      if (ev.store === store) out.push(ev);
    }
    return out;
  }
}
