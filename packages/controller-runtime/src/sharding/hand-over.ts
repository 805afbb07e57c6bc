// A replica's side of a move: when the ring puts one of its objects on another live member, the
// replica hands it over itself, by one conditional label patch written after any reconcile of it
// ended. The coordinator is not involved: at 10 000 objects a join used to cost two writes per
// moved object (the coordinator's drain mark, then the holder's answer) with the holder waiting
// for the mark's event before it could answer; half the writes, and none of the waiting.
//
// No two replicas reconcile an object at once: the holder stops starting reconciles of an object
// the moment it decides to hand it over, waits for the one running (if any), and only then writes
// the new shard, conditional on the version it decided from. Its cache may still show that
// version as its own for a while after; that version is remembered and not reconciled again.
import type { DeepReadonly, Kind, KubeObject } from "../api/index.js";
import type { Cache } from "../cache/index.js";
import type { Logger } from "../log/index.js";
import {
  ACCEPT_PARTIAL_METADATA,
  isConflict,
  isInvalid,
  isNotFound,
  type RESTClient,
  resourceOf,
} from "../rest/index.js";
import { hashKey, type ShardedKind } from "./coordinator.js";
import type { HashRing } from "./hash-ring.js";
import { labelsOf, pointer, shardLabel } from "./labels.js";

export interface HandOverOptions {
  ring: string;
  identity: string;
  cache: () => Cache | undefined;
  rest: RESTClient;
  /** The ring of the live members as this replica sees them; undefined until the Leases were listed. */
  members: () => HashRing | undefined;
  kinds: () => readonly ShardedKind[];
  logger: Logger;
  onHandedOver: () => void;
  /**
   * Hand-overs in flight at once, per replica. Default: 16. At 10 000 objects on a loaded
   * machine 4 took 2 to 3 times as long as 16 (each holder's round trips, not the server's work,
   * set the pace).
   */
  concurrency?: number;
}

export const objectKey = (kind: Kind, namespace: string | undefined, name: string) =>
  `${kind.group}/${kind.kind}/${namespace ?? ""}/${name}`;

export class HandOver {
  readonly #o: HandOverOptions;
  /** Objects whose reconcile runs now, with whoever waits for it to end. */
  readonly #reconciling = new Map<string, (() => void)[]>();
  /** Objects being handed over: no reconcile of them starts. */
  readonly #leaving = new Set<string>();
  /** Objects handed over, by the version this replica's cache may still show as its own. */
  readonly #away = new Map<string, string>();
  readonly #queue: (() => Promise<void>)[] = [];
  #running = 0;
  /** Set while this replica holds its place: hand-overs happen only then. */
  #held: AbortSignal | undefined;

  constructor(o: HandOverOptions) {
    this.#o = o;
  }

