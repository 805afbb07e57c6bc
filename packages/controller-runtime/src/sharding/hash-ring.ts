// Consistent hashing: each member owns the arcs of a ring before its virtual nodes' points, so a
// member joining takes about 1/(N+1) of the keys from the others and one leaving hands only its
// own keys on. Points and keys are hashed with FNV-1a (32 bits, then mixed), which spreads the
// short, similar strings of member names and object keys evenly.

/** Virtual nodes per member: enough that shards differ by a few percent (max/mean ≈ 1.05 at 5). */
const VIRTUAL_NODES = 256;

/** A 32-bit hash of `s`: FNV-1a, then murmur3's finalizer to spread close inputs. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class HashRing {
  readonly members: readonly string[];
  readonly #points: Uint32Array;
  readonly #owners: string[];

  constructor(members: Iterable<string>) {
    this.members = [...new Set(members)].sort();
    const points: { at: number; member: string }[] = [];
    for (const m of this.members) {
      for (let v = 0; v < VIRTUAL_NODES; v++) points.push({ at: hash32(`${m}#${v}`), member: m });
    }
    points.sort((a, b) => a.at - b.at || (a.member < b.member ? -1 : 1));
    this.#points = Uint32Array.from(points, (p) => p.at);
    this.#owners = points.map((p) => p.member);
  }

  /** The member that owns `key`, or undefined when the ring has none. */
  owner(key: string): string | undefined {
    const n = this.#points.length;
    if (n === 0) return undefined;
    const h = hash32(key);
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#points[mid] as number) < h) lo = mid + 1;
      else hi = mid;
    }
    return this.#owners[lo === n ? 0 : lo];
  }
}
