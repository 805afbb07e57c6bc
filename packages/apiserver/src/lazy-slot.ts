// A module loaded on first use: `load()` once (awaited where the caller can), then `get()` in
// synchronous code, which throws an internal error if the load was skipped.

export interface Slot<T> {
  readonly loaded: boolean;
  load(): Promise<T>;
  get(): T;
}

export function slot<T>(what: string, load: () => Promise<T>): Slot<T> {
  let value: T | undefined;
  let loading: Promise<T> | undefined;
  return {
    get loaded() {
      return value !== undefined;
    },
    load: () => {
      loading ??= load().then((v) => {
        value = v;
        return v;
      });
      return loading;
    },
    get: () => {
      if (value === undefined) throw new Error(`internal error: ${what} used before it was loaded`);
      return value;
    },
  };
}
