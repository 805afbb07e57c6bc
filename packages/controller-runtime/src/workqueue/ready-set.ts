// The keys ready to be handed out, ordered for `get`: a FIFO list per priority and two small heaps
// over those lists, one by priority and one by how long each list's head has waited (for aging).
// Work per key is O(1) plus O(log p) in the number of distinct priorities, so the common case
// (one priority, or a few) costs the same as a plain FIFO however long the queue is, and no
// operation touches keys other than the one moved and its list neighbours.
// Internal to the workqueue folder.
import { type AgeNode, Bucket, type Entry, EntryState } from "./entry.js";
import { IndexedHeap } from "./indexed-heap.js";

/** Up to this many buckets stay in the map when they empty. */
const KEPT_BUCKETS = 8;

export class ReadySet<K extends string> {
  #size = 0;
  readonly #buckets = new Map<number, Bucket<K>>();
  readonly #byPriority = new IndexedHeap<Bucket<K>>((a, b) => a.priority > b.priority);
  readonly #byAge = new IndexedHeap<AgeNode<K>>(
    (a, b) => a.bucket.head!.enqueuedAt < b.bucket.head!.enqueuedAt,
  );
  /** A key ready this long (ms) takes every other hand-out; Infinity turns aging (and the age heap) off. */
  readonly #agingThreshold: number;
  readonly #aging: boolean;
  #last: Bucket<K> | null = null;
  /**
   * The one bucket left in both heaps while empty, when it was the only one there: a controller
   * that keeps up empties its queue at every key, and taking its bucket out of both heaps and
   * putting it back cost about eight calls per key. Only ever alone in the heaps, so an empty
   * bucket is never compared (the age order reads its head); any other bucket entering the heaps
   * takes it out first.
   */
  #idle: Bucket<K> | null = null;
  /** Whether the last hand-out went to an aged key out of priority order. */
  #lastWasAged = false;

  constructor(agingThreshold: number) {
    this.#agingThreshold = agingThreshold;
    this.#aging = agingThreshold !== Number.POSITIVE_INFINITY;
  }

  get size(): number {
    return this.#size;
  }

  /** Appends `e` at the tail of its priority; `now` (clock ms) starts its wait. */
  push(e: Entry<K>, now: number): void {
    e.state = EntryState.Ready;
    e.enqueuedAt = now;
    this.#link(e);
    this.#size++;
  }

  /** Removes `e`, which must be in the set. */
  remove(e: Entry<K>): void {
    this.#unlink(e);
    this.#size--;
  }

  /** Moves `e` to the tail of `priority`; its wait restarts at `now`, as it entered a new list. */
  reprioritize(e: Entry<K>, priority: number, now: number): void {
    this.#unlink(e);
    e.priority = priority;
    e.enqueuedAt = now;
    this.#link(e);
  }

  /**
   * Removes and returns the key `get` should hand out: the oldest key of the highest priority,
   * except that when a key of another priority has waited `agingThreshold` or longer, the oldest
   * such key takes every other turn. Alternating (rather than serving aged keys first) bounds the
   * wait of low-priority keys without handing a whole aged backlog ahead of fresh high-priority
   * keys. `now` is only read when keys of several priorities are ready.
   */
  shift(now: () => number): Entry<K> | undefined {
    if (this.#size === 0) return undefined;
    const top = this.#byPriority.peek()!;
    let e = top.head!;
    if (this.#lastWasAged || this.#byAge.size < 2) {
      this.#lastWasAged = false;
    } else {
      const oldest = this.#byAge.peek()!.bucket;
      if (oldest !== top && now() - oldest.head!.enqueuedAt >= this.#agingThreshold) {
        e = oldest.head!;
        this.#lastWasAged = true;
      }
    }
    this.remove(e);
    return e;
  }

  #link(e: Entry<K>): void {
    // Consecutive keys mostly share a priority: the last bucket used saves a map lookup.
    let b = this.#last;
    if (b === null || b.priority !== e.priority) {
      b = this.#buckets.get(e.priority) ?? null;
      if (b === null) {
        b = new Bucket<K>(e.priority);
        this.#buckets.set(e.priority, b);
      }
      this.#last = b;
    }
    e.bucket = b;
    e.prev = b.tail;
    e.next = null;
    if (b.tail === null) {
      b.head = e;
      b.tail = e;
      if (b === this.#idle) this.#idle = null;
      else this.#enter(b);
    } else {
      b.tail.next = e;
      b.tail = e;
    }
  }

  #unlink(e: Entry<K>): void {
    const b = e.bucket!;
    const wasHead = e.prev === null;
    if (wasHead) b.head = e.next;
    else e.prev!.next = e.next;
    if (e.next === null) b.tail = e.prev;
    else e.next.prev = e.prev;
    e.prev = e.next = e.bucket = null;
    if (b.head === null) {
      // An empty bucket leaves the heaps. It stays in the map for the next key of its priority
      // while the map is small: a controller that keeps up empties its queue at every key, and a
      // new bucket each time was garbage and two map updates per key. Past a few priorities,
      // empty buckets leave the map too, so that none grows with priorities seen once.
      if (this.#byPriority.size === 1) this.#idle = b;
      else this.#leave(b);
      if (this.#buckets.size > KEPT_BUCKETS) {
        this.#buckets.delete(b.priority);
        if (this.#last === b) this.#last = null;
      }
    } else if (wasHead && this.#byAge.size > 1) {
      this.#byAge.fix(b.age);
    }
  }

  /** A bucket that just got its first key joins the heaps; the idle one, if any, leaves them. */
  #enter(b: Bucket<K>): void {
    const idle = this.#idle;
    if (idle !== null) {
      this.#idle = null;
      this.#leave(idle);
    }
    this.#byPriority.push(b);
    if (this.#aging) this.#byAge.push(b.age);
  }

  #leave(b: Bucket<K>): void {
    this.#byPriority.remove(b);
    if (this.#aging) this.#byAge.remove(b.age);
  }
}
