// The Manager's leader election through a lock of one's own (a fake one a test blocks) and
// through the Lease of another API server (leaderElectionConfig).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { Lease } from "kubernetes-types/coordination/v1.js";
import { after, before, test } from "node:test";
import { kinds } from "../api/index.js";
import { eventually } from "../envtest/index.js";
import { LeaderElectionLostError, newFakeResourceLock } from "../leaderelection/index.js";
import { nullLogger } from "../log/index.js";
import { isNotFound, newRESTClient, type RESTConfig, resourceOf } from "../rest/index.js";
import { Manager } from "./index.js";
import { aborted, runnableFunc } from "./runnable.js";
import { testEnvironment } from "../../../../test/support/environment.js";

const home = testEnvironment();
const elsewhere = testEnvironment();
let homeConfig: RESTConfig;
let electionConfig: RESTConfig;
before(async () => {
  [homeConfig, electionConfig] = await Promise.all([home.start(), elsewhere.start()]);
});
after(() => Promise.all([home.stop(), elsewhere.stop()]));

const quick = { leaseDurationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 };
// Where nothing waits for a loss: a renewal late on a loaded machine must not end the test.
const steady = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 500 };

test("a fake lock elects at once; blocking it loses leadership, and start rejects", async () => {
  const lock = newFakeResourceLock({ identity: "me" });
  const mgr = await Manager.create(homeConfig, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionResourceLockInterface: lock,
    ...quick,
  });
  let leading = false;
  mgr.add(
    runnableFunc(async (signal) => {
      leading = true;
      await aborted(signal);
      leading = false;
    }),
  );
  const running = mgr.start(new AbortController().signal);
  await mgr.elected();
  await eventually("the leader runnable", () => leading);
  assert.equal(lock.record?.holderIdentity, "me");
  lock.blockLeaderElection();
  await assert.rejects(running, LeaderElectionLostError);
  assert.equal(leading, false);
});

test("leaderElectionConfig takes the Lease on the other API server", async () => {
  const id = `elsewhere-${randomUUID().slice(0, 8)}`;
  const mgr = await Manager.create(homeConfig, {
    logger: nullLogger(),
    metrics: { bindAddress: "0" },
    leaderElection: true,
    leaderElectionID: id,
    leaderElectionNamespace: "default",
    leaderElectionConfig: electionConfig,
    ...steady,
  });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  const there = newRESTClient(electionConfig);
  const here = newRESTClient(homeConfig);
  try {
    await mgr.elected();
    const lease = await there.get<Lease>(resourceOf(kinds.Lease), id, {
      namespace: "default",
    });
    assert.ok(lease.spec?.holderIdentity, "held on the election server");
    const local = await here
      .get(resourceOf(kinds.Lease), id, { namespace: "default" })
      .catch((e: unknown) => e);
    assert.ok(isNotFound(local), "not on the Manager's own");
  } finally {
    stop.abort();
    await running;
    await Promise.all([there.close(), here.close()]);
  }
});
