// Three managers compete for one Lease: leader runnables run on exactly one at any instant,
// runnables that need no leader run on all three, and fail-over follows abort and release.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import { eventually, expectNoOverlap } from "../envtest/index.js";
import { nullLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/config.js";
import { newRESTClient } from "../rest/index.js";
import { Manager } from "./index.js";
import { aborted, runnableFunc } from "./runnable.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const env = testEnvironment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

interface Period {
  who: string;
  start: number;
  end?: number;
}

async function electionManagers(id: string, releaseOnCancel: boolean) {
  const periods: Period[] = [];
  const others = new Set<string>();
  const replicas = await Promise.all(
    ["a", "b", "c"].map(async (who) => {
      const mgr = await Manager.create(config, {
        logger: nullLogger(),
        metrics: { bindAddress: "0" },
        leaderElection: true,
        leaderElectionID: id,
        leaderElectionIdentity: who,
        leaderElectionReleaseOnCancel: releaseOnCancel,
        leaseDurationMs: 1_500,
        renewDeadlineMs: 1_000,
        retryPeriodMs: 200,
      });
      mgr.add(
        runnableFunc(async (signal) => {
          const p: Period = { who, start: performance.now() };
          periods.push(p);
          await aborted(signal);
          p.end = performance.now();
        }),
      );
      mgr.add(
        runnableFunc(
          async (signal) => {
            others.add(who);
            await aborted(signal);
          },
          { needLeaderElection: false },
        ),
      );
      const stop = new AbortController();
      const done = mgr.start(stop.signal);
      return { who, mgr, stop, done };
    }),
  );
  return { periods, others, replicas };
}

function assertNoOverlap(periods: Period[]): void {
  expectNoOverlap(periods.map((p) => ({ key: "leader", holder: p.who, start: p.start, end: p.end })));
}

test("one leader at a time; abort without release hands over after the lease expires", async () => {
  const { periods, others, replicas } = await electionManagers("le-no-release", false);
  await eventually("a first leader", () => periods.length === 1);
  await eventually("non-leader runnables on all replicas", () => others.size === 3);
  const first = replicas.find((r) => r.who === periods[0]!.who)!;
  first.stop.abort();
  await first.done;
  await eventually("a second leader", () => periods.length === 2);
  assert.notEqual(periods[1]!.who, first.who);
  for (const r of replicas) r.stop.abort();
  await Promise.all(replicas.map((r) => r.done));
  assertNoOverlap(periods);
});

test("with leaderElectionReleaseOnCancel the successor takes over before the lease would expire", async () => {
  const { periods, replicas } = await electionManagers("le-release", true);
  await eventually("a first leader", () => periods.length === 1);
  const first = replicas.find((r) => r.who === periods[0]!.who)!;
  first.stop.abort();
  await first.done;
  const client = newRESTClient(config);
  const lease = await client.get<Lease>(
    { group: "coordination.k8s.io", version: "v1", resource: "leases", namespaced: true },
    "le-release",
    { namespace: "default" },
  );
  await client.close();
  assert.notEqual(lease.spec?.holderIdentity, first.who, "the lease was released or already taken over");
  await eventually("a successor", () => periods.length === 2);
  for (const r of replicas) r.stop.abort();
  await Promise.all(replicas.map((r) => r.done));
  assertNoOverlap(periods);
});

test("a leader whose lease is taken stops its leader runnables and start() rejects", async () => {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionID: "le-taken",
    leaderElectionIdentity: "victim",
    leaseDurationMs: 1_500,
    renewDeadlineMs: 1_000,
    retryPeriodMs: 200,
  });
  let leading: AbortSignal | undefined;
  mgr.add(
    runnableFunc(async (signal) => {
      leading = signal;
      await aborted(signal);
    }),
  );
  const running = mgr.start(new AbortController().signal);
  await mgr.elected();
  await eventually("the leader runnable", () => leading !== undefined);
  const client = newRESTClient(config);
  const leases = { group: "coordination.k8s.io", version: "v1", resource: "leases", namespaced: true };
  const lease = await client.get<Lease>(leases, "le-taken", {
    namespace: "default",
  });
  await client.update(
    leases,
    { ...lease, spec: { ...lease.spec, holderIdentity: "usurper" } },
    { namespace: "default" },
  );
  await client.close();
  await assert.rejects(running, /leader election lost|lost/i);
  assert.equal(leading?.aborted, true);
});

test("leaderElectionLabels label the Lease it creates, and one made before on its first renewal", async () => {
  const leases = { group: "coordination.k8s.io", version: "v1", resource: "leases", namespaced: true };
  const client = newRESTClient(config);
  const older = `le-labels-${randomUUID().slice(0, 8)}`;
  // A Lease an older replica made, without our labels and with one of its own, expired long ago.
  await client.create<Lease>(
    leases,
    {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: older, namespace: "default", labels: { keep: "me" } },
      spec: { holderIdentity: "gone", leaseDurationSeconds: 1, renewTime: "2020-01-01T00:00:00.000000Z" },
    },
    { namespace: "default" },
  );
  for (const id of [`le-labels-${randomUUID().slice(0, 8)}`, older]) {
    const mgr = await Manager.create(config, {
      logger: nullLogger(),
      metrics: { bindAddress: "0" },
      leaderElection: true,
      leaderElectionID: id,
      leaderElectionLabels: { "app.kubernetes.io/name": "widget-operator" },
      leaseDurationMs: 1_500,
      renewDeadlineMs: 1_000,
      retryPeriodMs: 200,
      leaderElectionReleaseOnCancel: true,
    });
    const stop = new AbortController();
    const done = mgr.start(stop.signal);
    await mgr.elected();
    const lease = await client.get<Lease>(leases, id, { namespace: "default" });
    const expected: Record<string, string> = { "app.kubernetes.io/name": "widget-operator" };
    if (id === older) expected.keep = "me";
    assert.deepEqual(lease.metadata?.labels, expected);
    stop.abort();
    await done;
  }
  await client.close();
});
