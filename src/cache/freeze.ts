// Deep freezing: the cache freezes each object once, when it arrives, and hands out that same
// object to every reader. A reader that tries to change it gets a TypeError (modules are strict
// mode), so no reader can corrupt what the next one sees; `structuredClone(obj)` gives a copy to
// change. bench/cache.ts measures this against copying on every read.

/** Freezes `value` and everything reachable from it; returns it. Already frozen parts are skipped. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return Object.freeze(value);
}
