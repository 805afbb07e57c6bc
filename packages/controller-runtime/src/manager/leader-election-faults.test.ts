// Leader election under faults: three replicas compete for a Lease while the leader is cut off,
// its Lease is stolen, lease writes conflict or fail, the server is slow or restarts. A replica
// that loses its Lease exits and is started again under a new identity, as its Pod would be.
// Every run ends with one leader, and no two replicas ever ran their leader runnables at once.
// In every mode (the fault proxy on kube-apiserver).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  eventually,
  expectNoOverlap,
  faultError,
  faultMatrix,
  latency,
  partition,
} from "../envtest/index.js";
import { nullLogger } from "../log/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { Manager } from "./index.js";
import { aborted, runnableFunc } from "./runnable.js";

const env = testEnvironment({ faults: true });
before(() => env.start());
after(() => env.stop());

interface Term {
  key: string;
  holder: string;
  start: number;
  end?: number;
}

/** Three replicas of one leader-elected manager; each that exits is replaced by a new one. */
function replicas(leaseName: string) {
  const terms: Term[] = [];
  const stops: AbortController[] = [];
  const running: Promise<void>[] = [];
  let spawned = 0;
  let stopped = false;
  const spawn = async (slot: string): Promise<void> => {
    const who = `${slot}-${++spawned}`;
    const mgr = await Manager.create(
      { ...env.config, userAgent: `le-replica/${who}` },
      {
        logger: nullLogger(),
        metrics: { bindAddress: "0" },
        leaderElection: true,
        leaderElectionID: leaseName,
        leaderElectionIdentity: who,
        leaseDurationMs: 1_500,
        renewDeadlineMs: 1_000,
        retryPeriodMs: 200,
      },
    );
    mgr.add(
      runnableFunc(async (signal) => {
        const term: Term = { key: leaseName, holder: who, start: performance.now() };
        terms.push(term);
        await aborted(signal);
        term.end = performance.now();
      }),
    );
    const stop = new AbortController();
    stops.push(stop);
    running.push(
      mgr.start(stop.signal).catch(() => {
        // Lost the Lease: the process would exit and its Pod start again.
        if (!stopped) return spawn(slot);
      }),
    );
  };
  return {
    terms,
    start: () => Promise.all(["a", "b", "c"].map(spawn)),
    /** The replica whose leader runnables run now. */
    leader: () => terms.find((t) => t.end === undefined)?.holder,
    async stop() {
      stopped = true;
      for (const s of stops) s.abort();
      // Replacements may still be starting: wait until every start() settled.
      for (let n = 0; n < running.length; n = running.length) await Promise.allSettled(running.slice(n));
      for (const s of stops) s.abort();
      await Promise.allSettled(running);
    },
  };
}

test("one leader at a time under each fault, and one leader after it", async (t) => {
  let current: ReturnType<typeof replicas> | undefined;
  const leaderOf = () => eventually("a leader", () => current?.leader(), { timeoutMs: 20_000 });
  const leases = { resource: "leases", group: "coordination.k8s.io" };
  const handsOver = new Set(["the leader partitioned for 2.5 s", "the Lease stolen"]);
  const results = await faultMatrix(
    env,
    async ({ fault }) => {
      const run = replicas(`le-${fault.replace(/[^a-z0-9]+/g, "-")}`.slice(0, 60).replace(/-$/, ""));
      current = run;
      const log = env.faults.recordWrites();
      try {
        await run.start();
        // Let the fault act over a number of the leader's renewals (not over a fixed time).
        await eventually(
          "10 lease writes",
          () => log.writes.filter((w) => w.resource === "leases").length >= 10,
          { timeoutMs: 30_000, intervalMs: 50 },
        );
      } finally {
        log.stop();
      }
      try {
        await eventually(
          "one leader, its term still running",
          () => run.terms.filter((t) => t.end === undefined).length === 1,
          { timeoutMs: 20_000 },
        );
      } finally {
        await run.stop();
        current = undefined;
      }
      expectNoOverlap(run.terms);
      if (handsOver.has(fault)) assert.ok(run.terms.length >= 2, `${fault}: another replica took over`);
    },
    {
      "the leader partitioned for 2.5 s": async (acts) => {
        const leader = await leaderOf();
        const cut = acts.inject({ match: { userAgent: `le-replica/${leader}` }, action: partition() });
        await acts.wait(2_500);
        cut.clear();
      },
      "the Lease stolen": async (acts) => {
        await leaderOf();
        const name = current?.terms[0]?.key ?? "";
        await acts.stealLease(name);
      },
      "409 on 30% of lease writes": [
        { match: { ...leases, verbs: ["update"] }, action: faultError({ code: 409 }), probability: 0.3 },
      ],
      "500 on 30% of lease requests": [
        { match: { ...leases, watch: false }, action: faultError({ code: 500 }), probability: 0.3 },
      ],
      "lease requests 150 ms slow": [{ match: leases, action: latency(150) }],
      "restart every 300 ms": async (acts) => {
        while (await acts.wait(300)) acts.restart();
      },
    },
    { seed: 3, print: (table) => (process.env.FAULT_MATRIX_PRINT ? t.diagnostic(`\n${table}`) : undefined) },
  );
  assert.deepEqual(
    results.filter((r) => !r.converged).map((r) => `${r.fault}: ${(r.error as Error)?.message}`),
    [],
  );
  for (const r of results.slice(1)) assert.ok(r.hits > 0, `${r.fault} fired`);
});
