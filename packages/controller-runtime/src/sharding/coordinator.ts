// The ring's membership and its coordinator. Every replica watches the members' Leases and
// computes the ring from them (`ring`, `onChange`): a replica whose object the ring now puts on
// another live member hands it over itself, after any reconcile of it (hand-over.ts) — one
// write per moved object, started as soon as its holder sees the new Lease, with no trip through
// a coordinator and no mark for the holder to acknowledge first.
//
// One replica at a time (its own Lease election) also coordinates: it assigns the objects of the
// sharded kinds that have no shard yet to the live members by consistent hashing, writing the
// assignment as a label, and takes over the objects whose shard is gone — its Lease released, or
// not renewed for leaseDuration as this coordinator observed it (clock skew between replicas does
// not matter). The gone shard stopped its reconciles when it missed its renew deadline, before
// that. It watches only the Leases and the objects with no shard, and lists only the objects
// whose shard is not a live member, so its work follows churn, not the number of objects. That
// list runs on every membership change and every leaseDuration: an object its holder handed to a
// member that died meanwhile (or that the coordinator never saw alive) is not left behind.
//
// Every write is conditional on the resourceVersion the decision was made from: a decision made
// on a stale view fails with a conflict and is made again from a newer one.
import { setMaxListeners } from "node:events";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import type { Counter } from "prom-client";
import { type Kind, type KubeObject, kinds } from "../api/index.js";
import { deletedObject, newInformer, type StoreReader } from "../cache/index.js";
import type { Logger } from "../log/index.js";
import {
  ACCEPT_PARTIAL_METADATA,
  ACCEPT_PARTIAL_METADATA_LIST,
  isConflict,
  isNotFound,
  type RESTClient,
  resourceOf,
} from "../rest/index.js";
import { HashRing } from "./hash-ring.js";
import { drainLabel, labelsOf, RING_LABEL, shardLabel } from "./labels.js";
import type { DeepReadonly } from "../api/index.js";

/** A sharded kind: its objects hash by their own key, or (owned kinds) by their controller owner's. */
export interface ShardedKind {
  kind: Kind;
  /** For an owned kind: the kind whose controller ownerReference decides its shard. */
  owner?: Kind;
}

export interface CoordinatorOptions {
  rest: RESTClient;
  ring: string;
  /** Where the members' Leases live. */
  leaseNamespace: string;
  /** The namespaces whose objects are sharded; empty: all. */
  namespaces: readonly string[];
  leaseDurationMs: number;
  retryPeriodMs: number;
  kinds: () => readonly ShardedKind[];
  logger: Logger;
  metrics: { assignments: Counter<"ring" | "shard">; moves: Counter<"ring" | "reason"> };
  /**
   * Writes in flight at once. A replica that leaves or is cut off leaves about 1/N of every
   * sharded object to reassign, each by a conditional patch: at 10 000 objects, 4 at a time took
   * seconds of round trips more than the server needed. Default: 16.
   */
  concurrency?: number;
}

interface Member {
  renewTime: string | undefined;
  holder: string;
  /** When this coordinator last saw the Lease renewed (performance.now()). */
  seenAt: number;
  /** Not renewed for leaseDuration, as a fresh read of the Lease confirmed. */
  expired?: boolean;
}

