// A binary min-heap whose elements remember their own position, so that any element can be
// removed or re-positioned in O(log n) (the queue needs this when a delayed key is re-added
// earlier, or made ready at once). Internal to the workqueue folder.

/** An element that carries its heap position; -1 when it is in no heap. */
export interface HeapNode {
  heapIndex: number;
}

export class IndexedHeap<T extends HeapNode> {
  readonly #items: T[] = [];
  readonly #less: (a: T, b: T) => boolean;

  constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(node: T): void {
    node.heapIndex = this.#items.length;
    this.#items.push(node);
    this.#up(node.heapIndex);
  }

  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  /** Removes `node`, which must be in this heap. */
  remove(node: T): void {
    const items = this.#items;
    const i = node.heapIndex;
    const last = items.pop()!;
    node.heapIndex = -1;
    if (last === node) return;
    items[i] = last;
    last.heapIndex = i;
    this.fix(last);
  }

  /** Restores order after `node`'s key changed in either direction. */
  fix(node: T): void {
    if (!this.#up(node.heapIndex)) this.#down(node.heapIndex);
  }

  /** Empties the heap, returning its elements in no particular order. */
  clear(): T[] {
    const out = this.#items.splice(0);
    for (const n of out) n.heapIndex = -1;
    return out;
  }

  #up(start: number): boolean {
    const items = this.#items;
    const node = items[start]!;
    let i = start;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = items[parentIndex]!;
      if (!this.#less(node, parent)) break;
      items[i] = parent;
      parent.heapIndex = i;
      i = parentIndex;
    }
    items[i] = node;
    node.heapIndex = i;
    return i !== start;
  }

  #down(start: number): void {
    const items = this.#items;
    const n = items.length;
    const node = items[start]!;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.#less(items[right]!, items[left]!)) child = right;
      if (!this.#less(items[child]!, node)) break;
      items[i] = items[child]!;
      items[i]!.heapIndex = i;
      i = child;
    }
    items[i] = node;
    node.heapIndex = i;
  }
}
