// deepCopy: the object behind a cache's frozen, DeepReadonly<T> view, as a mutable T of its own
// (Go's DeepCopy). structuredClone copies but keeps the readonly type, which asks for a cast.
import type { DeepMutable } from "./deep-readonly.js";

/** A deep, mutable copy of a Kubernetes object (plain JSON) that shares nothing with `obj`. */
export function deepCopy<T>(obj: T): DeepMutable<T> {
  return structuredClone(obj) as DeepMutable<T>;
}