  /** This replica holds its place until `held` aborts: what the ring gave away goes now. */
  start(held: AbortSignal): void {
    this.#held = held;
    held.addEventListener(
      "abort",
      () => {
        if (this.#held !== held) return;
        this.#held = undefined;
        this.#queue.length = 0;
        this.#leaving.clear();
        this.#away.clear();
      },
      { once: true },
    );
    void this.sweep();
  }

  /**
   * Hands over every cached object the ring now puts elsewhere (after a membership change).
   * Objects of owned kinds too: they follow their owner, and none is reconciled by its own key.
   */
  async sweep(): Promise<void> {
    const held = this.#held;
    const cache = this.#o.cache();
    if (!held || held.aborted || !cache) return;
    for (const k of this.#o.kinds()) {
      const list = await cache.list(k.kind).catch(() => undefined);
      if (!list || held.aborted) return;
      const present = new Set<string>();
      for (const obj of list.items) {
        const key = objectKey(k.kind, obj.metadata?.namespace, obj.metadata?.name ?? "");
        present.add(key);
        const to = this.elsewhere(k, obj);
        if (to !== undefined) this.handOver(k, obj, key, to);
      }
      for (const key of this.#away.keys())
        if (key.startsWith(`${k.kind.group}/${k.kind.kind}/`) && !present.has(key)) this.#away.delete(key);
    }
  }

  /**
   * The live member the ring puts `obj` on when that is not this replica and the object is this
   * replica's; undefined when it stays (or the ring is not known yet, or does not count this
   * replica in: the label decides then, as it did).
   */
  elsewhere(k: ShardedKind, obj: DeepReadonly<KubeObject>): string | undefined {
    if (labelsOf(obj)[shardLabel(this.#o.ring)] !== this.#o.identity) return undefined;
    const ring = this.#o.members();
    if (!ring?.members.includes(this.#o.identity)) return undefined;
    const to = ring.owner(hashKey(k, obj));
    return to === this.#o.identity ? undefined : to;
  }

  /**
   * Runs `reconcile` for this replica's `obj` unless it is leaving or left: then, or when the ring
   * puts it elsewhere now, it is handed over instead.
   */
  async reconcile(
    k: ShardedKind,
    obj: DeepReadonly<KubeObject>,
    reconcile: () => Promise<void>,
  ): Promise<void> {
    const key = objectKey(k.kind, obj.metadata?.namespace, obj.metadata?.name ?? "");
    if (this.#leaving.has(key)) return;
    const away = this.#away.get(key);
    if (away !== undefined) {
      if (away === obj.metadata?.resourceVersion) return;
      // A newer version labelled with this replica: given back since.
      this.#away.delete(key);
    }
    const to = this.elsewhere(k, obj);
    if (to !== undefined) {
      this.handOver(k, obj, key, to);
      return;
    }
    this.#reconciling.set(key, []);
    try {
      await reconcile();
    } finally {
      const waiters = this.#reconciling.get(key) ?? [];
      this.#reconciling.delete(key);
      for (const wake of waiters) wake();
    }
  }

  /** The object left this replica's cache: what was remembered of it is no longer needed. */
  gone(kind: Kind, namespace: string | undefined, name: string): void {
    this.#away.delete(objectKey(kind, namespace, name));
  }

  /** Queues the hand-over of `obj` to `to`; no reconcile of it starts from now on. */
  handOver(k: ShardedKind, obj: DeepReadonly<KubeObject>, key: string, to: string): void {
    const held = this.#held;
    if (!held || held.aborted || this.#leaving.has(key)) return;
    this.#leaving.add(key);
    this.#queue.push(async () => {
      try {
        await this.#idle(key);
        if (held.aborted) return;
        if (await this.#write(k, obj, to, held)) this.#away.set(key, obj.metadata?.resourceVersion ?? "");
      } finally {
        if (this.#held === held) this.#leaving.delete(key);
      }
    });
    this.#pump();
  }

  #pump(): void {
    const limit = this.#o.concurrency ?? 16;
    while (this.#running < limit && this.#queue.length > 0) {
      const task = this.#queue.shift() as () => Promise<void>;
      this.#running++;
      void task()
        .catch((err: unknown) => {
          this.#o.logger.error(err, "sharding: handing an object over failed; trying again");
          // No event of its own need come: look over this replica's objects again in a while.
          setTimeout(() => void this.sweep(), 1_000).unref();
        })
        .finally(() => {
          this.#running--;
          this.#pump();
        });
    }
  }

  /** Resolves once no reconcile of `key` runs. */
  #idle(key: string): Promise<void> {
    const waiters = this.#reconciling.get(key);
    if (!waiters) return Promise.resolve();
    return new Promise((resolve) => waiters.push(resolve));
  }

  /**
   * Writes `to` as the object's shard if it is still the version the decision was made on and
   * this replica's; false when it changed since (its own event brings it back) or is gone.
   */
  async #write(
    k: ShardedKind,
    obj: DeepReadonly<KubeObject>,
    to: string,
    held: AbortSignal,
  ): Promise<boolean> {
    const meta = obj.metadata ?? {};
    const shard = shardLabel(this.#o.ring);
    try {
      await this.#o.rest.patch(
        resourceOf(k.kind),
        meta.name ?? "",
        [
          { op: "test", path: "/metadata/resourceVersion", value: meta.resourceVersion },
          { op: "test", path: pointer(shard), value: this.#o.identity },
          { op: "replace", path: pointer(shard), value: to },
        ],
        // Its answer, metadata only: nothing here reads it, and a move is one of thousands.
        { namespace: meta.namespace, patchType: "json", signal: held, accept: ACCEPT_PARTIAL_METADATA },
      );
      this.#o.onHandedOver();
      return true;
    } catch (err) {
      if (isInvalid(err) || isNotFound(err) || isConflict(err) || held.aborted) return false;
      throw err;
    }
  }
}
