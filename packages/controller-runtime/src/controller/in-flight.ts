// The reconciles running, oldest first, as a list threaded through the records themselves. A Set
// grew and shrank its hash table as reconciles came and went (between none and a few, most of
// the time): garbage on every reconcile.

/** What the list threads through: its own links. */
export interface Linked<T> {
  prev: T | null;
  next: T | null;
}

export class InFlightList<T extends Linked<T>> implements Iterable<T> {
  #head: T | null = null;
  #tail: T | null = null;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `x` as the newest. */
  add(x: T): void {
    x.prev = this.#tail;
    x.next = null;
    if (this.#tail === null) this.#head = x;
    else this.#tail.next = x;
    this.#tail = x;
    this.#size++;
  }

  /** Removes `x`, which must be in the list. */
  delete(x: T): void {
    if (x.prev === null) this.#head = x.next;
    else x.prev.next = x.next;
    if (x.next === null) this.#tail = x.prev;
    else x.next.prev = x.prev;
    x.prev = x.next = null;
    this.#size--;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let x = this.#head; x !== null; x = x.next) yield x;
  }
}
