// A stored object's answer kept in an encoding besides its JSON (its protobuf frame, issue 43),
// held by the stored object itself: a protobuf list or watch of 50 000 objects looked each one up
// in a WeakMap by object, which cost it more than it saved over the JSON answer (the table's
// lookups miss the CPU's caches where a field of the stored object, just read, does not).
// The slot is a private field: a copy of a stored object made with a spread (a view converted to
// another version, a watch's previous state) holds no kept encoding of an object it does not
// hold. Kept encodings go with their object; their bytes are counted per storage, and past a
// budget no more are kept (a read then encodes the object each time).
import type { Obj, StoredObject } from "./types.js";

/** The bytes kept encodings of one storage's objects may hold besides the objects' own strings. */
export class EncodingBudget {
  bytes = 0;
  constructor(readonly limit: number) {}
}

/** A stored object as storage makes it: frozen, with room for one kept encoding. */
export class StoredRecord implements StoredObject {
  readonly obj: Readonly<Obj>;
  readonly json: string;
  readonly rv: number;
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  #encoding: unknown = undefined;
  #encodingBytes = 0;
  readonly #budget: EncodingBudget;

  constructor(
    obj: Readonly<Obj>,
    json: string,
    rv: number,
    key: string,
    namespace: string,
    name: string,
    budget: EncodingBudget,
  ) {
    this.obj = obj;
    this.json = json;
    this.rv = rv;
    this.key = key;
    this.namespace = namespace;
    this.name = name;
    this.#budget = budget;
    // Its fields, not its private slot: Object.freeze leaves private fields writable.
    Object.freeze(this);
  }

  static encodingOf(stored: StoredObject): unknown {
    return #encoding in stored ? stored.#encoding : undefined;
  }

  static keep(stored: StoredObject, encoding: unknown, bytes: number): boolean {
    if (!(#encoding in stored) || stored.#encoding !== undefined) return false;
    const budget = stored.#budget;
    if (budget.bytes + bytes > budget.limit) return false;
    budget.bytes += bytes;
    stored.#encoding = encoding;
    stored.#encodingBytes = bytes;
    return true;
  }

  static release(stored: StoredObject): void {
    if (!(#encoding in stored)) return;
    // The encoding stays for readers of this version (history); it no longer counts.
    stored.#budget.bytes -= stored.#encodingBytes;
    stored.#encodingBytes = 0;
  }
}

/**
 * The encoding kept with `stored` (by {@link keepEncoding}); undefined when none is, or `stored`
 * is not storage's own (a copy, a view).
 */
export function keptEncoding(stored: StoredObject): unknown {
  return StoredRecord.encodingOf(stored);
}

/**
 * Keeps `encoding` (an answer made from `stored.obj` alone, which never changes) with `stored`,
 * `bytes` counted against its storage's budget; false when it is not kept.
 */
export function keepEncoding(stored: StoredObject, encoding: unknown, bytes: number): boolean {
  return StoredRecord.keep(stored, encoding, bytes);
}
