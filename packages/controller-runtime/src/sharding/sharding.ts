// A Manager's part in a ring of replicas that share the objects of sharded controllers (issue 16).
// Every replica holds its own Lease `<ring>-<identity>` (labelled with the ring) and runs its
// sharded controllers only while it holds it; one replica at a time also coordinates (its own
// election on the Lease `<ring>-coordinator`). The Manager's cache selects, for each sharded kind,
// only the objects labelled with this replica's identity, so each replica holds about 1/N of them.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { Counter, Gauge, type Registry } from "prom-client";
import type { GroupVersionKind, Kind } from "../api/index.js";
import type { Cache } from "../cache/index.js";
import {
  LeaderElectionLostError,
  type LeaderElector,
  newLeaderElector,
  newLeaseLock,
} from "../leaderelection/index.js";
import type { Logger } from "../log/index.js";
import type { Reconciler, Request } from "../reconcile/index.js";
import type { RESTClient } from "../rest/index.js";
import { Coordinator, type ShardedKind } from "./coordinator.js";
import { HandOver } from "./hand-over.js";
import { namingError, RING_LABEL, shardLabel } from "./labels.js";
import { shardedReconciler } from "./shard-reconciler.js";

export interface ShardingOptions {
  /** The ring's name: in its Leases' names and the objects' shard label. Required. */
  ring: string;
  /** This replica's name in the ring (a DNS label). Default: the host name and a random suffix. */
  identity?: string;
  /** How long a member's Lease lasts unrenewed before its objects are taken over. Default: the Manager's leaseDurationMs. */
  leaseDurationMs?: number;
  /** How long a member keeps trying to renew before it stops its sharded controllers. Default: the Manager's renewDeadlineMs. */
  renewDeadlineMs?: number;
  /** How often Leases are renewed and membership rechecked. Default: the Manager's retryPeriodMs. */
  retryPeriodMs?: number;
  /** Namespace of the ring's Leases. Default: the Manager's leaderElectionNamespace. */
  namespace?: string;
}

export interface ResolvedShardingOptions {
  ring: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  namespace: string;
}

/** The defaults filled in, and the names checked (a TypeError says what is wrong). */
export function resolveShardingOptions(
  o: ShardingOptions,
  defaults: Omit<ResolvedShardingOptions, "ring" | "identity">,
): ResolvedShardingOptions {
  const identity = o.identity ?? defaultShardIdentity();
  const error = namingError(o.ring, identity);
  if (error) throw new TypeError(error);
  return {
    ring: o.ring,
    identity,
    leaseDurationMs: o.leaseDurationMs ?? defaults.leaseDurationMs,
    renewDeadlineMs: o.renewDeadlineMs ?? defaults.renewDeadlineMs,
    retryPeriodMs: o.retryPeriodMs ?? defaults.retryPeriodMs,
    namespace: o.namespace ?? defaults.namespace,
  };
}

function defaultShardIdentity(): string {
  const host = hostname()
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
  return `${host || "replica"}-${randomBytes(4).toString("hex")}`;
}

/**
 * This replica lost its place in the ring: its membership Lease was not renewed in time (cut off
 * from the API server, or too busy), and another replica may already hold its objects. Its sharded
 * controllers stopped and its Manager stops with this error; the process must start again to
 * rejoin, as a Pod of a Deployment or StatefulSet does.
 */
export class ShardMembershipLostError extends Error {
  override readonly name = "ShardMembershipLostError";
  readonly code = "ERR_SHARD_MEMBERSHIP_LOST";
}

/** What the builder needs to make a sharded controller (the Manager's `sharding`). */
export interface ShardedControllers {
  readonly ring: string;
  readonly identity: string;
  /** Shards `kind` and the kinds it owns (which follow their controller owner's shard). */
  register(kind: Kind, owned: readonly Kind[]): void;
  /** `inner`, called only for objects this replica holds; one the ring puts elsewhere is handed over instead. */
  reconciler(kind: Kind, inner: Reconciler<Request>): Reconciler<Request>;
  /** Runs `runnable` while this replica holds its Lease in the ring. */
  add(runnable: { start(signal: AbortSignal): Promise<void> }): void;
}

const gvkKey = (k: GroupVersionKind) => `${k.group}/${k.version}/${k.kind}`;

