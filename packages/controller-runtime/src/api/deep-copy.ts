// deepCopy: the object behind a cache's frozen, DeepReadonly<T> view, as a mutable T of its own
// (Go's DeepCopy). structuredClone copies but keeps the readonly type, which asks for a cast; and
// V8's serializer recurses on the native stack, so it throws a RangeError from some 2 000 levels
// of nesting, while kube serves CustomResourceDefinitions whose schemas nest ~10 000 objects deep.
// Such an object is copied here from a stack of its own.
import type { DeepMutable } from "./deep-readonly.js";

/** A deep, mutable copy of a Kubernetes object (plain JSON) that shares nothing with `obj`. */
export function deepCopy<T>(obj: T): DeepMutable<T> {
  try {
    return structuredClone(obj) as DeepMutable<T>;
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return copyDeep(obj) as DeepMutable<T>;
  }
}

/** A copy of plain JSON (objects, arrays, scalars) at any depth, without recursion. */
function copyDeep(root: unknown): unknown {
  if (typeof root !== "object" || root === null) return root;
  const top: unknown = Array.isArray(root) ? new Array(root.length) : {};
  const pending: Array<[from: object, to: Record<string | number, unknown>]> = [
    [root, top as Record<string, unknown>],
  ];
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    for (const key of Object.keys(from)) {
      const value: unknown = (from as Record<string, unknown>)[key];
      if (typeof value !== "object" || value === null) {
        to[key] = value;
      } else if (value instanceof Date) {
        to[key] = new Date(value.getTime());
      } else {
        const copy = Array.isArray(value) ? new Array(value.length) : {};
        to[key] = copy;
        pending.push([value, copy as Record<string, unknown>]);
      }
    }
  }
  return top;
}
