// The README's ticker Runnable, written as the tour shows it: a channel producer that is
// leader-elected with the controller reading it. Once the manager is asked to stop, the
// controller stops reading, so the ticker's pending send must give up rather than hold shutdown
// for the whole grace period.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { controllerManagedBy } from "../builder/index.js";
import { eventually } from "../envtest/index.js";
import { enqueueRequestsFromMapFunc } from "../handler/index.js";
import { nullLogger } from "../log/index.js";
import type { RESTConfig } from "../rest/config.js";
import type { GenericEvent } from "../event/index.js";
import { newChannel } from "../source/index.js";
import { testEnvironment } from "../../../../test/support/environment.js";
import { Manager } from "./index.js";
import { runnableFunc } from "./runnable.js";

const env = testEnvironment();
let config: RESTConfig;
before(async () => {
  config = await env.start();
});
after(() => env.stop());

test("the README's ticker pattern lets the manager shut down without waiting out the grace period", async () => {
  const mgr = await Manager.create(config, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionID: `ticker-${process.pid}`,
    leaderElectionNamespace: "default",
    gracefulShutdownTimeoutMs: 30_000,
  });
  let sends = 0;
  const ticks = newChannel<GenericEvent>();
  mgr.add(
    runnableFunc(async (signal) => {
      while (!signal.aborted) {
        await ticks.send({});
        sends++;
        await sleep(10, undefined, { signal });
      }
    }),
  );
  let ticked = 0;
  controllerManagedBy(mgr)
    .named("ticker-reader")
    .watches(
      ticks,
      enqueueRequestsFromMapFunc(async () => [{ namespace: "default", name: "tick" }]),
    )
    .complete({
      async reconcile() {
        ticked++;
        // A slow reader: the ticker's next send waits for room when the manager stops.
        await sleep(50);
        return {};
      },
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  await eventually("ticks reach the controller", () => ticked >= 3 && sends >= 3);
  const stopping = performance.now();
  stop.abort();
  await running; // resolves: the ticker's aborted send and sleep are a clean stop
  const tookMs = performance.now() - stopping;
  // Held by the send, shutdown would take the whole grace period (30 s by default); a loaded
  // machine makes a clean stop take a few hundred ms, never a third of that.
  assert.ok(tookMs < 10_000, `shutdown took ${tookMs.toFixed(0)} ms (held for the grace period?)`);
});