export class Sharding {
  readonly o: ResolvedShardingOptions;
  readonly #kinds = new Map<string, ShardedKind>();
  readonly #rest: RESTClient;
  readonly #log: Logger;
  readonly #namespaces: readonly string[];
  readonly #metrics: ReturnType<typeof shardingMetrics>;
  #cache: Cache | undefined;
  #coordinator: Coordinator | undefined;
  readonly #handOver: HandOver;

  constructor(
    o: ResolvedShardingOptions,
    deps: { rest: RESTClient; logger: Logger; registry: Registry; namespaces: readonly string[] },
  ) {
    this.o = o;
    this.#rest = deps.rest;
    this.#log = deps.logger.withName("sharding").withValues({ ring: o.ring, shard: o.identity });
    this.#namespaces = deps.namespaces;
    this.#metrics = shardingMetrics(
      deps.registry,
      { ring: o.ring, shard: o.identity },
      () => this.#countObjects(),
      () => this.#coordinator?.unassigned ?? 0,
    );
    this.#handOver = new HandOver({
      ring: o.ring,
      identity: o.identity,
      cache: () => this.#cache,
      rest: this.#rest,
      members: () => this.#coordinator?.ring,
      kinds: () => [...this.#kinds.values()],
      logger: this.#log.withName("hand-over"),
      onHandedOver: () => this.#metrics.drains.inc({ ring: o.ring, shard: o.identity }),
    });
  }

  /** The cache this replica's objects are read from (the Manager's), for the reconciler and metrics. */
  attachCache(cache: Cache): void {
    this.#cache = cache;
  }

  /** For the cache: the label selector of a sharded kind's informer (this replica's objects only). */
  readonly selectorFor = (kind: GroupVersionKind): string | undefined =>
    this.#kinds.has(gvkKey(kind)) ? `${shardLabel(this.o.ring)}=${this.o.identity}` : undefined;

  register(kind: Kind, owned: readonly Kind[]): void {
    this.#kinds.set(gvkKey(kind), { kind });
    for (const k of owned)
      if (!this.#kinds.has(gvkKey(k))) this.#kinds.set(gvkKey(k), { kind: k, owner: kind });
  }

  reconciler(kind: Kind, inner: Reconciler<Request>): Reconciler<Request> {
    const cache = this.#cache;
    if (!cache) throw new Error("sharding: no cache attached");
    return shardedReconciler(
      {
        ring: this.o.ring,
        identity: this.o.identity,
        kind,
        cache,
        rest: this.#rest,
        handOver: this.#handOver,
        onDrained: () => this.#metrics.drains.inc({ ring: this.o.ring, shard: this.o.identity }),
      },
      inner,
    );
  }

  /**
   * Holds this replica's membership until `signal` aborts, running `hold(held)` (the sharded
   * controllers) while it lasts; rejects with a ShardMembershipLostError when it is lost.
   */
  async runMembership(hold: (held: AbortSignal) => Promise<void>, signal: AbortSignal): Promise<void> {
    const o = this.o;
    await this.#lostPlace(
      "its place",
      `${o.namespace}/${o.ring}-${o.identity}`,
      this.membership((held) => {
        this.#handOver.start(held);
        return hold(held);
      }).run(signal),
    );
  }

  /**
   * `running`, with a lost Lease (this replica's place, or the coordinator's role: both mean it
   * was cut off) said as what it is for a ring and what to do about it.
   */
  async #lostPlace(what: string, lease: string, running: Promise<void>): Promise<void> {
    const o = this.o;
    try {
      await running;
    } catch (err) {
      if (!(err instanceof LeaderElectionLostError)) throw err;
      throw new ShardMembershipLostError(
        `sharding: replica "${o.identity}" lost ${what} in ring "${o.ring}" (Lease ${lease}: ${err.message.replace(/^leader election lost: /, "")}); its sharded controllers stopped and the Manager stops: start the process again to rejoin (a Deployment or StatefulSet restarts its Pod)`,
        { cause: err },
      );
    }
  }

  /** The elector of this replica's membership: `hold(held)` runs the sharded controllers while it lasts. */
  membership(hold: (held: AbortSignal) => Promise<void>): LeaderElector {
    const o = this.o;
    return newLeaderElector({
      lock: newLeaseLock({
        client: this.#rest,
        namespace: o.namespace,
        name: `${o.ring}-${o.identity}`,
        identity: o.identity,
        labels: { [RING_LABEL]: o.ring },
      }),
      leaseDurationMs: o.leaseDurationMs,
      renewDeadlineMs: o.renewDeadlineMs,
      retryPeriodMs: o.retryPeriodMs,
      // A replica that stops lets its objects go at once rather than after leaseDuration.
      releaseOnCancel: true,
      logger: this.#log.withName("membership"),
      onStartedLeading: hold,
    });
  }

  /** The coordinator: a runnable on every replica, coordinating while it wins `<ring>-coordinator`. */
  coordinator(): { start(signal: AbortSignal): Promise<void>; needLeaderElection(): boolean } {
    const o = this.o;
    const coordinator = new Coordinator({
      rest: this.#rest,
      ring: o.ring,
      leaseNamespace: o.namespace,
      namespaces: this.#namespaces,
      leaseDurationMs: o.leaseDurationMs,
      retryPeriodMs: o.retryPeriodMs,
      kinds: () => [...this.#kinds.values()],
      logger: this.#log.withName("coordinator"),
      metrics: this.#metrics,
    });
    this.#coordinator = coordinator;
    coordinator.onChange(() => void this.#handOver.sweep());
    return {
      needLeaderElection: () => false,
      start: async (signal) => {
        // Until this runnable ends, also when it fails: the Manager learns of a failure only then.
        const watching = new AbortController();
        const stop = () => watching.abort();
        signal.addEventListener("abort", stop, { once: true });
        const observing = coordinator.observe(watching.signal);
        try {
          await this.#lostPlace(
            "the ring's coordinator Lease",
            `${o.namespace}/${o.ring}-coordinator`,
            newLeaderElector({
              lock: newLeaseLock({
                client: this.#rest,
                namespace: o.namespace,
                name: `${o.ring}-coordinator`,
                identity: o.identity,
              }),
              leaseDurationMs: o.leaseDurationMs,
              renewDeadlineMs: o.renewDeadlineMs,
              retryPeriodMs: o.retryPeriodMs,
              releaseOnCancel: true,
              logger: this.#log.withName("coordinator-election"),
              onStartedLeading: (leading) => coordinator.run(leading),
            }).run(signal),
          );
        } finally {
          signal.removeEventListener("abort", stop);
          watching.abort();
          await observing;
        }
      },
    };
  }

  /** This replica's objects of each sharded kind, from the cache (the `objects` gauge). */
  async #countObjects(): Promise<{ kind: string; count: number }[]> {
    const cache = this.#cache;
    if (!cache) return [];
    const out: { kind: string; count: number }[] = [];
    for (const k of this.#kinds.values()) {
      const list = await cache.list(k.kind).catch(() => undefined);
      if (list) out.push({ kind: k.kind.kind, count: list.items.length });
    }
    return out;
  }
}

