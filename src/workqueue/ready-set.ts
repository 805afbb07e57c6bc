// The keys ready to be handed out, ordered for `get`: a FIFO list per priority, a max-heap of the
// priorities that have keys, and one list of all ready keys in the order they became ready (for
// aging). Every operation is O(1) apart from O(log p) in the number of distinct priorities, so the
// common case (one priority, or a few) costs the same as a plain FIFO however long the queue is.
// Internal to the workqueue folder.
import { type Entry, EntryState } from "./entry.js";
import { IndexedHeap } from "./indexed-heap.js";

/** The ready keys of one priority, oldest first. */
export class Bucket<K extends string> {
  readonly priority: number;
  head: Entry<K> | null = null;
  tail: Entry<K> | null = null;
  heapIndex = -1;

  constructor(priority: number) {
    this.priority = priority;
  }
}

export class ReadySet<K extends string> {
  #size = 0;
  readonly #buckets = new Map<number, Bucket<K>>();
  readonly #priorities = new IndexedHeap<Bucket<K>>((a, b) => a.priority > b.priority);
  #ageHead: Entry<K> | null = null;
  #ageTail: Entry<K> | null = null;
  /** Keys ready this long (ms) take every other hand-out, oldest first. */
  readonly #agingThreshold: number;
  /** Whether the last hand-out went to an aged key out of priority order. */
  #lastWasAged = false;

  constructor(agingThreshold: number) {
    this.#agingThreshold = agingThreshold;
  }

  get size(): number {
    return this.#size;
  }

  /** Appends `e` at the tail of its priority and of the age list; `now` is its enqueue time. */
  push(e: Entry<K>, now: number): void {
    e.state = EntryState.Ready;
    e.enqueuedAt = now;
    this.#link(e);
    e.agePrev = this.#ageTail;
    e.ageNext = null;
    if (this.#ageTail === null) this.#ageHead = e;
    else this.#ageTail.ageNext = e;
    this.#ageTail = e;
    this.#size++;
  }

  /** Removes `e`, which must be in the set. */
  remove(e: Entry<K>): void {
    this.#unlink(e);
    if (e.agePrev === null) this.#ageHead = e.ageNext;
    else e.agePrev.ageNext = e.ageNext;
    if (e.ageNext === null) this.#ageTail = e.agePrev;
    else e.ageNext.agePrev = e.agePrev;
    e.agePrev = e.ageNext = null;
    this.#size--;
  }

  /** Moves `e` to the tail of `priority`; its place in the age list (how long it has waited) stays. */
  reprioritize(e: Entry<K>, priority: number): void {
    this.#unlink(e);
    e.priority = priority;
    this.#link(e);
  }

  /**
   * Removes and returns the key `get` should hand out: the oldest key of the highest priority,
   * except that when the oldest key of all has waited `agingThreshold` or longer it takes every
   * other turn. Alternating (rather than serving aged keys first) bounds the wait of low-priority
   * keys without handing a whole aged backlog ahead of fresh high-priority keys. `now` is only read
   * when the two candidates differ.
   */
  shift(now: () => number): Entry<K> | undefined {
    const top = this.#priorities.peek();
    if (top === undefined) return undefined;
    let e = top.head!;
    const oldest = this.#ageHead!;
    if (this.#lastWasAged || oldest === e || this.#agingThreshold === Infinity) {
      this.#lastWasAged = false;
    } else if (now() - oldest.enqueuedAt >= this.#agingThreshold) {
      e = oldest;
      this.#lastWasAged = true;
    }
    this.remove(e);
    return e;
  }

  #link(e: Entry<K>): void {
    let b = this.#buckets.get(e.priority);
    if (b === undefined) {
      b = new Bucket<K>(e.priority);
      this.#buckets.set(e.priority, b);
    }
    e.bucket = b;
    e.prev = b.tail;
    e.next = null;
    if (b.tail === null) {
      b.head = e;
      this.#priorities.push(b);
    } else {
      b.tail.next = e;
    }
    b.tail = e;
  }

  #unlink(e: Entry<K>): void {
    const b = e.bucket!;
    if (e.prev === null) b.head = e.next;
    else e.prev.next = e.next;
    if (e.next === null) b.tail = e.prev;
    else e.next.prev = e.prev;
    e.prev = e.next = e.bucket = null;
    if (b.head === null) {
      // An empty bucket leaves the heap and the map, so that neither grows with priorities seen once.
      this.#priorities.remove(b);
      this.#buckets.delete(b.priority);
    }
  }
}
