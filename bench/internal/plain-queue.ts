// The work queue of the minimal client-node controller that bench/controller.ts measures ours
// against, and that bench/controller-features.ts times alone.

/** A plain de-duplicating queue: a Set of queued keys over an array, and waiting workers. */
export class PlainQueue {
  #items: string[] = [];
  #head = 0;
  readonly #queued = new Set<string>();
  readonly #waiting: Array<() => void> = [];
  #closed = false;

  add(key: string): void {
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#items.push(key);
    this.#waiting.shift()?.();
  }

  async get(): Promise<string | undefined> {
    while (this.#head === this.#items.length) {
      if (this.#closed) return undefined;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    const key = this.#items[this.#head++]!;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    this.#queued.delete(key);
    return key;
  }

  close(): void {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
  }
}