function shardingMetrics(
  registry: Registry,
  self: { ring: string; shard: string },
  count: () => Promise<{ kind: string; count: number }[]>,
  unassigned: () => number,
) {
  const objects = new Gauge({
    name: "controller_runtime_shard_objects",
    help: "Objects of each sharded kind this replica holds",
    labelNames: ["ring", "shard", "kind"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const c of await count()) objects.set({ ...self, kind: c.kind }, c.count);
    },
  });
  return {
    objects,
    unassigned: new Gauge({
      name: "controller_runtime_shard_unassigned_objects",
      help: "Objects of the sharded kinds with no shard yet, as the coordinator sees them (0 on other replicas)",
      labelNames: ["ring"] as const,
      registers: [registry],
      collect() {
        this.set({ ring: self.ring }, unassigned());
      },
    }),
    assignments: new Counter({
      name: "controller_runtime_shard_assignments_total",
      help: "Objects the coordinator assigned to each shard (moves included)",
      labelNames: ["ring", "shard"] as const,
      registers: [registry],
    }),
    moves: new Counter({
      name: "controller_runtime_shard_moves_total",
      help: "Objects the coordinator took over from a gone shard (reason takeover); live shards hand theirs over themselves",
      labelNames: ["ring", "reason"] as const,
      registers: [registry],
    }),
    drains: new Counter({
      name: "controller_runtime_shard_drains_total",
      help: "Objects this replica handed over to another shard when the ring changed",
      labelNames: ["ring", "shard"] as const,
      registers: [registry],
    }),
  };
}
