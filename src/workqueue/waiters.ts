// Callers of `get` waiting for a key, served in call order. A doubly linked list, so that a waiter
// whose signal aborts leaves in O(1). Internal to the workqueue folder.

class Waiter<T> {
  prev: Waiter<T> | null = null;
  next: Waiter<T> | null = null;
  signal: AbortSignal | undefined = undefined;
  onAbort: (() => void) | undefined = undefined;
  constructor(readonly resolve: (value: T) => void) {}
}

export class WaiterList<T> {
  #head: Waiter<T> | null = null;
  #tail: Waiter<T> | null = null;

  get empty(): boolean {
    return this.#head === null;
  }

  /** Joins the end of the line; rejects with the signal's reason if it aborts before being served. */
  wait(signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const w = new Waiter<T>(resolve);
      if (signal !== undefined) {
        w.signal = signal;
        w.onAbort = () => {
          this.#unlink(w);
          reject(signal.reason);
        };
        signal.addEventListener("abort", w.onAbort, { once: true });
      }
      w.prev = this.#tail;
      if (this.#tail === null) this.#head = w;
      else this.#tail.next = w;
      this.#tail = w;
    });
  }

  /** Takes the first waiter out of the line and returns how to resolve it; undefined when none waits. */
  shift(): ((value: T) => void) | undefined {
    const w = this.#head;
    if (w === null) return undefined;
    this.#unlink(w);
    return w.resolve;
  }

  #unlink(w: Waiter<T>): void {
    if (w.prev === null) this.#head = w.next;
    else w.prev.next = w.next;
    if (w.next === null) this.#tail = w.prev;
    else w.next.prev = w.prev;
    w.prev = w.next = null;
    if (w.onAbort !== undefined) {
      w.signal!.removeEventListener("abort", w.onAbort);
      w.onAbort = undefined;
    }
  }
}
