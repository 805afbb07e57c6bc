// The type of an object read from the cache: frozen at every depth at run time, so readonly at
// every depth in the types, and `m.spec.size = 3` is a compile error rather than a TypeError.
// `deepCopy(obj)` gives back the mutable type.

// biome-ignore lint/complexity/noBannedTypes: functions stay as they are
type Primitive = string | number | boolean | bigint | symbol | undefined | null | Function | Date;

/** `T` readonly at every depth: objects, arrays, their elements. */
export type DeepReadonly<T> = T extends Primitive
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : { readonly [K in keyof T]: DeepReadonly<T[K]> };

/** `T` with every `readonly` taken off, at every depth: what `deepCopy` of a cached object gives. */
export type DeepMutable<T> = T extends Primitive
  ? T
  : T extends readonly (infer E)[]
    ? DeepMutable<E>[]
    : { -readonly [K in keyof T]: DeepMutable<T[K]> };
