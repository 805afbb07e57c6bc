// Deep freezing: the cache freezes each object once, when it arrives, and hands out that same
// object to every reader. A reader that tries to change it gets a TypeError (modules are strict
// mode), so no reader can corrupt what the next one sees; `structuredClone(obj)` gives a copy to
// change. bench/cache.ts measures this against copying on every read.
import type { DeepReadonly } from "../api/index.js";

/** Freezes `value` and everything reachable from it; returns it. Already frozen parts are skipped. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value as DeepReadonly<T>;
  freezeTree(value);
  return value as DeepReadonly<T>;
}

/** Nesting past which freezing leaves the JS stack (a CRD's schema nests some 10 000 objects deep). */
const DEEP = 500;

// Strings and numbers, most of an object's values, are skipped without a call.
function freezeTree(value: object, depth = 0): void {
  if (depth > DEEP) {
    freezeDeep(value);
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === "object" && item !== null && !Object.isFrozen(item)) freezeTree(item, depth + 1);
    }
  } else {
    for (const key in value) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (typeof item === "object" && item !== null && !Object.isFrozen(item)) freezeTree(item, depth + 1);
    }
  }
  Object.freeze(value);
}

/** freezeTree without recursion: every object is frozen (children first, as there) from a stack of its own. */
function freezeDeep(root: object): void {
  const pending: object[] = [root];
  const order: object[] = [];
  while (pending.length > 0) {
    const value = pending.pop()!;
    order.push(value);
    for (const key in value) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (typeof item === "object" && item !== null && !Object.isFrozen(item)) pending.push(item);
    }
  }
  // Parents after their children: a frozen parent means a frozen tree (deepFreeze skips it).
  for (let i = order.length - 1; i >= 0; i--) Object.freeze(order[i]);
}
