// The queue's index from key to record: an open-addressing hash table (linear probing, deletion by
// backward shift, so no tombstones) over one array of [hash, record] pairs.
//
// Why not a Map: with a million keys queued, each operation on a Map<string, _> is a string of
// cache misses (its bucket, then each chained entry, then each candidate key string compared),
// and the queue did two such lookups per key. Here the 30-bit hashes sit beside the records, so a
// lookup reads one run of adjacent slots and touches a record (and its key) only on a full hash
// match; removal is by record identity and reads no string at all. Measured on the distinct-keys
// benchmark, this halves the cost of the index.
//
// The hash is FNV-1a with a random seed per table, finished with murmur3's avalanche. Keys come
// from the cluster (namespace/name), so they are chosen by its users: a probe run longer than
// `maxProbe` (vanishingly rare with load ≤ 1/2 and an unknown seed) rebuilds the table with a new
// seed, at most once per `size` inserts, so crafted collisions cannot make operations linear.
// Internal to the workqueue folder.

/** A record the table can hold: it keeps its key's hash, set by the table. */
export interface KeyedRecord<K extends string> {
  key: K;
  hash: number;
}

const minCapacity = 16;
const maxProbe = 128;

function randomSeed(): number {
  return (Math.random() * 0x1_0000_0000) | 0;
}

export class KeyTable<K extends string, R extends KeyedRecord<K>> {
  /** Pairs: slots[2i] the hash (0 = empty), slots[2i+1] the record (0 when empty). */
  #slots: (number | R)[] = new Array<number | R>(2 * minCapacity).fill(0);
  #mask = minCapacity - 1;
  #size = 0;
  #seed = randomSeed();
  /** Inserts since the last rebuild (bounds how often a long probe may trigger one). */
  #insertsSinceRebuild = 0;

  get size(): number {
    return this.#size;
  }

  /** The table's hash of `key`: never 0, below 2^30 (a small integer for V8). */
  hash(key: string): number {
    let h = this.#seed;
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return (h & 0x3fffffff) | 1;
  }

  /** The record of `key`, whose hash is `h` (from `hash(key)`), or undefined. */
  get(key: K, h: number): R | undefined {
    const slots = this.#slots;
    const mask = this.#mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const sh = slots[2 * i] as number;
      if (sh === 0) return undefined;
      if (sh === h) {
        const r = slots[2 * i + 1] as R;
        if (r.key === key) return r;
      }
    }
  }

  /** Adds `r`, whose key is not in the table and hashes to `h`. */
  insert(r: R, h: number): void {
    r.hash = h;
    if (2 * (this.#size + 1) > this.#mask + 1) this.#rebuild(2 * (this.#mask + 1), false);
    this.#size++;
    this.#insertsSinceRebuild++;
    if (this.#place(r, r.hash) > maxProbe && this.#insertsSinceRebuild >= this.#size) {
      this.#seed = randomSeed();
      this.#rebuild(this.#mask + 1, true);
    }
  }

  /** Removes `r`, which must be in the table. */
  delete(r: R): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let i = r.hash & mask;
    while (slots[2 * i + 1] !== r) i = (i + 1) & mask;
    // Backward shift: later members of the run move into the hole unless that would put them
    // before their home slot, so that every lookup still finds its key before an empty slot.
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const hj = slots[2 * j] as number;
      if (hj === 0) break;
      if (((j - (hj & mask)) & mask) >= ((j - i) & mask)) {
        slots[2 * i] = hj;
        slots[2 * i + 1] = slots[2 * j + 1]!;
        i = j;
      }
    }
    slots[2 * i] = 0;
    slots[2 * i + 1] = 0;
    this.#size--;
    const capacity = mask + 1;
    if (capacity > minCapacity && 8 * this.#size < capacity) this.#rebuild(capacity / 2, false);
  }

  /** Every record, in no particular order. */
  *values(): IterableIterator<R> {
    const slots = this.#slots;
    for (let i = 0; i < slots.length; i += 2) if (slots[i] !== 0) yield slots[i + 1] as R;
  }

  /** Puts `r` in the first free slot of its run; returns how far from home that was. */
  #place(r: R, h: number): number {
    const slots = this.#slots;
    const mask = this.#mask;
    let i = h & mask;
    let distance = 0;
    while (slots[2 * i] !== 0) {
      i = (i + 1) & mask;
      distance++;
    }
    slots[2 * i] = h;
    slots[2 * i + 1] = r;
    return distance;
  }

  /** Moves every record into a table of `capacity` slots; with `rehash`, under the current seed. */
  #rebuild(capacity: number, rehash: boolean): void {
    const old = this.#slots;
    this.#slots = new Array<number | R>(2 * capacity).fill(0);
    this.#mask = capacity - 1;
    this.#insertsSinceRebuild = 0;
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] === 0) continue;
      const r = old[i + 1] as R;
      if (rehash) r.hash = this.hash(r.key);
      this.#place(r, r.hash);
    }
  }
}
