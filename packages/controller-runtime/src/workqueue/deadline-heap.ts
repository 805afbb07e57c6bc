// The delayed keys, earliest deadline first: a 4-ary min-heap whose sort keys (deadline, then
// creation order) live in typed arrays beside the entries, so sifting never touches an entry.
// With a million delayed keys a binary heap of objects that track their position writes into a
// cold entry at each of ~20 levels; here ~10 levels compare 4 contiguous numbers each.
//
// Removal is lazy: a node whose entry is no longer delayed, or is delayed to another deadline
// (moved earlier, which pushes a new node) or with another creation number (queued anew), is stale
// and skipped when it reaches the top. The heap is rebuilt when stale nodes outnumber live ones, so
// memory stays O(live) and every operation stays O(log n) amortised. Internal to the workqueue folder.
import { type Entry, EntryState } from "./entry.js";

export class DeadlineHeap<K extends string> {
  #nodes: Entry<K>[] = [];
  #deadlines = new Float64Array(64);
  #seqs = new Float64Array(64);
  #live = 0;

  /** Number of delayed entries (stale nodes not counted). */
  get size(): number {
    return this.#live;
  }

  /** Deadline of the earliest delayed entry; Infinity when none. */
  peekDeadline(): number {
    this.#dropStaleTop();
    return this.#nodes.length === 0 ? Number.POSITIVE_INFINITY : this.#deadlines[0]!;
  }

  /** Adds `e`, already marked delayed, with its `deadline` and `seq`. */
  push(e: Entry<K>): void {
    this.#live++;
    this.#insert(e);
  }

  /** Removes and returns the earliest delayed entry. */
  pop(): Entry<K> | undefined {
    this.#dropStaleTop();
    if (this.#nodes.length === 0) return undefined;
    const top = this.#nodes[0]!;
    this.#removeTop();
    this.#live--;
    return top;
  }

  /** Forgets `e`; the caller changes its state, which makes its node stale. */
  remove(_e: Entry<K>): void {
    this.#live--;
    this.#maybeCompact();
  }

  /** Re-files `e` after its deadline moved earlier; the node with the old deadline goes stale. */
  moveEarlier(e: Entry<K>): void {
    this.#insert(e);
    this.#maybeCompact();
  }

  /** Empties the heap, returning the delayed entries in no particular order. */
  clear(): Entry<K>[] {
    const live = this.#nodes.filter((e, i) => this.#isLive(e, i));
    this.#nodes = [];
    this.#live = 0;
    return live;
  }

  #isLive(e: Entry<K>, i: number): boolean {
    return e.state === EntryState.Delayed && e.deadline === this.#deadlines[i] && e.seq === this.#seqs[i];
  }

  #dropStaleTop(): void {
    while (this.#nodes.length > 0 && !this.#isLive(this.#nodes[0]!, 0)) this.#removeTop();
  }

  #maybeCompact(): void {
    const nodes = this.#nodes;
    if (nodes.length < 1024 || nodes.length < 2 * this.#live) return;
    const live: Entry<K>[] = [];
    for (let i = 0; i < nodes.length; i++) if (this.#isLive(nodes[i]!, i)) live.push(nodes[i]!);
    this.#nodes = [];
    for (const e of live) this.#insert(e);
  }

  #insert(e: Entry<K>): void {
    const i = this.#nodes.length;
    if (i === this.#deadlines.length) this.#grow();
    this.#nodes.push(e);
    this.#up(i, e, e.deadline, e.seq);
  }

  #removeTop(): void {
    const lastIndex = this.#nodes.length - 1;
    const last = this.#nodes.pop()!;
    if (lastIndex > 0) this.#down(0, last, this.#deadlines[lastIndex]!, this.#seqs[lastIndex]!);
  }

  /** Places `e` (keys d, s) at `start` or above, moving later parents down. */
  #up(start: number, e: Entry<K>, d: number, s: number): void {
    const nodes = this.#nodes;
    const deadlines = this.#deadlines;
    const seqs = this.#seqs;
    let i = start;
    while (i > 0) {
      const p = (i - 1) >> 2;
      const dp = deadlines[p]!;
      if (!(d < dp || (d === dp && s < seqs[p]!))) break;
      nodes[i] = nodes[p]!;
      deadlines[i] = dp;
      seqs[i] = seqs[p]!;
      i = p;
    }
    nodes[i] = e;
    deadlines[i] = d;
    seqs[i] = s;
  }

  /** Places `e` (keys d, s) at `start` or below, moving earlier children up. */
  #down(start: number, e: Entry<K>, d: number, s: number): void {
    const nodes = this.#nodes;
    const deadlines = this.#deadlines;
    const seqs = this.#seqs;
    const n = nodes.length;
    let i = start;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      // The earliest of up to four children, compared on the typed arrays only.
      let c = first;
      let dc = deadlines[first]!;
      const end = Math.min(first + 4, n);
      for (let j = first + 1; j < end; j++) {
        const dj = deadlines[j]!;
        if (dj < dc || (dj === dc && seqs[j]! < seqs[c]!)) {
          c = j;
          dc = dj;
        }
      }
      if (!(dc < d || (dc === d && seqs[c]! < s))) break;
      nodes[i] = nodes[c]!;
      deadlines[i] = dc;
      seqs[i] = seqs[c]!;
      i = c;
    }
    nodes[i] = e;
    deadlines[i] = d;
    seqs[i] = s;
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
