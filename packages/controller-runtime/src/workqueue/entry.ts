// The record the queue keeps per key, from the key's first add until it is done and not queued
// again. One record (and one map lookup per operation) holds both where the key waits and whether
// it is being processed; and the per-priority list of ready entries it links into (the ready
// set's bucket), here with it because each points at the other. Internal to the workqueue folder.

/** Where a key waits. Plain numbers, compared on every operation. */
export const EntryState = {
  /** Not queued: the key is only being processed. */
  None: 0,
  /** Waiting for its deadline in the delay heap. */
  Delayed: 1,
  /** In the ready set. */
  Ready: 2,
  /** Ready, but the key is being processed: waits for `done` outside the ready set. */
  Parked: 3,
} as const;
export type EntryState = (typeof EntryState)[keyof typeof EntryState];

export class Entry<K extends string> {
  key: K;
  /** The key's hash in the queue's key table (key-table.ts). */
  hash = 0;
  /** Priority of the queued key (merged by max while it waits). */
  priority = 0;
  state: EntryState = EntryState.None as EntryState;
  /** Delayed: when it becomes ready (clock ms). */
  deadline = 0;
  /** Creation order of the queued key: breaks ties between equal deadlines, and tells the delay
   * heap's live node from stale ones. */
  seq = 0;
  /** When it became ready or parked (for the latency metric). */
  readySince = 0;
  /** When it entered its priority's list in the ready set (for aging). */
  enqueuedAt = 0;
  /** Ready: its priority's list, and its neighbours there. */
  bucket: Bucket<K> | null = null;
  prev: Entry<K> | null = null;
  next: Entry<K> | null = null;
  /** Handed out by `get` and not yet done. */
  processing = false;
  /** When it was handed out (clock ms; 0 when the queue reads no clock). */
  processingSince = 0;
  /** Processing: the list of keys being processed (for the unfinished-work metrics). */
  procPrev: Entry<K> | null = null;
  procNext: Entry<K> | null = null;

  constructor(key: K) {
    this.key = key;
  }
}

/** The ready keys of one priority, in the order they entered it (so the head has waited longest). */
export class Bucket<K extends string> {
  readonly priority: number;
  head: Entry<K> | null = null;
  tail: Entry<K> | null = null;
  /** Position in the priority heap. */
  heapIndex = -1;
  /** This bucket's node in the age heap. */
  readonly age: AgeNode<K>;

  constructor(priority: number) {
    this.priority = priority;
    this.age = { bucket: this, heapIndex: -1 };
  }
}

export interface AgeNode<K extends string> {
  readonly bucket: Bucket<K>;
  heapIndex: number;
}
