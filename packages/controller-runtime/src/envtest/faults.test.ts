// Faults on demand (env.faults): injected errors answer with kube's Status and headers, latency
// delays, watches drop or expire mid-stream, rules count their hits and go when cleared, and a
// seed replays the same draws. Informers survive dropped and expired watches without losing an
// object. On kube-apiserver the faults come from envtest's fault proxy; compaction and stale
// reads need the embedded server's storage.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { newCache } from "../cache/index.js";
import { newClient } from "../client/index.js";
import {
  isConflict,
  isTooManyRequests,
  newRESTClient,
  type RESTClient,
  resourceOf,
  type StatusError,
} from "../rest/index.js";
import { needs, testEnvironment } from "../../../../test/support/environment.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";
import { Manager } from "../manager/index.js";
import { nullLogger } from "../log/index.js";
import { runnableFunc } from "../manager/runnable.js";
import {
  delayEvents,
  dropWatch,
  duplicateEvents,
  eventually,
  expireWatch,
  faultError,
  holdEvents,
  latency,
  partition,
  staleReads,
} from "./index.js";

// In the binaries and existing-cluster modes the faults come from a proxy in front of the server.
const env = testEnvironment({ faults: true });
let rest: RESTClient;
const CM = resourceOf(kinds.ConfigMap);

