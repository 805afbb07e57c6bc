// Sharding across replicas (issue 16): managers in one ring share the ConfigMaps of a namespace.
// A ledger records every reconcile's [start, end] with the replica that ran it; through scale-out,
// a rolling restart, a graceful stop and the coordinating replica cut off from the API server (it stops itself, the
// other coordinates and takes its objects once its Lease expires), no two replicas ever reconcile
// one object at once, and
// every object ends up reconciled by the shard its label names. In every mode (the fault proxy
// on kube-apiserver).
import assert from "node:assert/strict";
import { availableParallelism, loadavg } from "node:os";
import { after, before, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { controllerManagedBy } from "../builder/index.js";
import { eventually, expectNoOverlap, type LedgerEntry, partition } from "../envtest/index.js";
import { newLogger, nullLogger } from "../log/index.js";
import { Manager } from "../manager/index.js";
import { reconcilerFn } from "../reconcile/index.js";
import { newRESTClient, resourceOf } from "../rest/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { HashRing } from "./hash-ring.js";
import { hashKey } from "./coordinator.js";
import { drainLabel, shardLabel } from "./labels.js";
import { ShardMembershipLostError } from "./sharding.js";

const env = testEnvironment({ faults: true });
before(() => env.start());
after(() => env.stop());

const CM = resourceOf(kinds.ConfigMap);
// Short enough for a quick fail-over, long enough that a replica on a machine busy with the rest
// of the suite (and a real etcd) keeps its place.
const TIMING = { leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 300 };
const OBJECTS = 300;
/**
 * How long a move may take in these tests. The goal (bench/sharding.ts) is 2 × leaseDuration at
 * 10 000 objects; 300 objects move in a second or two, and a cut-off replica's go after its Lease
 * expired (leaseDuration) and a coordinator took its place. The margin is for a machine busy with
 * the rest of the suite: a coordinator that waited a second leaseDuration, or moves one at a
 * time, still shows. On a machine with more runnable processes than cores every replica's timers
 * run late by about that ratio, so the bound grows with it (as the fuzz test's stall bound does).
 */
const MOVED_WITHIN_MS = 3 * TIMING.leaseDurationMs;

/** MOVED_WITHIN_MS on a machine whose run queue averaged `load` (the larger of two readings). */
function movedBound(load: number): number {
  return Math.round(MOVED_WITHIN_MS * Math.max(1, load / availableParallelism()));
}

test("a new member takes about 1/(N+1) of the keys, and shards are within 15% of the mean", () => {
  const keys = Array.from({ length: 10_000 }, (_, i) => `/ConfigMap/default/cm-${i}`);
  for (const n of [2, 3, 4, 5]) {
    const members = Array.from({ length: n }, (_, i) => `replica-${i}`);
    const before = new HashRing(members);
    const grown = new HashRing([...members, `replica-${n}`]);
    const counts = new Map<string, number>();
    let moved = 0;
    for (const k of keys) {
      const owner = before.owner(k)!;
      counts.set(owner, (counts.get(owner) ?? 0) + 1);
      if (grown.owner(k) !== owner) moved++;
    }
    const maxOverMean = Math.max(...counts.values()) / (keys.length / n);
    assert.ok(maxOverMean <= 1.15, `${n} members: max/mean ${maxOverMean}`);
    const ideal = 1 / (n + 1);
    assert.ok(
      Math.abs(moved / keys.length - ideal) < 0.05,
      `${n} → ${n + 1}: moved ${moved / keys.length}, ideal ${ideal}`,
    );
  }
  assert.equal(new HashRing([]).owner("x"), undefined);
});

test("objects a sharded controller owns follow their owner's shard, into its cache", async () => {
  const ns = `owned-${Date.now().toString(36)}`;
  const rest = newRESTClient(env.config);
  await rest.create(resourceOf(kinds.Namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  const ring = `owned-${Date.now().toString(36)}`;
  const label = shardLabel(ring);
  /** Owners whose reconcile found their Secret in its own cache, by replica. */
  const sawSecret = new Map<string, string>();
  const stops: AbortController[] = [];
  const done: Promise<unknown>[] = [];
  try {
    for (const id of ["a", "b"]) {
      const mgr = await Manager.create(env.config, {
        logger: nullLogger(),
        metrics: { bindAddress: "0" },
        cache: { defaultNamespaces: [ns] },
        sharding: { ring, identity: id, ...TIMING },
      });
      const client = mgr.getClient();
      controllerManagedBy(mgr)
        .for(kinds.ConfigMap, { sharded: true })
        .owns(kinds.Secret)
        .complete(
          reconcilerFn(async (req) => {
            const owner = await client.get(kinds.ConfigMap, req);
            const name = `owned-${req.name}`;
            const found = await client.get(kinds.Secret, { namespace: ns, name }).catch(() => undefined);
            if (found) {
              sawSecret.set(req.name, id);
              return;
            }
            await rest
              .create(
                resourceOf(kinds.Secret),
                {
                  apiVersion: "v1",
                  kind: "Secret",
                  metadata: {
                    name,
                    ownerReferences: [
                      {
                        apiVersion: "v1",
                        kind: "ConfigMap",
                        name: req.name,
                        uid: owner.metadata!.uid!,
                        controller: true,
                      },
                    ],
                  },
                },
                { namespace: ns },
              )
              .catch(() => {});
          }),
        );
      const stop = new AbortController();
      stops.push(stop);
      done.push(mgr.start(stop.signal).catch((err: unknown) => err));
    }
    const count = 40;
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        rest.create(
          CM,
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` } },
          { namespace: ns },
        ),
      ),
    );
    await eventually(
      "every owner saw its Secret in its shard's cache",
      async () => {
        const cms = await rest.list<ConfigMap>(CM, { namespace: ns });
        const secrets = await rest.list(resourceOf(kinds.Secret), { namespace: ns, labelSelector: label });
        const shardOf = new Map(cms.items.map((c) => [c.metadata!.name!, c.metadata?.labels?.[label]]));
        const owned = secrets.items.filter((s) => s.metadata!.name!.startsWith("owned-"));
        if (owned.length !== count || sawSecret.size !== count) return false;
        for (const s of owned) {
          const owner = s.metadata!.name!.slice("owned-".length);
          if (
            s.metadata?.labels?.[label] !== shardOf.get(owner) ||
            sawSecret.get(owner) !== shardOf.get(owner)
          )
            return false;
        }
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  } finally {
    for (const s of stops) s.abort();
    await Promise.allSettled(done);
    await rest.delete(resourceOf(kinds.Namespace), ns).catch(() => {});
    await rest.close();
  }
});

test("objects the coordinator saw while no member was alive are assigned once one is", async () => {
  const ns = `waiting-${Date.now().toString(36)}`;
  const rest = newRESTClient(env.config);
  await rest.create(resourceOf(kinds.Namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  const ring = `waiting-${Date.now().toString(36)}`;
  const label = shardLabel(ring);
  const LEASE = resourceOf(kinds.Lease);
  // The replica's membership Lease is held by someone else, so the ring has no live member while
  // its coordinator sees the objects.
  await rest.create(
    LEASE,
    {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: `${ring}-solo` },
      spec: {
        holderIdentity: "intruder",
        leaseDurationSeconds: 3600,
        renewTime: new Date().toISOString().replace("Z", "000Z"),
      },
    },
    { namespace: "default" },
  );
  const reconciled = new Set<string>();
  const mgr = await Manager.create(env.config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    cache: { defaultNamespaces: [ns] },
    sharding: { ring, identity: "solo", ...TIMING },
  });
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap, { sharded: true })
    .complete(
      reconcilerFn(async (req) => {
        reconciled.add(req.name);
      }),
    );
  const stop = new AbortController();
  const done = mgr.start(stop.signal).catch((err: unknown) => err);
  const count = 20;
  try {
    await Promise.all(
      Array.from({ length: count }, (_, i) =>
        rest.create(
          CM,
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` } },
          { namespace: ns },
        ),
      ),
    );
    const unassigned = async () =>
      (await mgr.metricsRegistry?.getSingleMetric("controller_runtime_shard_unassigned_objects")?.get())
        ?.values[0]?.value;
    await eventually(
      "the coordinator counts every object as waiting for a shard",
      async () => ((await unassigned()) === count ? true : undefined),
      { timeoutMs: 30_000 },
    );
    await rest.delete(LEASE, `${ring}-solo`, { namespace: "default" });
    await eventually(
      "every object assigned to the replica that joined, and reconciled there",
      async () => {
        const list = await rest.list<ConfigMap>(CM, { namespace: ns });
        return list.items.every((c) => c.metadata?.labels?.[label] === "solo") && reconciled.size === count;
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    assert.equal(await unassigned(), 0, "nothing waits any more");
  } finally {
    stop.abort();
    await done;
    await rest.delete(resourceOf(kinds.Namespace), ns).catch(() => {});
    await rest.close();
  }
});

test("replicas share a kind's objects; no object is reconciled by two at once through scale-out, a rolling restart, stop and a cut-off coordinator", async (t) => {
  const ns = `sharding-${Date.now().toString(36)}`;
  const rest = newRESTClient(env.config);
  await rest.create(resourceOf(kinds.Namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  const ring = `ring-${Date.now().toString(36)}`;
  const label = shardLabel(ring);
  const ledger: (LedgerEntry & { end?: number })[] = [];
  const last = new Map<string, string>();
  const replicas = new Map<string, { stop: AbortController; done: Promise<unknown>; mgr: Manager }>();

  const start = async (id: string) => {
    const mgr = await Manager.create(
      { ...env.config, userAgent: `shard-replica/${id}` },
      {
        logger: process.env.SHARD_DEBUG ? newLogger({ level: "error" }).withValues({ id }) : nullLogger(),
        metrics: { bindAddress: "0" },
        cache: { defaultNamespaces: [ns] },
        sharding: { ring, identity: id, ...TIMING },
        gracefulShutdownTimeoutMs: 10_000,
      },
    );
    controllerManagedBy(mgr)
      .for(kinds.ConfigMap, { sharded: true })
      .withOptions({ maxConcurrentReconciles: 4 })
      .complete(
        reconcilerFn(async (req) => {
          const key = `${req.namespace}/${req.name}`;
          const entry: LedgerEntry & { end?: number } = { key, holder: id, start: performance.now() };
          ledger.push(entry);
          last.set(key, id);
          await new Promise((r) => setImmediate(r));
          entry.end = performance.now();
        }),
      );
    const stop = new AbortController();
    replicas.set(id, { stop, mgr, done: mgr.start(stop.signal).catch((err: unknown) => err) });
  };

  /** Each object's shard label, by object name; a shard still draining to another counts as none. */
  const shards = async () => {
    const list = await rest.list<ConfigMap>(CM, { namespace: ns });
    return new Map(
      list.items.map((c) => [
        c.metadata!.name!,
        c.metadata?.labels?.[drainLabel(ring)] === undefined ? c.metadata?.labels?.[label] : undefined,
      ]),
    );
  };
  /**
   * Every object on the shard the ring of `members` names (so each holds some; not merely on one
   * of them, which a move half done also is), and last reconciled by it.
   */
  const settledOn = (members: string[]): Promise<Map<string, string | undefined>> =>
    eventually(
      `all objects on ${members.join(", ")}, each last reconciled by its shard`,
      async () => {
        const now = await shards();
        // What is not there yet, for the timeout's message.
        const ringOf = new HashRing(members);
        let unassigned = 0;
        let elsewhere = 0;
        let stale = 0;
        for (const [name, shard] of now) {
          if (!shard) unassigned++;
          else if (
            shard !== ringOf.owner(hashKey({ kind: kinds.ConfigMap }, { metadata: { namespace: ns, name } }))
          )
            elsewhere++;
          else if (last.get(`${ns}/${name}`) !== shard) stale++;
        }
        const held = new Set(now.values());
        const empty = members.filter((m) => !held.has(m));
        if (now.size === OBJECTS && unassigned + elsewhere + stale + empty.length === 0) return now;
        throw new Error(
          `${now.size} objects: ${unassigned} unassigned or draining, ${elsewhere} on shards the ring does not name, ${stale} not yet reconciled by theirs; empty shards: ${empty.join(", ") || "none"}`,
        );
      },
      // Past movedWithin's bound, so a slow move fails there, naming its time.
      { timeoutMs: Math.max(60_000, 2 * movedBound(loadavg()[0]!)), intervalMs: 200 },
    );
  /** `settledOn(members)`, which must come within MOVED_WITHIN_MS of `since`. */
  const movedWithin = async (what: string, since: number, members: string[]) => {
    const loadBefore = loadavg()[0]!;
    const settled = await settledOn(members);
    const took = performance.now() - since;
    const bound = movedBound(Math.max(loadBefore, loadavg()[0]!));
    t.diagnostic(`${what}: moved in ${Math.round(took)} ms (bound ${bound} ms)`);
    assert.ok(
      took <= bound,
      `${what}: the objects moved in ${Math.round(took)} ms, more than ${bound} ms (3 × leaseDuration, scaled by the machine's load)`,
    );
    return settled;
  };
  const moved = (a: Map<string, string | undefined>, b: Map<string, string | undefined>) =>
    [...a].filter(([name, shard]) => b.get(name) !== shard).length / a.size;

  try {
    await start("r1");
    await start("r2");
    await Promise.all(
      Array.from({ length: OBJECTS }, (_, i) =>
        rest.create(
          CM,
          { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${i}` } },
          { namespace: ns },
        ),
      ),
    );
    const two = await settledOn(["r1", "r2"]);
    const perShard = (m: Map<string, string | undefined>, id: string) =>
      [...m.values()].filter((s) => s === id).length;
    assert.ok(
      perShard(two, "r1") > OBJECTS / 4 && perShard(two, "r2") > OBJECTS / 4,
      "both shards hold objects",
    );

    // Scale out: a third replica takes about a third, drained from the others.
    await start("r3");
    const three = await settledOn(["r1", "r2", "r3"]);
    const share = moved(two, three);
    assert.ok(share > 0.15 && share < 0.5, `scale-out moved ${share} of the objects (ideal 1/3)`);
    // The replicas count what they let go, and what they hold, per shard.
    const metric = async (id: string, name: string): Promise<{ value: number }[]> => {
      const m = replicas.get(id)?.mgr.metricsRegistry?.getSingleMetric(name);
      return m ? (await m.get()).values : [];
    };
    const drained = [
      ...(await metric("r1", "controller_runtime_shard_drains_total")),
      ...(await metric("r2", "controller_runtime_shard_drains_total")),
    ];
    assert.ok(drained.reduce((n, v) => n + v.value, 0) > 0, "the old shards counted their drains");
    const held = await metric("r3", "controller_runtime_shard_objects");
    assert.equal(held[0]?.value, perShard(three, "r3"), "r3's objects gauge counts what it holds");

    // A rolling restart: each replica in turn stops and starts again under the same name, as a
    // StatefulSet's Pods do; its objects go to the others and (some) come back.
    for (const id of ["r1", "r2", "r3"]) {
      const stopping = performance.now();
      replicas.get(id)!.stop.abort();
      assert.equal(await replicas.get(id)!.done, undefined, `${id} stopped cleanly`);
      await movedWithin(
        `${id} stopped`,
        stopping,
        ["r1", "r2", "r3"].filter((m) => m !== id),
      );
      const starting = performance.now();
      await start(id);
      await movedWithin(`${id} started again`, starting, ["r1", "r2", "r3"]);
    }

    // Scale in: r1 stops gracefully and lets its objects go at once.
    replicas.get("r1")!.stop.abort();
    assert.equal(await replicas.get("r1")!.done, undefined, "r1 stopped cleanly");
    const afterStop = await settledOn(["r2", "r3"]);
    assert.equal(perShard(afterStop, "r1"), 0);

    // The coordinating replica is cut off: it misses its renew deadline and stops itself; the
    // other becomes the coordinator and takes its objects over once its Lease expired as the new
    // coordinator saw it.
    const coordinator = (await rest.get(resourceOf(kinds.Lease), `${ring}-coordinator`, {
      namespace: "default",
    })) as {
      spec?: { holderIdentity?: string };
    };
    const victim = coordinator.spec?.holderIdentity ?? "r2";
    const survivor = victim === "r2" ? "r3" : "r2";
    const cutAt = performance.now();
    const cut = env.faults.inject({ match: { userAgent: `shard-replica/${victim}` }, action: partition() });
    try {
      const err = await replicas.get(victim)!.done;
      assert.ok(
        err instanceof ShardMembershipLostError,
        `${victim} stopped with an error when it lost its place`,
      );
      assert.match(
        err.message,
        /lost (its place|the ring.s coordinator Lease) in ring .*start the process again to rejoin/,
      );
      await movedWithin(`the coordinator ${victim} cut off`, cutAt, [survivor]);
    } finally {
      cut.clear();
    }
    expectNoOverlap(ledger);
  } finally {
    for (const r of replicas.values()) r.stop.abort();
    await Promise.allSettled([...replicas.values()].map((r) => r.done));
    await rest.delete(resourceOf(kinds.Namespace), ns).catch(() => {});
    await rest.close();
  }
});

test("a holder hands an object over only after its running reconcile ended, and never reconciles the version it gave away", async () => {
  const ns = `handover-${Date.now().toString(36)}`;
  const rest = newRESTClient(env.config);
  await rest.create(resourceOf(kinds.Namespace), {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name: ns },
  });
  const ring = `handover-${Date.now().toString(36)}`;
  const label = shardLabel(ring);
  // Two objects the ring of r1 and r2 gives to r2: `name`, whose reconcile on r1 lasts until the
  // test lets it go, and `other`, whose arrival on r2 shows r1 saw r2 join.
  const both = new HashRing(["r1", "r2"]);
  const [name, other] = Array.from({ length: 200 }, (_, i) => `cm-${i}`).filter(
    (n) => both.owner(hashKey({ kind: kinds.ConfigMap }, { metadata: { namespace: ns, name: n } })) === "r2",
  ) as [string, string];
  const ledger: (LedgerEntry & { end?: number })[] = [];
  let release: () => void = () => {};
  const blocked = new Promise<void>((r) => {
    release = r;
  });
  let r1Started = false;
  const stops: AbortController[] = [];
  const done: Promise<unknown>[] = [];
  const start = async (id: string) => {
    const mgr = await Manager.create(env.config, {
      logger: nullLogger(),
      metrics: { bindAddress: "0" },
      cache: { defaultNamespaces: [ns] },
      sharding: { ring, identity: id, ...TIMING },
    });
    controllerManagedBy(mgr)
      .for(kinds.ConfigMap, { sharded: true })
      .complete(
        reconcilerFn(async (req) => {
          const entry: LedgerEntry & { end?: number } = {
            key: req.name,
            holder: id,
            start: performance.now(),
          };
          ledger.push(entry);
          if (id === "r1" && req.name === name && !r1Started) {
            r1Started = true;
            await blocked;
          }
          entry.end = performance.now();
        }),
      );
    const stop = new AbortController();
    stops.push(stop);
    done.push(mgr.start(stop.signal).catch((err: unknown) => err));
  };
  const shardOf = async (n: string) =>
    (await rest.get<ConfigMap>(CM, n, { namespace: ns })).metadata?.labels?.[label];
  try {
    await start("r1");
    for (const n of [name, other])
      await rest.create(
        CM,
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: n } },
        { namespace: ns },
      );
    await eventually(
      "r1 holds both and reconciles the first",
      async () => (r1Started && (await shardOf(other)) === "r1" ? true : undefined),
      { timeoutMs: 60_000 },
    );
    await start("r2");
    await eventually(
      "r1 handed the other object over to r2, which reconciled it",
      async () =>
        (await shardOf(other)) === "r2" && ledger.some((e) => e.holder === "r2" && e.key === other)
          ? true
          : undefined,
      { timeoutMs: 60_000 },
    );
    assert.equal(await shardOf(name), "r1", "not handed over while its reconcile runs");
    assert.ok(!ledger.some((e) => e.holder === "r2" && e.key === name), "r2 did not reconcile it meanwhile");
    release();
    await eventually(
      "r2 reconciles the object once r1 let it go",
      async () =>
        (await shardOf(name)) === "r2" && ledger.some((e) => e.holder === "r2" && e.key === name)
          ? true
          : undefined,
      { timeoutMs: 60_000 },
    );
    assert.equal(
      ledger.filter((e) => e.holder === "r1" && e.key === name).length,
      1,
      "r1 reconciled it once, before it let it go",
    );
    expectNoOverlap(ledger);
  } finally {
    release();
    for (const s of stops) s.abort();
    await Promise.allSettled(done);
    await rest.delete(resourceOf(kinds.Namespace), ns).catch(() => {});
    await rest.close();
  }
});
