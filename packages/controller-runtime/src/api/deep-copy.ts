// deepCopy: the object behind a cache's frozen, Readonly<T> view, as a mutable T of its own (Go's
// DeepCopy). structuredClone copies but keeps the Readonly type, which asks for a cast.

/** A deep, mutable copy of a Kubernetes object (plain JSON) that shares nothing with `obj`. */
export function deepCopy<T>(obj: Readonly<T>): T {
  return structuredClone(obj) as T;
}