describe("env.faults", () => {
  before(async () => {
    rest = newRESTClient({ ...(await env.start()), userAgent: "faults-test" });
  });
  after(async () => {
    env.faults.clear();
    await rest.close();
    await env.stop();
  });

  test("an injected 409 answers as kube's conflict, the given number of times, counted", async () => {
    const ns = await newNamespace(rest, "faults");
    const cm = await rest.create(CM, configMap(ns, "a"), { namespace: ns });
    const rule = env.faults.inject({
      match: { verbs: ["update"], resource: "configmaps", namespace: ns, name: "a" },
      action: faultError({ code: 409 }),
      times: 2,
    });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(rest.update(CM, cm, { namespace: ns, name: "a" }), (err: unknown) => {
        assert.ok(isConflict(err));
        assert.equal(
          (err as StatusError).status.message,
          'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
        );
        return true;
      });
    }
    await rest.update(CM, cm, { namespace: ns, name: "a" });
    assert.equal(rule.hits, 2);
    rule.clear();
  });

  test("an injected 409 on a create says so and where, and speaks of no modification", async () => {
    const ns = await newNamespace(rest, "faults");
    const rule = env.faults.inject({
      match: { verbs: ["create"], resource: "configmaps", namespace: ns },
      action: faultError({ code: 409 }),
      times: 1,
    });
    await assert.rejects(rest.create(CM, configMap(ns, "b"), { namespace: ns }), (err: unknown) => {
      assert.ok(isConflict(err));
      assert.equal(
        (err as StatusError).status.message,
        `Operation cannot be fulfilled on configmaps in namespace "${ns}": an injected conflict on a create; nothing was created, retry the create`,
      );
      return true;
    });
    await rest.create(CM, configMap(ns, "b"), { namespace: ns });
    rule.clear();
  });

  test("a 429 carries Retry-After; other verbs and callers pass; clear() ends it", async () => {
    const ns = await newNamespace(rest, "faults");
    // A client that does not send again on Retry-After shows the answer itself.
    const once = newRESTClient({ ...env.config, userAgent: "faults-test-once" }, { maxRetries: 0 });
    const rule = env.faults.inject({
      match: { verbs: ["list"], namespace: ns, userAgent: "faults-test-once" },
      action: faultError({ code: 429, retryAfterSeconds: 3 }),
    });
    await assert.rejects(once.list(CM, { namespace: ns }), (err: unknown) => {
      assert.ok(isTooManyRequests(err));
      assert.equal((err as StatusError).status.details?.retryAfterSeconds, 3);
      return true;
    });
    await once.create(CM, configMap(ns, "b"), { namespace: ns }); // not a list
    const other = newRESTClient({ ...env.config, userAgent: "someone-else" });
    await other.list(CM, { namespace: ns }); // another caller
    await other.close();
    rule.clear();
    await once.list(CM, { namespace: ns });
    assert.equal(rule.hits, 1);
    await once.close();
  });

  test("a client waits out Retry-After and sends again, as client-go does", async () => {
    const ns = await newNamespace(rest, "faults");
    const rule = env.faults.inject({
      match: { verbs: ["list"], namespace: ns, userAgent: "faults-test" },
      action: faultError({ code: 503, retryAfterSeconds: 1 }),
      times: 2,
    });
    const t0 = performance.now();
    await rest.list(CM, { namespace: ns });
    assert.equal(rule.hits, 2);
    assert.ok(performance.now() - t0 >= 1_900, "two waits of a second");
    rule.clear();
  });

  test("latency delays the requests it matches", async () => {
    const ns = await newNamespace(rest, "faults");
    const rule = env.faults.inject({ match: { verbs: ["get"], namespace: ns }, action: latency(300) });
    await rest.create(CM, configMap(ns, "slow"), { namespace: ns });
    const t0 = performance.now();
    await rest.get(CM, "slow", { namespace: ns });
    assert.ok(performance.now() - t0 >= 290, "the get waited");
    rule.clear();
  });

  test("a seed replays the same draws", async () => {
    const ns = await newNamespace(rest, "faults");
    await rest.create(CM, configMap(ns, "p"), { namespace: ns });
    const pattern = async () => {
      const rule = env.faults.inject({
        match: { verbs: ["get"], namespace: ns },
        action: faultError({ code: 500 }),
        probability: 0.5,
        seed: 1234,
      });
      const out: boolean[] = [];
      for (let i = 0; i < 40; i++)
        out.push(
          await rest.get(CM, "p", { namespace: ns }).then(
            () => true,
            () => false,
          ),
        );
      rule.clear();
      return out;
    };
    const first = await pattern();
    assert.deepEqual(await pattern(), first);
    const failed = first.filter((ok) => !ok).length;
    assert.ok(failed > 5 && failed < 35, `about half failed: ${failed} of 40`);
  });

  test("an open watch expires with kube's 410 after the given events, or has its connection cut", async () => {
    const ns = await newNamespace(rest, "faults");
    const read = async (stream: AsyncIterable<{ type: string; object: unknown }>) => {
      const seen: string[] = [];
      try {
        for await (const ev of stream) {
          seen.push(ev.type === "ERROR" ? `ERROR ${(ev.object as { code?: number }).code}` : ev.type);
        }
      } catch {
        seen.push("cut");
      }
      return seen;
    };
    // Rules added while the watch is open apply to it, counting events from then.
    const expiring = await rest.watch(CM, { namespace: ns });
    const expire = env.faults.inject({
      match: { namespace: ns, watch: true },
      action: expireWatch({ afterEvents: 1 }),
    });
    const expired = read(expiring);
    await rest.create(CM, configMap(ns, "e1"), { namespace: ns });
    await rest.create(CM, configMap(ns, "e2"), { namespace: ns });
    assert.deepEqual(await expired, ["ADDED", "ERROR 410"]);
    expire.clear();
    const drop = env.faults.inject({
      match: { namespace: ns, watch: true },
      action: dropWatch({ afterEvents: 1 }),
    });
    const dropped = read(await rest.watch(CM, { namespace: ns, resourceVersion: "0" }));
    // The REST client ends a cut stream as it ends a closed one (the reflector watches again either way).
    assert.deepEqual(await dropped, ["ADDED"], "one event, then the connection closed");
    drop.clear();
  });

  /** Reads a watch's event types and names until `stop` resolves. */
  function record(stream: AsyncIterable<{ type: string; object: unknown }>) {
    const seen: string[] = [];
    const done = (async () => {
      for await (const ev of stream) {
        const name = (ev.object as { metadata?: { name?: string } }).metadata?.name;
        seen.push(
          ev.type === "ERROR" ? `ERROR ${(ev.object as { code?: number }).code}` : `${ev.type} ${name}`,
        );
      }
    })().catch(() => {});
    return { seen, done };
  }

  test("held events come when released, in order; delayed ones later; duplicated ones twice", async () => {
    const ns = await newNamespace(rest, "faults");
    const w = await rest.watch(CM, { namespace: ns });
    const { seen } = record(w);
    const hold = env.faults.inject({ match: { namespace: ns, watch: true }, action: holdEvents() });
    await rest.create(CM, configMap(ns, "h1"), { namespace: ns });
    await rest.create(CM, configMap(ns, "h2"), { namespace: ns });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(seen, [], "nothing while held");
    hold.clear();
    await eventually("the held events", () => seen.length === 2);
    assert.deepEqual(seen, ["ADDED h1", "ADDED h2"]);

    const delay = env.faults.inject({ match: { namespace: ns, watch: true }, action: delayEvents(300) });
    const t0 = performance.now();
    await rest.create(CM, configMap(ns, "d1"), { namespace: ns });
    await eventually("the delayed event", () => seen.length === 3);
    assert.ok(performance.now() - t0 >= 290, "it came late");
    delay.clear();
    await rest.create(CM, configMap(ns, "d2"), { namespace: ns });
    await eventually("the next event", () => seen.length === 4);

    const twice = env.faults.inject({ match: { namespace: ns, watch: true }, action: duplicateEvents() });
    await rest.create(CM, configMap(ns, "x"), { namespace: ns });
    await eventually("the duplicated event", () => seen.length === 6);
    twice.clear();
    assert.deepEqual(seen.slice(2), ["ADDED d1", "ADDED d2", "ADDED x", "ADDED x"]);
    w.return?.();
  });

  test("a partitioned client's requests wait and its watch holds until healed; others go on", async () => {
    const ns = await newNamespace(rest, "faults");
    const cut = newRESTClient({ ...env.config, userAgent: "partitioned-replica" });
    const w = await cut.watch(CM, { namespace: ns });
    const { seen } = record(w);
    const net = env.faults.inject({ match: { userAgent: "partitioned-replica" }, action: partition() });
    let answered = false;
    const pending = cut.list(CM, { namespace: ns }).then(() => {
      answered = true;
    });
    await rest.create(CM, configMap(ns, "during"), { namespace: ns }); // others go on
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(answered, false, "the partitioned list waits");
    assert.deepEqual(seen, [], "the partitioned watch hears nothing");
    net.clear();
    await pending;
    await eventually("the held event", () => seen.length === 1);
    assert.deepEqual(seen, ["ADDED during"]);
    w.return?.();
    await cut.close();
  });

  test(
    "stale reads answer resourceVersion=0 from the past; other reads stay current",
    needs("faults"),
    async () => {
      const ns = await newNamespace(rest, "faults");
      const cm = await rest.create(CM, configMap(ns, "s", { v: "1" }), { namespace: ns });
      await rest.patch(CM, "s", { data: { v: "2" } }, { namespace: ns, patchType: "merge" });
      await rest.create(CM, configMap(ns, "new"), { namespace: ns });
      const lag = env.faults.inject({ match: { namespace: ns }, action: staleReads({ lagRV: 2 }) });
      const old = await rest.get(CM, "s", { namespace: ns, resourceVersion: "0" });
      assert.equal(
        old.metadata?.resourceVersion,
        cm.metadata?.resourceVersion,
        "the version before the patch",
      );
      const list = await rest.list(CM, { namespace: ns, resourceVersion: "0" });
      assert.deepEqual(
        list.items.map((o) => o.metadata?.name),
        ["s"],
        "the later object is not there yet",
      );
      assert.equal(
        (await rest.get<ConfigMap>(CM, "s", { namespace: ns })).data?.v,
        "2",
        "a plain get is current",
      );
      assert.equal(lag.hits, 3);
      lag.clear();
    },
  );

  test("restart drops every watch and keeps the objects", async () => {
    const ns = await newNamespace(rest, "faults");
    await rest.create(CM, configMap(ns, "kept"), { namespace: ns });
    const before = (await rest.list(CM, { namespace: ns })).metadata?.resourceVersion ?? "";
    const w = await rest.watch(CM, { namespace: ns, resourceVersion: before });
    const { done } = record(w);
    env.faults.restart();
    await done; // the watch ended
    const fresh = newRESTClient(env.config);
    assert.equal((await fresh.get(CM, "kept", { namespace: ns })).metadata?.name, "kept");
    await fresh.close();
  });

  test("compact makes lists and watches from older versions 410", needs("faults"), async () => {
    const ns = await newNamespace(rest, "faults");
    await rest.create(CM, configMap(ns, "kept"), { namespace: ns });
    const before = (await rest.list(CM, { namespace: ns })).metadata?.resourceVersion ?? "";
    const fresh = newRESTClient(env.config);
    await fresh.create(CM, configMap(ns, "later"), { namespace: ns });
    env.faults.compact();
    await assert.rejects(
      fresh.list(CM, { namespace: ns, resourceVersion: before, resourceVersionMatch: "Exact" }),
      (err: unknown) => (err as StatusError).status.code === 410,
    );
    const resumed = record(await fresh.watch(CM, { namespace: ns, resourceVersion: before }));
    await resumed.done;
    assert.deepEqual(resumed.seen, ["ERROR 410"]);
    await fresh.close();
  });

  test("a stolen Lease stops the leader's runnables and its start rejects", async () => {
    const id = `steal-${Date.now().toString(36)}`;
    const mgr = await Manager.create(env.config, {
      logger: nullLogger(),
      metrics: { bindAddress: "0" },
      leaderElection: true,
      leaderElectionID: id,
      leaderElectionNamespace: "default",
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 100,
    });
    let leading = false;
    mgr.add(
      runnableFunc(async (signal) => {
        leading = true;
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        leading = false;
      }),
    );
    const running = mgr.start(new AbortController().signal);
    await eventually("leading", () => leading);
    const thief = await env.faults.stealLease(id, { namespace: "default" });
    await assert.rejects(running, /leader election lost|lost the lease|leadership/i);
    assert.equal(leading, false);
    assert.match(thief, /^fault-injector-/);
  });

  test("a write log records each caller's writes, not its reads, until stopped", async () => {
    const ns = await newNamespace(rest, "faults");
    const log = env.faults.recordWrites();
    const a = newRESTClient({ ...env.config, userAgent: "replica-a" });
    await a.create(CM, configMap(ns, "w"), { namespace: ns });
    await a.get(CM, "w", { namespace: ns });
    await rest.patch(CM, "w", { data: { x: "1" } }, { namespace: ns, patchType: "merge" });
    await a.delete(CM, "w", { namespace: ns });
    log.stop();
    await rest.create(CM, configMap(ns, "after"), { namespace: ns });
    const mine = log.writes.filter((w) => w.namespace === ns);
    assert.deepEqual(
      mine.map(
        (w) =>
          `${w.verb} ${w.resource}/${w.name || "-"} by ${w.userAgent.startsWith("replica-a") ? "a" : "test"}`,
      ),
      ["create configmaps/- by a", "patch configmaps/w by test", "delete configmaps/w by a"],
    );
    assert.deepEqual(
      log
        .by("replica-a")
        .filter((w) => w.namespace === ns)
        .map((w) => w.verb),
      ["create", "delete"],
    );
    await a.close();
  });

  test("informers lose nothing when their watches drop or expire mid-stream", async () => {
    const ns = await newNamespace(rest, "faults");
    const stop = new AbortController();
    const cache = newCache(env.config, { defaultNamespaces: [ns] });
    const done = cache.start(stop.signal);
    const client = newClient(env.config, { cache });
    try {
      await cache.getInformer(kinds.ConfigMap);
      const drop = env.faults.inject({
        match: { watch: true, namespace: ns, resource: "configmaps" },
        action: dropWatch({ afterEvents: 3 }),
        times: 2,
      });
      const expire = env.faults.inject({
        match: { watch: true, namespace: ns, resource: "configmaps" },
        action: expireWatch({ afterEvents: 2 }),
        times: 2,
      });
      for (let i = 0; i < 30; i++) await rest.create(CM, configMap(ns, `o${i}`), { namespace: ns });
      // Changes keep coming until every fault has acted: each needs events on a watch to count.
      for (let i = 0; drop.hits < 2 || expire.hits < 2; i++) {
        assert.ok(i < 2_000, `faults acted: drop ${drop.hits}, expire ${expire.hits}`);
        await rest.patch(CM, `o${i % 30}`, { data: { n: String(i) } }, { namespace: ns, patchType: "merge" });
        if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      drop.clear();
      expire.clear();
      await rest.delete(CM, "o0", { namespace: ns });
      // The cache converges on the server's state: nothing lost, nothing stale.
      const want = async () =>
        JSON.stringify(
          (await rest.list(CM, { namespace: ns })).items.map((o) => [
            o.metadata?.name,
            o.metadata?.resourceVersion,
          ]),
        );
      const have = async () =>
        JSON.stringify(
          (await client.list(kinds.ConfigMap, { inNamespace: ns })).items
            .map((o) => [o.metadata?.name, o.metadata?.resourceVersion])
            .sort(([a], [b]) => String(a).localeCompare(String(b))),
        );
      await until("the cache holds the server's state", async () => {
        const server = JSON.parse(await want()) as [string, string][];
        server.sort(([a], [b]) => a.localeCompare(b));
        return JSON.stringify(server) === (await have());
      });
    } finally {
      stop.abort();
      await done;
    }
  });
});
