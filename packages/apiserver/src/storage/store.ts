// In-memory storage for every resource: one global, monotonic resourceVersion, a map per store,
// a bounded history of changes, and synchronous fan-out of each change to the store's watchers.
// Everything here is synchronous: a handler that reads, checks and writes without awaiting in
// between cannot race another request.
import { KUBE_MAX_DEPTH, jsonDepthCrossing } from "../nesting.js";
import { jsonDepth, stringifyJson } from "../object/deep-json.js";
import { DeferredFills } from "./deferred-fills.js";
import { deepFreeze, shareCommonTrees } from "./frozen-trees.js";
import { History } from "./history.js";
import { EncodingBudget, StoredRecord } from "./kept-encoding.js";
import { SortedKeys, upperBound } from "./sorted-keys.js";
import {
  type EventType,
  type Obj,
  StorageLimitError,
  type StoredEvent,
  type StoredObject,
  type WatchSink,
} from "./types.js";

export interface StorageOptions {
  /** How many changes (across all resources) are kept for watch replay and paged lists.
   * Default: 20000. */
  historySize?: number;
  /**
   * Bytes (of JSON) the current objects may take together: past it a write that grows them fails
   * as etcd's quota does ("etcdserver: mvcc: database space exceeded"). etcd's default is 2 GiB
   * on disk; this server keeps everything in the process's heap. Default: 256 MiB.
   */
  quotaBytes?: number;
  /** Bytes the history of changes may hold (old versions of objects). Default: 128 MiB. */
  historyBytes?: number;
}

/** etcd's --max-request-bytes default: a larger object is "etcdserver: request is too large". */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;
/** kube-apiserver's gRPC client to etcd sends messages of at most 2 MiB. */
const MAX_GRPC_MESSAGE_BYTES = 2 * 1024 * 1024;

interface ResourceStore {
  readonly objects: Map<string, StoredObject>;
  /** The keys of `objects` in order. */
  readonly keys: SortedKeys;
  readonly watchers: Set<WatchSink>;
}

/** The key range of one namespace: `ns/` up to `ns0` ('0' sorts right after '/'); all keys without one. */
function rangeOf(namespace: string | undefined): { from: string; to: string | undefined } {
  return namespace ? { from: `${namespace}/`, to: `${namespace}0` } : { from: "", to: undefined };
}

/**
 * A store's objects in key order, now or as they were at an older resourceVersion (the current
 * ones with the changes since undone from the history), for lists and their pages. A page costs
 * its length plus a binary search, plus the number of changes since its resourceVersion.
 */
export interface StoreView {
  /** The resourceVersion the view shows. */
  readonly rv: number;
  /** Calls `visit` with each object after the key `after` (from the start when ""), in order, until it returns false. */
  forEach(after: string, visit: (o: StoredObject) => boolean): void;
  /** How many objects sort after `key`. */
  countAfter(key: string): number;
  /** The object under `key`, as the view shows it. */
  get(key: string): StoredObject | undefined;
}

export function objectKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** All objects of all resources. Survives a server restart when passed to the next server. */
export class Storage {
  #rv: number;
  readonly #stores = new Map<string, ResourceStore>();
  readonly #history: History;
  readonly #quotaBytes: number;
  /** Bytes of the current objects' JSON. */
  #bytes = 0;
  /** What fillOnFirstUse deferred. */
  readonly #fills = new DeferredFills();
  /** Each store's number from `#changes` at its last change (see `revision`). */
  readonly #revisions = new Map<string, number>();
  #changes = 0;
  /** What the objects' kept encodings (protobuf frames) may hold. */
  readonly #encodings = new EncodingBudget(256 * 1024 * 1024);

  constructor(opts: StorageOptions = {}) {
    this.#history = new History(opts.historySize ?? 20_000, 0, opts.historyBytes ?? 128 * 1024 * 1024);
    this.#quotaBytes = opts.quotaBytes ?? 256 * 1024 * 1024;
    this.#rv = 1;
  }