/** The key an object is hashed by: its own, or its controller owner's for an owned kind. */
export function hashKey(k: ShardedKind, obj: DeepReadonly<KubeObject>): string {
  const ns = obj.metadata?.namespace ?? "";
  const owner = k.owner;
  if (owner) {
    const ref = (obj.metadata?.ownerReferences ?? []).find(
      (r) => r.controller === true && r.kind === owner.kind && groupOf(r.apiVersion) === owner.group,
    );
    if (ref) return `${owner.group}/${owner.kind}/${ns}/${ref.name}`;
  }
  return `${k.kind.group}/${k.kind.kind}/${ns}/${obj.metadata?.name ?? ""}`;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

export class Coordinator {
  readonly #o: CoordinatorOptions;
  readonly #members = new Map<string, Member>();
  #ring = new HashRing([]);
  /**
   * The queue: the latest task per key, run in the order the keys came. Keys in `#order`, read
   * from `#head`: taking the first entry of the Map after thousands were deleted from its front
   * walked over their holes each time.
   */
  readonly #pending = new Map<string, () => Promise<void>>();
  #order: string[] = [];
  #head = 0;
  /** Per sharded kind, the informer of its unassigned objects (this term's). */
  #unassigned: { k: ShardedKind; store: StoreReader }[] = [];
  #waiters: (() => void)[] = [];

  constructor(o: CoordinatorOptions) {
    this.#o = o;
  }

  /** Objects of the sharded kinds that have no shard yet, as this term sees them (0 when not coordinating). */
  get unassigned(): number {
    return this.#unassigned.reduce((n, u) => n + u.store.size, 0);
  }

  /** The members this replica counts as alive now. */
  get members(): readonly string[] {
    return this.#ring.members;
  }

  /** The ring of the live members, once the Leases were listed (undefined before). */
  get ring(): HashRing | undefined {
    return this.#synced ? this.#ring : undefined;
  }

  #synced = false;
  #expiryTimer: NodeJS.Timeout | undefined;
  readonly #listeners: ((ring: HashRing) => void)[] = [];

  /** Calls `listener` with the new ring whenever the live members change. */
  onChange(listener: (ring: HashRing) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Watches the ring's Leases until `signal` aborts, on every replica and not only while it
   * coordinates: a replica that becomes the coordinator because the last one was cut off knows
   * already since when each Lease went unrenewed. Seeing them anew at the start of its term made
   * it wait a second leaseDuration before it took the cut-off replica's objects over. Resolves
   * when the watch ends.
   */
  async observe(signal: AbortSignal): Promise<void> {
    const o = this.#o;
    const leases = newInformer<Lease>(o.rest, kinds.Lease, {
      namespaces: [o.leaseNamespace],
      labelSelector: `${RING_LABEL}=${o.ring}`,
      logger: o.logger,
    });
    leases.addEventHandler({
      onAdd: (l) => this.#observe(l),
      onUpdate: (_, l) => this.#observe(l),
      onDelete: (l) => {
        this.#members.delete(deletedObject(l).metadata?.name ?? "");
        this.#recompute();
      },
    });
    this.#leases = leases;
    const running = leases.run(signal);
    void leases.waitForSync(signal).then((synced) => {
      if (!synced) return;
      this.#synced = true;
      this.#recompute(true);
    });
    // Members whose Lease went unrenewed show only when someone looks: their Leases stay as they are.
    const tick = setInterval(() => this.#recompute(), o.retryPeriodMs);
    try {
      await running;
    } finally {
      clearInterval(tick);
      clearTimeout(this.#expiryTimer);
      this.#synced = false;
    }
  }

  #leases: { waitForSync(signal?: AbortSignal): Promise<boolean> } | undefined;
  /** Set while this replica coordinates: membership changes move objects only then. */
  #leading: AbortSignal | undefined;

  /** Coordinates until `leading` aborts (this replica stopped being the coordinator). */
  async run(leading: AbortSignal): Promise<void> {
    const o = this.#o;
    const leases = this.#leases;
    if (!leases) throw new Error("sharding: the coordinator runs only while it observes the ring's Leases");
    // An informer per sharded kind listens on `leading`: more than Node's default warning
    // threshold (10) with many kinds, though none leaks.
    setMaxListeners(100, leading);
    const running: Promise<void>[] = [];
    this.#unassigned = [];
    for (const k of o.kinds()) {
      const unassigned = newInformer(o.rest, k.kind, {
        namespaces: o.namespaces,
        labelSelector: `!${shardLabel(o.ring)}`,
        metadataOnly: true,
        logger: o.logger,
      });
      const assign = (obj: DeepReadonly<KubeObject>) => this.#enqueue(k, obj, () => this.#decide(k, obj));
      unassigned.addEventHandler({ onAdd: assign, onUpdate: (_, obj) => assign(obj) });
      this.#unassigned.push({ k, store: unassigned.store });
      running.push(unassigned.run(leading));
    }
    // The orphans' list again every leaseDuration: see the top of this file.
    const sweep = setInterval(() => {
      if (this.#ring.members.length > 0) this.#enqueue(undefined, undefined, () => this.#rebalance());
    }, o.leaseDurationMs);
    try {
      await leases.waitForSync(leading);
      this.#leading = leading;
      this.#recompute(true);
      await this.#work(leading);
    } finally {
      this.#leading = undefined;
      clearInterval(sweep);
      await Promise.allSettled(running);
      this.#unassigned = [];
      this.#pending.clear();
      this.#order = [];
      this.#head = 0;
    }
  }

  #observe(l: DeepReadonly<Lease>): void {
    const name = l.metadata?.name ?? "";
    const renewTime = l.spec?.renewTime ?? undefined;
    const holder = l.spec?.holderIdentity ?? "";
    const known = this.#members.get(name);
    const seenAt =
      known && known.renewTime === renewTime && known.holder === holder ? known.seenAt : performance.now();
    this.#members.set(name, { renewTime, holder, seenAt });
    this.#recompute();
  }

  readonly #confirming = new Set<string>();

  /** Reads the Lease `name`: renewed since, it is observed; else `m` is marked expired. */
  async #confirmExpiry(name: string, m: Member): Promise<void> {
    if (this.#confirming.has(name)) return;
    this.#confirming.add(name);
    try {
      const lease = await this.#o.rest.get<Lease>(resourceOf(kinds.Lease), name, {
        namespace: this.#o.leaseNamespace,
      });
      if (this.#members.get(name) !== m) return;
      if (
        (lease.spec?.renewTime ?? undefined) !== m.renewTime ||
        (lease.spec?.holderIdentity ?? "") !== m.holder
      ) {
        this.#observe(lease);
      } else {
        m.expired = true;
        this.#recompute();
      }
    } catch (err) {
      if (isNotFound(err)) {
        this.#members.delete(name);
        this.#recompute();
      } else this.#o.logger.error(err, "sharding: reading a member's Lease failed", { lease: name });
    } finally {
      this.#confirming.delete(name);
    }
  }

  /**
   * Rebuilds the ring from the live members; on a change tells the listeners, and (or on `force`)
   * the coordinating replica moves what must move.
   */
  #recompute(force = false): void {
    if (!this.#synced) return;
    const now = performance.now();
    let nextExpiry = Number.POSITIVE_INFINITY;
    const alive = [...this.#members.entries()]
      .filter(([name, m]) => m.holder !== "" && name === `${this.#o.ring}-${m.holder}`)
      .filter(([name, m]) => {
        if (now - m.seenAt < this.#o.leaseDurationMs) {
          nextExpiry = Math.min(nextExpiry, m.seenAt + this.#o.leaseDurationMs);
          return true;
        }
        // Seemingly expired: a watch that lags would make a live member look so. Read the Lease
        // before giving its objects away; alive until the read says otherwise.
        if (!m.expired) void this.#confirmExpiry(name, m);
        return !m.expired;
      })
      .map(([, m]) => m.holder)
      .sort();
    // Looked at again the moment the first Lease would expire, not up to a retry period later.
    clearTimeout(this.#expiryTimer);
    if (nextExpiry < Number.POSITIVE_INFINITY)
      this.#expiryTimer = setTimeout(() => this.#recompute(), nextExpiry - now + 1).unref();
    const same =
      alive.length === this.#ring.members.length && alive.every((m, i) => m === this.#ring.members[i]);
    if (!same) {
      this.#o.logger.info("ring membership", { ring: this.#o.ring, members: alive });
      this.#ring = new HashRing(alive);
      for (const listener of this.#listeners) listener(this.#ring);
    } else if (!force) return;
    // Between terms only the ring is kept.
    if (!this.#leading || this.#leading.aborted) return;
    this.#enqueue(undefined, undefined, () => this.#rebalance());
  }

  /**
   * Lists the objects of every kind whose shard is not a live member and reassigns them; and
   * assigns the unassigned ones again: one seen while the ring had no members was left as it was,
   * and no event of its own would bring it back. Objects on live members are their holders' to
   * move (hand-over.ts).
   */
  async #rebalance(): Promise<void> {
    const o = this.#o;
    const label = shardLabel(o.ring);
    for (const { k, store } of this.#unassigned) {
      for (const obj of store.list()) this.#enqueue(k, obj, () => this.#decide(k, obj));
    }
    const members = this.#ring.members;
    // No one to give them to: they stay until someone joins.
    if (members.length === 0) return;
    const orphans = `${label},${label} notin (${members.join(",")})`;
    for (const k of o.kinds()) {
      const scopes = k.kind.namespaced && o.namespaces.length > 0 ? o.namespaces : [undefined];
      for (const namespace of scopes) {
        // Metadata only: labels, owners and versions are all a decision reads, and a move's
        // round trips carry no spec or data either (their answers are metadata only too).
        const list = await o.rest.list(resourceOf(k.kind), {
          namespace,
          labelSelector: orphans,
          accept: ACCEPT_PARTIAL_METADATA_LIST,
        });
        for (const obj of list.items) this.#enqueue(k, obj, () => this.#decide(k, obj));
      }
    }
  }

  /**
   * Puts `obj` where the ring says: assigns it when it has no shard, reassigns it when its shard
   * is gone; one whose shard is alive is left to it (it hands the object over itself). A decision
   * made on a version that changed since is made again on the current one: this coordinator
   * watches only unassigned objects, so no event would bring an assigned one back.
   */
  async #decide(k: ShardedKind, first: DeepReadonly<KubeObject>): Promise<void> {
    const ring = this.#o.ring;
    const m = this.#o.metrics;
    let obj: DeepReadonly<KubeObject> | undefined = first;
    for (let attempt = 0; obj && attempt < 5; attempt++) {
      const labels = labelsOf(obj);
      const from = labels[shardLabel(ring)];
      const to = this.#ring.owner(hashKey(k, obj));
      if (!to) return;
      const drain = labels[drainLabel(ring)];
      let written: boolean;
      if (from === to) {
        // Where it belongs; a drain marked for a ring that changed since is called off, or its
        // shard would send it where it no longer belongs.
        if (drain === undefined) return;
        written = await this.#label(k, obj, { [drainLabel(ring)]: null });
      } else if (from === undefined) {
        written = await this.#label(k, obj, { [shardLabel(ring)]: to, [drainLabel(ring)]: null });
        if (written) m.assignments.inc({ ring, shard: to });
      } else if (this.#ring.members.includes(from)) {
        // Its shard is alive: it hands the object to `to` after any reconcile of it (a drain mark
        // of earlier versions, too).
        return;
      } else {
        written = await this.#label(k, obj, { [shardLabel(ring)]: to, [drainLabel(ring)]: null });
        if (written) {
          m.moves.inc({ ring, reason: "takeover" });
          m.assignments.inc({ ring, shard: to });
        }
      }
      if (written) return;
      obj = await this.#current(k, obj);
    }
  }

  /** The object as the server has it now, or undefined when it is gone. */
  async #current(
    k: ShardedKind,
    obj: DeepReadonly<KubeObject>,
  ): Promise<DeepReadonly<KubeObject> | undefined> {
    try {
      return await this.#o.rest.get(resourceOf(k.kind), obj.metadata?.name ?? "", {
        namespace: obj.metadata?.namespace,
        accept: ACCEPT_PARTIAL_METADATA,
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Writes `labels` (null removes) if the object is still the version the decision was made on;
   * false when it changed since, or is gone.
   */
  async #label(
    k: ShardedKind,
    obj: DeepReadonly<KubeObject>,
    labels: Record<string, string | null>,
  ): Promise<boolean> {
    const meta = obj.metadata ?? {};
    try {
      await this.#o.rest.patch(
        resourceOf(k.kind),
        meta.name ?? "",
        { metadata: { resourceVersion: meta.resourceVersion, labels } },
        { namespace: meta.namespace, patchType: "merge", accept: ACCEPT_PARTIAL_METADATA },
      );
      return true;
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return false;
      throw err;
    }
  }

  /** Queues `task` for the object (the latest task per object wins); undefined `k`: a rebalance. */
  #enqueue(
    k: ShardedKind | undefined,
    obj: DeepReadonly<KubeObject> | undefined,
    task: () => Promise<void>,
  ): void {
    const key = k
      ? `${k.kind.group}/${k.kind.kind}/${obj?.metadata?.namespace ?? ""}/${obj?.metadata?.name}`
      : "";
    if (!this.#pending.has(key)) this.#order.push(key);
    this.#pending.set(key, task);
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** The next queued task, oldest key first, taken off the queue. */
  #next(): [string, () => Promise<void>] | undefined {
    while (this.#head < this.#order.length) {
      const key = this.#order[this.#head++] as string;
      const task = this.#pending.get(key);
      if (task === undefined) continue;
      this.#pending.delete(key);
      if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
        this.#order = this.#order.slice(this.#head);
        this.#head = 0;
      }
      return [key, task];
    }
    this.#order = [];
    this.#head = 0;
    return undefined;
  }

  /** Runs queued tasks, `concurrency` at a time, until `leading` aborts; a failed task is retried later. */
  async #work(leading: AbortSignal): Promise<void> {
    const stopped = new Promise<void>((resolve) =>
      leading.addEventListener("abort", () => resolve(), { once: true }),
    );
    const workers = Array.from({ length: this.#o.concurrency ?? 16 }, async () => {
      while (!leading.aborted) {
        const next = this.#next();
        if (next === undefined) {
          await Promise.race([stopped, new Promise<void>((resolve) => this.#waiters.push(resolve))]);
          continue;
        }
        const [key, task] = next;
        try {
          await task();
        } catch (err) {
          if (leading.aborted) return;
          this.#o.logger.error(err, "sharding: a coordinator write failed; retrying", { object: key });
          await Promise.race([stopped, new Promise((r) => setTimeout(r, this.#o.retryPeriodMs))]);
          if (!this.#pending.has(key)) {
            this.#pending.set(key, task);
            this.#order.push(key);
          }
        }
      }
    });
    await Promise.all(workers);
  }
}
