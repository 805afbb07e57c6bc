// The delayed keys, earliest deadline first: a 4-ary min-heap whose sort keys (deadline, then
// creation order) live in typed arrays beside the entries. With a million delayed keys a binary
// heap of objects chases a pointer into a cold entry at each of ~20 levels; here a level is ~10
// levels of 4 contiguous numbers. Entries remember their position (`heapIndex`) so that one can
// be removed or moved earlier in O(log n). Internal to the workqueue folder.
import type { Entry } from "./entry.js";

export class DeadlineHeap<K extends string> {
  #nodes: Entry<K>[] = [];
  #deadlines = new Float64Array(64);
  #seqs = new Float64Array(64);

  get size(): number {
    return this.#nodes.length;
  }

  peek(): Entry<K> | undefined {
    return this.#nodes[0];
  }

  /** Deadline of the earliest entry; Infinity when empty. */
  peekDeadline(): number {
    return this.#nodes.length === 0 ? Number.POSITIVE_INFINITY : this.#deadlines[0]!;
  }

  /** Adds `e` with its current `deadline` and `seq`. */
  push(e: Entry<K>): void {
    const i = this.#nodes.length;
    if (i === this.#deadlines.length) this.#grow();
    this.#nodes.push(e);
    this.#up(i, e, e.deadline, e.seq);
  }

  pop(): Entry<K> | undefined {
    const top = this.#nodes[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes `e`, which must be in this heap. */
  remove(e: Entry<K>): void {
    const i = e.heapIndex;
    const lastIndex = this.#nodes.length - 1;
    const last = this.#nodes.pop()!;
    e.heapIndex = -1;
    if (i === lastIndex) return;
    const d = this.#deadlines[lastIndex]!;
    const s = this.#seqs[lastIndex]!;
    if (i > 0 && this.#less(d, s, (i - 1) >> 2)) this.#up(i, last, d, s);
    else this.#down(i, last, d, s);
  }

  /** Re-positions `e` after its deadline moved earlier. */
  moveEarlier(e: Entry<K>): void {
    this.#up(e.heapIndex, e, e.deadline, e.seq);
  }

  /** Empties the heap, returning its entries in no particular order. */
  clear(): Entry<K>[] {
    const out = this.#nodes;
    this.#nodes = [];
    for (const e of out) e.heapIndex = -1;
    return out;
  }

  /** Whether (d, s) sorts before the node at `j`. */
  #less(d: number, s: number, j: number): boolean {
    const dj = this.#deadlines[j]!;
    return d < dj || (d === dj && s < this.#seqs[j]!);
  }

  /** Places `e` (keys d, s) at `i` or above, moving larger parents down. */
  #up(start: number, e: Entry<K>, d: number, s: number): void {
    const nodes = this.#nodes;
    const deadlines = this.#deadlines;
    const seqs = this.#seqs;
    let i = start;
    while (i > 0) {
      const p = (i - 1) >> 2;
      if (!this.#less(d, s, p)) break;
      const parent = nodes[p]!;
      nodes[i] = parent;
      deadlines[i] = deadlines[p]!;
      seqs[i] = seqs[p]!;
      parent.heapIndex = i;
      i = p;
    }
    nodes[i] = e;
    deadlines[i] = d;
    seqs[i] = s;
    e.heapIndex = i;
  }

  /** Places `e` (keys d, s) at `i` or below, moving smaller children up. */
  #down(start: number, e: Entry<K>, d: number, s: number): void {
    const nodes = this.#nodes;
    const deadlines = this.#deadlines;
    const seqs = this.#seqs;
    const n = nodes.length;
    let i = start;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // The smallest of up to four children, compared on the typed arrays only.
      let c = first;
      const end = Math.min(first + 4, n);
      for (let j = first + 1; j < end; j++) {
        if (deadlines[j]! < deadlines[c]! || (deadlines[j] === deadlines[c] && seqs[j]! < seqs[c]!)) c = j;
      }
      if (!(deadlines[c]! < d || (deadlines[c] === d && seqs[c]! < s))) break;
      const child = nodes[c]!;
      nodes[i] = child;
      deadlines[i] = deadlines[c]!;
      seqs[i] = seqs[c]!;
      child.heapIndex = i;
      i = c;
    }
    nodes[i] = e;
    deadlines[i] = d;
    seqs[i] = s;
    e.heapIndex = i;
  }

  #grow(): void {
    const deadlines = new Float64Array(this.#deadlines.length * 2);
    deadlines.set(this.#deadlines);
    this.#deadlines = deadlines;
    const seqs = new Float64Array(this.#seqs.length * 2);
    seqs.set(this.#seqs);
    this.#seqs = seqs;
  }
}