  /**
   * Runs `fill`, which writes objects a new server starts with, on the storage's first use
   * instead of now; when it names the `stores` it writes, on the first read of one of those or
   * any other use (and of one store, the `key` it writes: not on a get of another). See
   * deferred-fills.ts for why and how. Watchers added before see its events.
   */
  fillOnFirstUse(fill: () => void, stores?: readonly string[], key?: string): void {
    this.#fills.add(fill, stores, key);
  }

  /** Bytes the current objects take (their JSON), as counted against `quotaBytes`. */
  get bytes(): number {
    if (this.#fills.pending) this.#fills.before(undefined, false);
    return this.#bytes;
  }

  /** The newest resourceVersion handed out. */
  get resourceVersion(): number {
    if (this.#fills.pending) this.#fills.before(undefined, false);
    return this.#rv;
  }

  get history(): History {
    if (this.#fills.pending) this.#fills.before(undefined, false);
    return this.#history;
  }

  #store(name: string): ResourceStore {
    let s = this.#stores.get(name);
    if (!s) {
      s = { objects: new Map(), keys: new SortedKeys(), watchers: new Set() };
      this.#stores.set(name, s);
    }
    return s;
  }

  /**
   * A number that changes whenever the store's content does (a write, a delete, a redecode, a
   * drop): what is resolved from a store's objects (webhooks, admission policies) is kept until
   * it changes, rather than checked by listing the store on every request.
   */
  revision(store: string): number {
    if (this.#fills.pending) this.#fills.before(store, true);
    return this.#revisions.get(store) ?? 0;
  }

  get(store: string, key: string): StoredObject | undefined {
    if (this.#fills.pending) this.#fills.before(store, true, key);
    return this.#stores.get(store)?.objects.get(key);
  }

  /** Current objects of a store, sorted by key, optionally only one namespace's. */
  list(store: string, namespace?: string): StoredObject[] {
    if (this.#fills.pending) this.#fills.before(store, true);
    const s = this.#stores.get(store);
    if (!s) return [];
    const { from, to } = rangeOf(namespace);
    const out: StoredObject[] = [];
    s.keys.forEach(from, false, to, (key) => {
      out.push(s.objects.get(key)!);
      return true;
    });
    return out;
  }

  /**
   * The objects of a store (of one namespace) in key order as they are now, or as they were at
   * `at`; undefined when the history no longer reaches back that far.
   */
  view(store: string, namespace: string | undefined, at?: number): StoreView | undefined {
    if (this.#fills.pending) this.#fills.before(store, true);
    const rv = at ?? this.#rv; // after the fills
    if (rv < this.#rv && !this.#history.covers(rv)) return undefined;
    const s = this.#stores.get(store) ?? { objects: new Map(), keys: new SortedKeys(), watchers: new Set() };
    const { from, to } = rangeOf(namespace);
    const inRange = (key: string) => key >= from && (to === undefined || key < to);
    const countAfter = (key: string) => {
      const start = key === "" ? from : `${key}\u0000`; // the first key after `key`
      const lo = s.keys.rank(start < from ? from : start);
      return (to === undefined ? s.keys.size : s.keys.rank(to)) - lo;
    };
    if (rv >= this.#rv) {
      return {
        rv: this.#rv,
        forEach: (after, visit) =>
          s.keys.forEach(after || from, after !== "", to, (key) => visit(s.objects.get(key)!)),
        countAfter,
        get: (key) => (inRange(key) ? s.objects.get(key) : undefined),
      };
    }
    // What each key changed since `rv` held then: null when it did not exist yet.
    const then = new Map<string, StoredObject | null>();
    for (const ev of this.#history.since(rv, store)) {
      const key = ev.object.key;
      if (then.has(key) || !inRange(key)) continue;
      then.set(key, ev.type === "ADDED" ? null : (ev.prev ?? null));
    }
    // Keys deleted since `rv`: in the view, not in the index.
    const gone = [...then].filter(([k, o]) => o !== null && !s.objects.has(k)).map(([k]) => k);
    gone.sort();
    return {
      rv,
      get: (key) => {
        if (!inRange(key)) return undefined;
        const old = then.get(key);
        return old === undefined ? s.objects.get(key) : (old ?? undefined);
      },
      forEach: (after, visit) => {
        let g = after === "" ? 0 : upperBound(gone, after);
        let going = true;
        const emit = (key: string, current: StoredObject | undefined): boolean => {
          const old = then.get(key);
          const o = old === undefined ? current : old;
          return o === null || o === undefined ? true : visit(o);
        };
        s.keys.forEach(after || from, after !== "", to, (key) => {
          while (g < gone.length && gone[g]! < key) {
            if (!emit(gone[g]!, undefined)) {
              going = false;
              return false;
            }
            g++;
          }
          going = emit(key, s.objects.get(key));
          return going;
        });
        for (; going && g < gone.length; g++) if (!emit(gone[g]!, undefined)) break;
      },
      countAfter: (key) => {
        let n = countAfter(key);
        for (const [k, o] of then) {
          if (key !== "" && k <= key) continue;
          if (o === null && s.objects.has(k))
            n--; // created since: counted now, absent then
          else if (o !== null && !s.objects.has(k)) n++; // deleted since: absent now, there then
        }
        return n;
      },
    };
  }

  /** Store names that hold at least one object. */
  storeNames(): string[] {
    if (this.#fills.pending) this.#fills.before(undefined, false);
    return [...this.#stores.keys()];
  }

  count(store: string, namespace?: string): number {
    if (this.#fills.pending) this.#fills.before(store, true);
    if (!namespace) return this.#stores.get(store)?.objects.size ?? 0;
    return this.view(store, namespace)!.countAfter("");
  }

  /** Creates or replaces an object, stamping a new resourceVersion into `obj` (which it then owns). */
  put(store: string, obj: Obj): StoredObject {
    if (this.#fills.pending) this.#fills.before(store, false);
    const s = this.#store(store);
    const meta = obj.metadata as Obj;
    const namespace = (meta.namespace as string | undefined) ?? "";
    const name = meta.name as string;
    const key = objectKey(namespace, name);
    const prev = s.objects.get(key);
    meta.resourceVersion = String(this.#rv + 1);
    const json = this.#decodable(obj, stringifyJson(obj));
    this.#checkLimits(store, key, json, prev);
    const rv = ++this.#rv;
    const stored = freezeStored(this.#encodings, obj, rv, key, namespace, name, json);
    s.objects.set(key, stored);
    this.#revisions.set(store, ++this.#changes);
    this.#bytes += json.length - (prev?.json.length ?? 0);
    if (prev) StoredRecord.release(prev);
    if (!prev) s.keys.insert(key);
    this.#emit(s, store, prev ? "MODIFIED" : "ADDED", stored, prev);
    return stored;
  }

  /** Removes an object; watchers get its last state stamped with the deletion's resourceVersion. */
  remove(store: string, key: string): StoredObject | undefined {
    if (this.#fills.pending) this.#fills.before(store, false);
    const s = this.#stores.get(store);
    const prev = s?.objects.get(key);
    if (!s || !prev) return undefined;
    s.objects.delete(key);
    s.keys.delete(key);
    this.#revisions.set(store, ++this.#changes);
    this.#bytes -= prev.json.length;
    StoredRecord.release(prev);
    const rv = ++this.#rv;
    const last = JSON.parse(prev.json) as Obj;
    (last.metadata as Obj).resourceVersion = String(rv);
    const stored = freezeStored(this.#encodings, last, rv, key, prev.namespace, prev.name);
    this.#emit(s, store, "DELETED", stored, prev);
    return stored;
  }

  /**
   * Replaces an object's content without a write: the same resourceVersion, no event, no history.
   * kube decodes what etcd holds with the CRD's current schema on every read, so a default added
   * to the schema later shows on objects stored before; this is that decoding, done once.
   */
  redecode(store: string, key: string, obj: Obj): StoredObject | undefined {
    if (this.#fills.pending) this.#fills.before(store, false);
    const s = this.#stores.get(store);
    const prev = s?.objects.get(key);
    if (!s || !prev) return undefined;
    const json = stringifyJson(obj);
    const stored = freezeStored(this.#encodings, obj, prev.rv, key, prev.namespace, prev.name, json);
    s.objects.set(key, stored);
    this.#revisions.set(store, ++this.#changes);
    this.#bytes += json.length - prev.json.length;
    StoredRecord.release(prev);
    return stored;
  }

  /** Drops a whole store without events (its resource is gone, as when a CRD is deleted). */
  dropStore(store: string): void {
    if (this.#fills.pending) this.#fills.before(store, false);
    for (const o of this.#stores.get(store)?.objects.values() ?? []) this.#bytes -= o.json.length;
    this.#stores.delete(store);
    this.#revisions.set(store, ++this.#changes);
  }

  /** What etcd (and the gRPC client before it) would refuse, with their words. */
  /**
   * What kube-apiserver can read back from etcd: its decoders stop past 10 000 levels. An entry
   * of managedFields that deep could not be set on the object at all (kube's field manager then
   * drops them all, UpdateNoErrors); an object still too deep is one kube stores and then cannot
   * decode, answering 500 "object not decodable". Here it is refused with that answer and not
   * stored (kube keeps it, and its list answers 500 from then on).
   */
  #decodable(obj: Obj, json: string): string {
    if (!jsonDepthCrossing(json)) return json;
    const meta = obj.metadata as Obj;
    const managed = meta.managedFields;
    if (
      Array.isArray(managed) &&
      managed.some((e) => jsonDepth((e as Obj | undefined)?.fieldsV1) > KUBE_MAX_DEPTH)
    ) {
      delete meta.managedFields;
      json = stringifyJson(obj);
    }
    const crossing = jsonDepthCrossing(json);
    if (crossing) {
      throw new StorageLimitError(
        `object not decodable revision=${this.#rv + 1}: invalid character '${crossing.bracket}' exceeded max depth`,
      );
    }
    return json;
  }

  #checkLimits(store: string, key: string, json: string, prev: StoredObject | undefined): void {
    // JSON of ASCII text is one byte a character; count exactly only when it may matter.
    const size = json.length > MAX_OBJECT_BYTES / 4 ? Buffer.byteLength(json) : json.length;
    // etcd's request: the key (/registry/<group>/<resource>/<namespace>/<name>) and the value.
    const request = size + `/registry/${store}/${key}`.length;
    if (request > MAX_GRPC_MESSAGE_BYTES) {
      throw new StorageLimitError(
        `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${request + 24} vs. ${MAX_GRPC_MESSAGE_BYTES})`,
      );
    }
    if (request > MAX_OBJECT_BYTES) throw new StorageLimitError("etcdserver: request is too large");
    const growth = json.length - (prev?.json.length ?? 0);
    if (growth > 0 && this.#bytes + growth > this.#quotaBytes) {
      throw new StorageLimitError("etcdserver: mvcc: database space exceeded");
    }
  }

  #emit(s: ResourceStore, store: string, type: EventType, object: StoredObject, prev?: StoredObject): void {
    const ev: StoredEvent = { type, rv: object.rv, store, object, prev, at: Date.now(), lines: undefined };
    this.#history.push(ev);
    for (const w of s.watchers) w.deliver(ev);
    ev.lines = undefined;
  }

  addWatcher(store: string, sink: WatchSink): void {
    this.#store(store).watchers.add(sink);
  }

  removeWatcher(store: string, sink: WatchSink): void {
    this.#stores.get(store)?.watchers.delete(sink);
  }

  watcherCount(store: string): number {
    return this.#stores.get(store)?.watchers.size ?? 0;
  }
}

function freezeStored(
  budget: EncodingBudget,
  obj: Obj,
  rv: number,
  key: string,
  namespace: string,
  name: string,
  json = stringifyJson(obj),
): StoredObject {
  shareCommonTrees(obj);
  shareLongStrings(obj, json);
  deepFreeze(obj);
  return new StoredRecord(obj, json, rv, key, namespace, name, budget);
}

/** Strings at least this long are worth sharing with the JSON (V8 slices from 13 characters). */
const SHARED_STRING_MIN = 64;
/** Nesting walked by recursion before the walk starts over with an explicit stack. */
const SHARED_WALK_DEPTH = 500;

/** The JSON a walk of shareLongStrings shares strings with, and where it is in it. */
interface Sharing {
  readonly json: string;
  cursor: number;
}

/**
 * `v` (at least SHARED_STRING_MIN long) as a slice of the JSON after the cursor. Any place with
 * the same characters will do (a value with escapes is written otherwise there, and is not
 * found): the value is searched for as it is, without quoting it first, which cost a copy of
 * every long value on every write.
 */
function sharedSlice(s: Sharing, v: string): string {
  const at = s.json.indexOf(v, s.cursor);
  if (at < 0) return v;
  s.cursor = at + v.length;
  return s.json.slice(at, at + v.length);
}

/**
 * Ordinary objects by recursion (no stack entries, no key lists, no closures: this runs on every
 * write); false for one nested past SHARED_WALK_DEPTH, which shareLongStrings walks again with an
 * explicit stack, from the start (a value shared already is found again: sharing twice changes
 * nothing). Short strings are not written back.
 */
function walkShared(s: Sharing, node: unknown, depth: number): boolean {
  if (typeof node !== "object" || node === null || Object.isFrozen(node)) return true; // stored before: left as it is
  if (depth > SHARED_WALK_DEPTH) return false;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const v: unknown = node[i];
      if (typeof v === "string") {
        if (v.length >= SHARED_STRING_MIN) node[i] = sharedSlice(s, v);
      } else if (!walkShared(s, v, depth + 1)) return false;
    }
    return true;
  }
  const container = node as Record<string, unknown>;
  // for...in is Object.keys' order here: JSON objects have no inherited enumerable keys.
  for (const k in container) {
    const v = container[k];
    if (typeof v === "string") {
      if (v.length >= SHARED_STRING_MIN) container[k] = sharedSlice(s, v);
    } else if (!walkShared(s, v, depth + 1)) return false;
  }
  return true;
}

/**
 * Makes the object's long string values (ConfigMap data, last-applied annotations, ...) slices
 * of its JSON, which holds the same characters: V8 keeps a slice of a flat string as a pointer
 * into it, so each long value is stored once instead of twice. Walks in JSON.stringify's order
 * with a cursor into the JSON; a value whose JSON form needs escapes is left as it is.
 */
function shareLongStrings(obj: Obj, json: string): void {
  const sharing: Sharing = { json, cursor: 0 };
  if (walkShared(sharing, obj, 0)) return;
  sharing.cursor = 0;
  const shared = (v: string) => (v.length < SHARED_STRING_MIN ? v : sharedSlice(sharing, v));
  // An explicit stack of the containers being walked, each with its next member: the order is
  // JSON.stringify's, and objects may nest 10 000 levels deep.
  const stack: { node: Obj | unknown[]; keys: (string | number)[]; i: number }[] = [];
  const enter = (node: unknown) => {
    if (typeof node !== "object" || node === null || Object.isFrozen(node)) return; // stored before: left as it is
    const keys = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    stack.push({ node: node as Obj, keys, i: 0 });
  };
  enter(obj);
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i >= top.keys.length) {
      stack.pop();
      continue;
    }
    const k = top.keys[top.i++];
    const container = top.node as Record<string | number, unknown>;
    const v = container[k];
    if (typeof v === "string") container[k] = shared(v);
    else enter(v);
  }
}
