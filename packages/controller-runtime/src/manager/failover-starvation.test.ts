// No starvation after a fail-over. A new leader's controller replays every object at low priority
// (the initial list) while live updates keep arriving at the default priority faster than it can
// reconcile. Without aging the replayed objects wait as long as the updates keep coming; with it
// each one is reconciled within the work queue's stated bound (priority-queue.ts):
// agingThreshold + 2 (n + 1) x mean reconcile time, n the keys ready before it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "../api/index.js";
import { controllerManagedBy } from "../builder/index.js";
import { nullLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/config.js";
import { newRESTClient, type RESTClient, resourceOf } from "../rest/index.js";
import { newPriorityQueue } from "../workqueue/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { configMap, newNamespace, until } from "../../../../test/support/objects.js";
import { Manager } from "./index.js";

const env = testEnvironment();
let config: RESTConfig;
let rest: RESTClient;
before(async () => {
  config = await env.start();
  rest = newRESTClient(config);
});
after(async () => {
  await rest.close();
  await env.stop();
});

const COLD = 40;
const HOT = 20;
const RECONCILE_MS = 20;
const AGING_MS = 500;

/** A manager whose ConfigMap controller in `ns` takes RECONCILE_MS per object and logs when it did each. */
async function replica(ns: string, who: string, agingThreshold: number, log: Map<string, number>) {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionID: `starve-${ns}`,
    leaderElectionNamespace: ns,
    leaderElectionIdentity: who,
    leaderElectionReleaseOnCancel: true,
    leaseDurationMs: 3_000,
    renewDeadlineMs: 2_000,
    retryPeriodMs: 100,
    cache: { defaultNamespaces: [ns] },
  });
  const durations: number[] = [];
  controllerManagedBy(mgr)
    .for(kinds.ConfigMap)
    .withOptions({
      newQueue: (name, rateLimiter) => newPriorityQueue({ name, rateLimiter, agingThreshold }),
    })
    .complete({
      async reconcile(req) {
        const t = performance.now();
        if (!log.has(req.name)) log.set(req.name, t);
        await sleep(RECONCILE_MS);
        durations.push(performance.now() - t);
        return {};
      },
    });
  const stop = new AbortController();
  const done = mgr.start(stop.signal);
  return { mgr, stop, done, durations };
}

/**
 * The first leader runs, then steps down while updates to the hot objects pour in; returns when
 * the successor's controller reconciled each cold object (or `forMs` passed), and its figures.
 */
async function failOver(agingThreshold: number, forMs: number) {
  const ns = await newNamespace(rest, "starve");
  for (let i = 0; i < COLD; i++) await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, `cold-${i}`));
  for (let i = 0; i < HOT; i++) await rest.create(resourceOf(kinds.ConfigMap), configMap(ns, `hot-${i}`));
  const firstLog = new Map<string, number>();
  const first = await replica(ns, "first", agingThreshold, firstLog);
  await first.mgr.elected();
  await until("the first leader reconciled everything", () => firstLog.size === COLD + HOT);
  const log = new Map<string, number>();
  const second = await replica(ns, "second", agingThreshold, log);
  // Live updates, as fast as the server takes them: each hot object changes every few ms.
  let writing = true;
  let writes = 0;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const name = `hot-${i % HOT}`;
      await rest.patch<ConfigMap>(
        resourceOf(kinds.ConfigMap),
        name,
        { data: { n: String(i) } },
        {
          namespace: ns,
          patchType: "merge",
        },
      );
      writes++;
    }
  })();
  await sleep(200);
  first.stop.abort();
  await first.done;
  await second.mgr.elected();
  const elected = performance.now();
  const cold = () => [...log.keys()].filter((k) => k.startsWith("cold-")).length;
  const deadline = elected + forMs;
  while (cold() < COLD && performance.now() < deadline) await sleep(20);
  const coldServed = cold();
  const writesDuring = writes;
  writing = false;
  await writer;
  second.stop.abort();
  await second.done;
  const waits = [...log].filter(([k]) => k.startsWith("cold-")).map(([, t]) => t - elected);
  const d = second.durations;
  const meanMs = d.reduce((a, b) => a + b, 0) / Math.max(1, d.length);
  return { coldServed, waits, meanMs, writesDuring, reconciles: d.length };
}

test("after a fail-over under saturating updates, every replayed object is reconciled within the aging bound", async (t) => {
  const aged = await failOver(AGING_MS, 15_000);
  // n keys were ready before the last replayed one: every object of the initial list.
  const boundMs = AGING_MS + 2 * (COLD + HOT + 1) * aged.meanMs;
  const worst = Math.max(...aged.waits);
  t.diagnostic(
    `aging ${AGING_MS} ms: ${aged.coldServed}/${COLD} replayed objects, worst wait ${worst.toFixed(0)} ms ` +
      `(bound ${boundMs.toFixed(0)} ms, mean reconcile ${aged.meanMs.toFixed(1)} ms, ${aged.reconciles} reconciles, ${aged.writesDuring} updates)`,
  );
  assert.equal(aged.coldServed, COLD);
  // The bound counts from the first key handed out; the start of the controller (informer list,
  // cache sync) comes before it: allowed one second.
  assert.ok(
    worst <= boundMs + 1_000,
    `worst wait ${worst.toFixed(0)} ms over the bound ${boundMs.toFixed(0)} ms`,
  );

  // The same fail-over without aging: the replayed objects wait behind the updates.
  const strict = await failOver(Number.POSITIVE_INFINITY, boundMs + 1_000);
  t.diagnostic(
    `no aging: ${strict.coldServed}/${COLD} replayed objects within ${(boundMs + 1_000).toFixed(0)} ms`,
  );
  assert.ok(strict.coldServed < COLD, "the load saturates the controller: without aging some objects starve");
});
