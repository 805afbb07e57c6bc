// What storage holds and emits. Stored objects are deep-frozen and kept with their JSON, so no
// handler can change what is stored and reads need no copy.

export type Obj = Record<string, unknown>;

export interface StoredObject {
  /** The object, deep-frozen. Copy (`JSON.parse(json)`) before changing it. */
  readonly obj: Readonly<Obj>;
  /** `JSON.stringify(obj)`, computed once at write. */
  readonly json: string;
  readonly rv: number;
  /** `namespace/name`, or `name` for cluster-scoped objects. */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
}

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoredEvent {
  readonly type: EventType;
  readonly rv: number;
  /** The store (group/resource) the object belongs to. */
  readonly store: string;
  /** The object after the change; for DELETED, the last state stamped with the deletion's version. */
  readonly object: StoredObject;
  /** The object before the change, absent for ADDED. */
  readonly prev: StoredObject | undefined;
  /** When it happened (Date.now()), for the watch caches' freshness window. */
  readonly at: number;
  /**
   * Serialized watch lines, shared by the watchers that send the same form while the event is
   * handed out; dropped after, so that history does not keep a line per event (watchers that
   * replay history serialize again).
   */
  lines: Map<string, string> | undefined;
}

/** Receives every change of one store, synchronously and in order. */
export interface WatchSink {
  deliver(ev: StoredEvent): void;
}

/**
 * A write etcd would refuse: an object past its request limit, or a database past its quota.
 * The message is etcd's (or gRPC's), as kube-apiserver passes it on in a 500 without reason.
 */
export class StorageLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StorageLimitError";
  }
}
