// The keys of one store in order, for lists and pages. A sorted array re-sorted after every
// create or delete made each list after a write O(n log n), and a page had to materialise the
// whole range; this keeps the order as keys come and go, in chunks of at most CHUNK keys, so an
// insert or delete moves at most CHUNK keys, finding a position is a binary search, and a rank
// (how many keys sort before a value) sums chunk sizes. At 100 000 keys that is 200 chunks.

const CHUNK = 512;

export class SortedKeys {
  /** Non-empty sorted chunks; every key of a chunk sorts before every key of the next. */
  #chunks: string[][] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The chunk that holds `key` or would: the first whose last key is >= it (else the last). */
  #chunkFor(key: string): number {
    const chunks = this.#chunks;
    let lo = 0;
    let hi = chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = chunks[mid]!;
      if (c[c.length - 1]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds `key`, which must not be present. */
  insert(key: string): void {
    this.#size++;
    if (this.#chunks.length === 0) {
      this.#chunks.push([key]);
      return;
    }
    const ci = this.#chunkFor(key);
    const chunk = this.#chunks[ci]!;
    chunk.splice(lowerBound(chunk, key), 0, key);
    if (chunk.length > CHUNK) this.#chunks.splice(ci + 1, 0, chunk.splice(CHUNK / 2));
  }

  /** Removes `key`; false when it was not present. */
  delete(key: string): boolean {
    if (this.#chunks.length === 0) return false;
    const ci = this.#chunkFor(key);
    const chunk = this.#chunks[ci]!;
    const i = lowerBound(chunk, key);
    if (chunk[i] !== key) return false;
    chunk.splice(i, 1);
    this.#size--;
    if (chunk.length === 0) this.#chunks.splice(ci, 1);
    return true;
  }

  /** How many keys sort before `value`. */
  rank(value: string): number {
    if (this.#chunks.length === 0) return 0;
    const ci = this.#chunkFor(value);
    let n = 0;
    for (let i = 0; i < ci; i++) n += this.#chunks[i]!.length;
    return n + lowerBound(this.#chunks[ci]!, value);
  }

  /**
   * Calls `visit` with each key from the first one >= `from` (or > it, with `exclusive`) while
   * it sorts before `to`, in order, until `visit` returns false.
   */
  forEach(from: string, exclusive: boolean, to: string | undefined, visit: (key: string) => boolean): void {
    const chunks = this.#chunks;
    if (chunks.length === 0) return;
    let ci = this.#chunkFor(from);
    let i = exclusive ? upperBound(chunks[ci]!, from) : lowerBound(chunks[ci]!, from);
    for (; ci < chunks.length; ci++, i = 0) {
      const chunk = chunks[ci]!;
      for (; i < chunk.length; i++) {
        const key = chunk[i]!;
        if (to !== undefined && key >= to) return;
        if (!visit(key)) return;
      }
    }
  }
}

/** The first index whose key is >= `value`. */
export function lowerBound(keys: readonly string[], value: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose key is > `value`. */
export function upperBound(keys: readonly string[], value: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
