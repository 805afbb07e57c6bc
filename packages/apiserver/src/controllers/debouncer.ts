// Collects keys and handles them together on a later turn of the event loop, so that a burst of
// changes (a namespace with a thousand objects) costs one pass, and nothing runs after stop.
export class Debouncer<K> {
  readonly #keys = new Set<K>();
  #scheduled = false;
  readonly #run: (keys: K[]) => void;
  readonly #signal: AbortSignal;
  readonly #onError: (err: unknown) => void;

  constructor(run: (keys: K[]) => void, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#run = run;
    this.#signal = signal;
    this.#onError = onError;
  }

  add(key: K): void {
    if (this.#signal.aborted) return;
    this.#keys.add(key);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#signal.aborted) return;
      const keys = [...this.#keys];
      this.#keys.clear();
      try {
        this.#run(keys);
      } catch (e) {
        this.#onError(e);
      }
    });
  }
}
